"""Accuracy of the equivalence-classes judges on a labelled set built from ``../shared/data``.

NoveltyBench's human equivalence labels are not in this repository's data, so the labelled pairs
come from held-out human labels (the shipped NLI model was not trained on SICK or multirefeval):

- equivalent: SICK test pairs labelled entailment in BOTH directions (A entails B, B entails A);
- not equivalent, three kinds (a third each):
  * SICK test pairs with entailment one way only (one sentence adds information),
  * SICK test pairs with no entailment either way (neutral / contradiction),
  * multirefeval: two of the several human references to the same dialogue turn (different
    answers to one prompt, the case NoveltyBench's partition is for; a few may be paraphrases).

Each judge runs through diveval's own judge classes; it prints accuracy, precision and recall of
"equivalent", per kind, and for the threshold judges the best threshold on this set (an oracle,
optimistic: it is tuned on the same pairs).

    python benchmarks/equivalence_judge.py [--pairs 300] [--seed 0]
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
DATA = ROOT.parent / "shared" / "data"


def sick_pairs() -> dict[str, list[tuple[str, str]]]:
    kinds: dict[str, list[tuple[str, str]]] = {"both-ways": [], "one-way": [], "neither": []}
    path = DATA / "nli" / "sick" / "SICK_kalouli_full_with_splits.txt"
    with open(path, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if (row.get("SemEval_set") or "").strip() != "TEST":
                continue
            ab = "entails" in row["entailment_AB"]
            ba = "entails" in row["entailment_BA"]
            kind = "both-ways" if ab and ba else "one-way" if ab or ba else "neither"
            kinds[kind].append((row["sentence_A"], row["sentence_B"]))
    return kinds


def multiref_pairs() -> list[tuple[str, str]]:
    out = []
    with open(DATA / "multirefeval" / "multireftest.json", encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            for turn in json.loads(line)["dialogue"]:
                refs = [r.strip() for r in dict.fromkeys(turn.get("responses", [])) if r.strip()]
                if len(refs) >= 2:
                    out.append((refs[0], refs[1]))
    return out


def labelled_set(n: int, seed: int) -> list[tuple[str, str, bool, str]]:
    rng = random.Random(seed)
    sick = sick_pairs()
    multi = multiref_pairs()
    rows = [(a, b, True, "sick-both-ways") for a, b in rng.sample(sick["both-ways"], n)]
    third = n // 3
    rows += [(a, b, False, "sick-one-way") for a, b in rng.sample(sick["one-way"], third)]
    rows += [(a, b, False, "sick-neither") for a, b in rng.sample(sick["neither"], third)]
    rows += [(a, b, False, "multiref") for a, b in rng.sample(multi, n - 2 * third)]
    return rows


def report(name: str, verdicts: list[bool], rows, seconds: float) -> None:
    y = np.array([r[2] for r in rows])
    p = np.array(verdicts)
    tp = int((p & y).sum())
    acc = float((p == y).mean())
    prec = tp / max(int(p.sum()), 1)
    rec = tp / max(int(y.sum()), 1)
    kinds = sorted({r[3] for r in rows})
    per = "  ".join(
        f"{k}={float((p[m] == y[m]).mean()):.3f}"
        for k in kinds
        for m in [np.array([r[3] == k for r in rows])]
    )
    print(f"{name:28s} acc {acc:.3f}  P {prec:.3f}  R {rec:.3f}  {seconds:6.1f}s   {per}")


def best_threshold(sims: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    best = (0.0, 0.0)
    for t in np.unique(sims):
        acc = float(((sims >= t) == y).mean())
        if acc > best[1]:
            best = (float(t), acc)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=300, help="equivalent pairs (as many not)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if not (DATA / "nli" / "sick").is_dir() or not (DATA / "multirefeval").is_dir():
        print(f"no labelled data under {DATA}; nothing to measure")
        return
    from diveval.models.cache import cached_embedder, cached_nli
    from diveval.models.resolve import resolve_embedder, resolve_nli_model
    from diveval.semantic.embedding_diversity import unit_rows
    from diveval.semantic.equivalence import (
        BleuJudge,
        EmbeddingJudge,
        NLIJudge,
        UnigramJudge,
        bertscore_judge,
    )

    rows = labelled_set(args.pairs, args.seed)
    pairs = [(a, b) for a, b, _, _ in rows]
    y = np.array([r[2] for r in rows])
    print(f"{len(rows)} pairs: {int(y.sum())} equivalent, {int((~y).sum())} not (seed {args.seed})")

    t = time.perf_counter()
    nli = NLIJudge(cached_nli(resolve_nli_model(None), None))
    report("nli (shipped, both ways)", nli.judge_pairs(pairs), rows, time.perf_counter() - t)

    t = time.perf_counter()
    emb = cached_embedder(resolve_embedder(None), None)
    judge = EmbeddingJudge(emb, 0.8)
    report("embedding:0.8 (MiniLM)", judge.judge_pairs(pairs), rows, time.perf_counter() - t)
    x = unit_rows(emb.encode([a for a, _ in pairs] + [b for _, b in pairs]))
    cos = np.einsum("ij,ij->i", x[: len(pairs)], x[len(pairs) :])
    thr, acc = best_threshold(cos, y)
    print(f"{'embedding oracle':28s} acc {acc:.3f} at threshold {thr:.3f} (tuned on this set)")

    t = time.perf_counter()
    bleu = BleuJudge(0.3)
    report("bleu:0.3 (sacrebleu, sym.)", bleu.judge_pairs(pairs), rows, time.perf_counter() - t)
    sims = np.array([bleu.similarity(a, b) for a, b in pairs])
    thr, acc = best_threshold(sims, y)
    print(f"{'bleu oracle':28s} acc {acc:.3f} at threshold {thr:.3f} (tuned on this set)")

    t = time.perf_counter()
    unigram = UnigramJudge(0.458)
    report(
        "unigram:0.458 (NoveltyBench)", unigram.judge_pairs(pairs), rows, time.perf_counter() - t
    )
    sims = np.array([unigram.similarity(a, b) for a, b in pairs])
    thr, acc = best_threshold(sims, y)
    print(f"{'unigram oracle':28s} acc {acc:.3f} at threshold {thr:.3f} (tuned on this set)")

    # NoveltyBench's bertscore model (deberta-large) is not on this machine: the offline MiniLM,
    # whose F1 sits on another scale, so 0.719 is not NoveltyBench's decision; the oracle compares
    from diveval.models.bertscore import default_bertscore_model

    t = time.perf_counter()
    bert = bertscore_judge(0.719, default_bertscore_model())
    sims = bert.similarities(pairs)
    report("bertscore:0.719 (MiniLM L6)", list(sims > 0.719), rows, time.perf_counter() - t)
    thr, acc = best_threshold(sims, y)
    print(
        f"{'bertscore oracle (MiniLM)':28s} acc {acc:.3f} at threshold {thr:.3f} (tuned on this set)"
    )
    print("majority class: 0.500")


if __name__ == "__main__":
    main()
