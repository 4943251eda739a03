"""Diversity Threshold Generation with the offline SmolLM2 generator and the Sent-BERT preset.

Runs ``threshold_generate`` on the first N DailyDialog++ dev contexts (default 20) with
SmolLM2-135M-Instruct (nucleus p = 0.9) and the Sent-BERT preset (threshold -0.179, offline
all-MiniLM-L6-v2), then prints the paper's Table 4 row (and Table 5: BLEU of the starting and
ending sets against the five human references).

Then the same run again, without the score cache: the samples SmolLM2 drew are replayed in the same
order, and a scorer that batches exactly as diveval's does but keeps nothing between calls embeds
every (sub)set afresh. SmolLM2's samples are diverse enough that most sets pass -0.179 at once,
so a second pass on a few contexts with a stricter threshold (default -0.05) exercises the
drop-and-resample loop, where the cache matters. The script prints the embedding-model calls and texts of both runs, their
scoring times and their ratio, and checks that both runs end with the same sets and scores.

    python benchmarks/threshold.py [--contexts 20] [--max-new-tokens 32] [--threads 1]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "dailydialog-plusplus" / "dev.json"


class Counting:
    """An Embedder that counts the calls and texts that reach the real model."""

    def __init__(self, model):
        self.model = model
        self.name = model.name
        self.fingerprint = model.fingerprint
        self.calls = 0
        self.texts = 0
        self.seconds = 0.0

    def encode(self, texts):
        t = time.perf_counter()
        self.calls += 1
        self.texts += len(texts)
        out = self.model.encode(texts)
        self.seconds += time.perf_counter() - t
        return out


class Recording:
    """A generator that records what the wrapped one returned, and for how long it ran."""

    def __init__(self, gen):
        self.gen = gen
        self.name = gen.name
        self.draws: dict[str, list[list[str]]] = {}
        self.seconds = 0.0

    def sample(self, context, k, seed):
        t = time.perf_counter()
        out = self.gen.sample(context, k, seed)
        self.seconds += time.perf_counter() - t
        self.draws.setdefault("\n".join(context), []).append(list(out))
        return out


class Replay:
    """Gives back recorded draws in order (so a second run sees exactly the same samples)."""

    name = "replay"

    def __init__(self, draws):
        self.draws = {k: list(v) for k, v in draws.items()}

    def sample(self, context, k, seed):
        out = self.draws["\n".join(context)].pop(0)
        assert len(out) == k
        return out


class UncachedSentBert:
    """Sent-BERT set scorer with diveval's batching (one model call per scoring) but no cache."""

    name = "sent-bert"
    signature = "sent-bert|uncached"

    def __init__(self, embedder):
        self.embedder = embedder

    def _values(self, sets):
        from diveval.semantic.embedding_diversity import unit_rows

        x = unit_rows(self.embedder.encode([t for s in sets for t in s]))
        out, start = [], 0
        for s in sets:
            block = x[start : start + len(s)]
            sims = block @ block.T
            out.append(-sims[np.triu_indices(len(s), k=1)].mean())
            start += len(s)
        return out

    def score(self, responses):
        return float(self._values([list(responses)])[0])

    def leave_one_out(self, responses):
        r = list(responses)
        return self._values([r[:i] + r[i + 1 :] for i in range(len(r))])


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--contexts", type=int, default=20)
    ap.add_argument("--max-new-tokens", type=int, default=32)
    ap.add_argument("--threads", type=int, default=1, help="torch threads while generating")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--strict-contexts",
        type=int,
        default=5,
        help="a second pass on this many contexts with --strict-threshold (0: none)",
    )
    ap.add_argument("--strict-threshold", type=float, default=-0.05)
    args = ap.parse_args()
    if not os.path.exists(args.data):
        print(f"no data at {args.data}", file=sys.stderr)
        return 1

    from diveval.generation.runner import set_relevance, summarize
    from diveval.generation.threshold import threshold_generate
    from diveval.io.contexts import read_contexts
    from diveval.models.generators import smollm2_generator
    from diveval.models.resolve import resolve_embedder
    from diveval.report.run_summaries import generation_summary

    items = read_contexts(args.data)[: args.contexts]
    t = time.perf_counter()
    smol = smollm2_generator(threads=args.threads, max_new_tokens=args.max_new_tokens)
    load_s = time.perf_counter() - t
    print(f"SmolLM2 load (converted weights from the cache folder): {load_s:.2f} s")
    base = resolve_embedder(None)
    cached_counter = Counting(base)  # what reaches the model through diveval's CachedEmbedder

    def run_pass(chosen, threshold, label):
        gen = Recording(smol)
        t0 = time.perf_counter()
        records, results = [], []
        for i, it in enumerate(chosen):
            res = threshold_generate(
                it.context,
                gen,
                "sent-bert",
                threshold,
                seed=args.seed,
                embedding_model=cached_counter,
            )
            results.append(res)
            rec = {"id": it.id, **res.to_dict()}
            rec["relevance"] = {
                "bleu": {
                    "start": set_relevance(res.start, it.references),
                    "end": set_relevance(res.end, it.references),
                }
            }
            records.append(rec)
            print(
                f"  {label} context {i + 1}/{len(chosen)}: {res.samples} samples, "
                f"{res.start_diversity:.3f} -> {res.end_diversity:.3f} ({res.stop})",
                file=sys.stderr,
            )
        total_s = time.perf_counter() - t0
        print(
            f"{label}: generation {gen.seconds:.1f} s for {sum(r.samples for r in results)} "
            f"samples; whole pass {total_s:.1f} s"
        )
        print(
            generation_summary(
                summarize(records),
                f"DailyDialog++ dev, first {len(chosen)} contexts, SmolLM2-135M-Instruct, {label}",
            )
        )
        return gen, results, total_s - gen.seconds

    passes = [(items, None, "sent-bert preset (-0.179)")]
    if args.strict_contexts:
        passes.append(
            (
                items[: args.strict_contexts],
                args.strict_threshold,
                f"sent-bert above {args.strict_threshold:g} (exercises the replacements)",
            )
        )
    done = [
        (chosen, threshold, *run_pass(chosen, threshold, label))
        for chosen, threshold, label in passes
    ]
    scoring_cached = sum(d[4] for d in done)

    # the same samples again, no cache
    plain_counter = Counting(base)
    t0 = time.perf_counter()
    same = True
    for chosen, threshold, gen, results, _ in done:
        replay = Replay(gen.draws)
        thr = -0.179 if threshold is None else threshold
        for it, a in zip(chosen, results):
            b = threshold_generate(
                it.context, replay, UncachedSentBert(plain_counter), thr, seed=args.seed
            )
            same &= (
                a.end == b.end
                and a.samples == b.samples
                and abs(a.end_diversity - b.end_diversity) < 1e-5
            )
    scoring_plain = time.perf_counter() - t0

    print()
    print(f"{'embedding model, all passes':<30}{'calls':>8}{'texts':>8}{'scoring s':>12}")
    print(
        f"{'with the cache (diveval)':<30}{cached_counter.calls:>8}{cached_counter.texts:>8}"
        f"{scoring_cached:>12.2f}"
    )
    print(
        f"{'without the cache':<30}{plain_counter.calls:>8}{plain_counter.texts:>8}"
        f"{scoring_plain:>12.2f}"
    )
    print(
        f"texts sent to the model: {plain_counter.texts / max(1, cached_counter.texts):.1f}x fewer "
        f"with the cache; calls: {plain_counter.calls / max(1, cached_counter.calls):.1f}x fewer; "
        f"scoring time ratio (without / with): {scoring_plain / max(1e-9, scoring_cached):.2f}"
    )
    print(f"same ending sets and scores in both runs: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
