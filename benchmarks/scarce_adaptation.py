"""SCARCE's generative parts on the rated data: what do DELOREAN adaptation, the commonsense
stand-in and the paraphrase baseline add to retrieved references?

    python benchmarks/scarce_adaptation.py [--items 100] [--k 5] [--show 20] [--threads 1]

A long run can be split and resumed: ``--out FILE --parts N --part I`` augments the I-th of N
slices of the contexts into ``FILE.IofN`` (one process per CPU core: SmolLM2 at batch ~10 runs
as fast on one thread as on two), resuming where an interrupted run stopped; ``--out FILE
--parts N --report`` then prints the references and the table from the N files. Without
``--out``, one process writes a temporary file and reports from it.

Data: ../shared/data/multirefeval (100 rated contexts x 5 system responses, human ratings).
Each context is augmented by diveval's pipeline: three-field BM25 retrieval of k turns from the
chitchat-dataset corpus (``--corpus chitchat``), commonsense inferences from the LM stand-in
(SmolLM2-135M asked one question per relation oEffect / oReact / oWant; NOT COMET), every
candidate adapted with DELOREAN over SmolLM2 (the authors' defaults: 5 passes x 5 backward steps,
mix 0.92, step 0.0004), and one LM paraphrase of the original reference (PARAPHRASE-SINGLE).
Reference sets compared, on the first ``--items`` contexts (all their rated responses):
SINGLE; + retrieval (the original retrieved turns); + adaptation (the same turns after
DELOREAN); + commonsense (stand-in sentences, adapted); + paraphrase. Correlation: Spearman of
sentence BLEU-4 (multi-reference, method1) and BERTScore F1 (MiniLM-L6 layer 6, max over
references) with the human ratings. Adapted references are printed beside their originals for
the first ``--show`` contexts, with seconds per adapted reference on this machine.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def show(rec) -> None:
    """One context with its added references beside their originals."""
    print(f"context {rec['id']}: ...{' | '.join(rec['context'][-2:])!r}")
    print(f"  reference: {rec['reference']!r}")
    for a in rec["added_references"]:
        tag = a["source"] if a["source"] != "commonsense" else f"commonsense {a['relation']}"
        before = a.get("original", a.get("of", a["text"]))
        print(f"  [{tag}] {before!r}\n      -> {a['text']!r}")
    print(flush=True)


class TimedAdapter:
    """Counts the references an adapter rewrites and the seconds it takes; with ``log``, appends
    each context's count and seconds to that file (so a resumed run's timing adds up)."""

    def __init__(self, adapter, log: str | None = None):
        self.adapter, self.name = adapter, adapter.name
        self.seconds, self.count, self.log = 0.0, 0, log
        self.t0 = time.perf_counter()

    def adapt_many(self, references, target_context):
        t0 = time.perf_counter()
        out = self.adapter.adapt_many(references, target_context)
        dt = time.perf_counter() - t0
        self.seconds += dt
        self.count += len(references)
        if self.log:
            with open(self.log, "a", encoding="utf-8") as fh:
                fh.write(json.dumps({"refs": len(references), "seconds": round(dt, 3)}) + "\n")
        print(
            f"  {time.perf_counter() - self.t0:.0f} s: {len(references)} references adapted in "
            f"{dt:.1f} s; DELOREAN so far {self.seconds / max(self.count, 1):.2f} s per reference",
            flush=True,
        )
        return out


def augment_part(args, items: list[dict], path: str) -> None:
    """The contexts of this part augmented into ``path`` (resuming an interrupted run)."""
    from diveval.augment import BM25Retriever, load_causal_lm, load_chitchat
    from diveval.augment.delorean import DeloreanAdapter
    from diveval.augment.generative import LMKnowledge, LMParaphraser
    from diveval.augment.pipeline import augment_to_file

    n = len(items)
    items = items[(args.part - 1) * n // args.parts : args.part * n // args.parts]
    t0 = time.perf_counter()
    retriever = BM25Retriever(load_chitchat())
    print(f"index: chitchat, {retriever.n} turns, {time.perf_counter() - t0:.1f} s")
    lm = load_causal_lm("smollm2")
    delorean = DeloreanAdapter(
        lm, iterations=args.iterations, init=args.init, mix_rate=args.mix_rate
    )
    adapter = TimedAdapter(delorean, path + ".time")
    knowledge = LMKnowledge(lm)
    paraphraser = LMParaphraser(lm)
    print(f"adapter: {delorean.signature}")
    print(f"commonsense: {knowledge.signature}")
    print(f"paraphrase: {paraphraser.signature}")
    options = dict(
        retriever=retriever, k=args.k, knowledge=knowledge, adapter=adapter, paraphraser=paraphraser
    )
    run = {
        "k": args.k,
        "adapter": delorean.signature,
        "knowledge": knowledge.signature,
        "paraphraser": paraphraser.signature,
    }
    out = augment_to_file(items, path, run, log=print, **options)
    print(f"part {args.part} of {args.parts}: {len(out)} contexts in {path}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--items", type=int, default=100, help="rated contexts used (of 100)")
    # 5, not the pipeline's 10: every candidate costs ~13 s of DELOREAN on one CPU thread
    ap.add_argument("--k", type=int, default=5, help="retrieved references per context")
    ap.add_argument("--show", type=int, default=20, help="contexts printed with their references")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    ap.add_argument("--iterations", type=int, default=5, help="DELOREAN passes")
    ap.add_argument("--init", choices=["greedy", "teacher"], default="greedy")
    ap.add_argument("--mix-rate", type=float, default=0.92, help="DELOREAN forward weight")
    ap.add_argument("--out", help="augmented contexts go to OUT.IofN (resumable)")
    ap.add_argument("--parts", type=int, default=1, help="slices of the contexts (with --out)")
    ap.add_argument("--part", type=int, default=1, help="the slice this process augments")
    ap.add_argument("--report", action="store_true", help="table from the --out files only")
    args = ap.parse_args(argv)
    if (args.report or args.parts > 1) and not args.out:
        ap.error("--parts and --report need --out")
    if not args.out:  # one process: a file of its own, then the report from it
        args.out = os.path.join(tempfile.mkdtemp(prefix="scarce-"), "augmented.jsonl")
    if not 1 <= args.part <= args.parts:
        ap.error("--part must be in 1..--parts")
    if not (DATA / "multirefeval").exists():
        print("shared data not found; nothing to do")
        return 0
    import torch

    torch.set_num_threads(args.threads)
    from diveval.augment.corpus import read_multirefeval
    from diveval.meta.studies.correlate import correlate
    from diveval.reference.multiref import bertscore, bleu
    from diveval.report.tables import render_table

    test = read_multirefeval(str(DATA / "multirefeval" / "multireftest.json"))
    with open(DATA / "multirefeval" / "mturk_rating_processed_output.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    keys = list(dict.fromkeys(r["context_id"] for r in rows))[: args.items]
    rows = [r for r in rows if r["context_id"] in set(keys)]
    items = []
    for key in keys:
        d_id, t = key.split("_")
        d, t = test.by_id(d_id), int(t)
        items.append(
            {
                "id": key,
                "context": list(d.turns[: t + 1]),
                "reference": d.references[t][0],
                "future": list(d.turns[t + 2 : t + 4]),
            }
        )

    def part_file(i: int) -> str:
        return f"{args.out}.{i}of{args.parts}"

    if not args.report:
        augment_part(args, items, part_file(args.part))
        if args.parts > 1:  # the report waits for every part: --report
            return 0
    out, refs_done, seconds = [], 0, 0.0
    for i in range(1, args.parts + 1):
        with open(part_file(i), encoding="utf-8") as fh:
            out += [json.loads(line) for line in fh if line.strip()]
        with open(part_file(i) + ".time", encoding="utf-8") as fh:
            for line in fh:
                refs_done += json.loads(line)["refs"]
                seconds += json.loads(line)["seconds"]
    if len(out) != len(items):
        raise SystemExit(f"the part files hold {len(out)} of {len(items)} contexts")
    print(f"settings: {out[0]['augment_run']}")
    for rec in out[: args.show]:
        show(rec)
    print(
        f"DELOREAN: {refs_done} references in {seconds:.0f} s = "
        f"{seconds / max(refs_done, 1):.2f} s per reference (batched per context, "
        f"{args.threads} CPU thread(s) per process)"
    )

    by_key = {rec["id"]: rec for rec in out}

    def refs_of(key, retrieval=None, commonsense=None, paraphrase=False):
        """The original reference plus the retrieved and the commonsense candidates as they were
        found ("original") or after DELOREAN ("adapted"), plus the paraphrase when asked."""
        rec = by_key[key]
        refs = [rec["reference"]]
        for a in rec["added_references"]:
            form = {"retrieval": retrieval, "commonsense": commonsense}.get(a["source"])
            if form is not None:
                refs.append(a.get("original", a["text"]) if form == "original" else a["text"])
            elif a["source"] == "paraphrase" and paraphrase:
                refs.append(a["text"])
        return list(dict.fromkeys(refs))  # a text added twice is one reference

    hyps = [r["response"] for r in rows]
    human = [float(r["human_average_rating"]) for r in rows]
    full = dict(retrieval="adapted", commonsense="adapted")
    stages = [
        ("SINGLE (original reference)", {}),
        (f"+ retrieval (chitchat, k={args.k})", dict(retrieval="original")),
        ("+ adaptation (DELOREAN, SmolLM2)", dict(retrieval="adapted")),
        ("+ commonsense (LM stand-in, adapted)", full),
        ("+ paraphrase (LM, PARAPHRASE-SINGLE)", dict(full, paraphrase=True)),
        # the same records cut another way: what each part gives without the others
        (
            "  retrieval + commonsense, not adapted",
            dict(retrieval="original", commonsense="original"),
        ),
        ("  SINGLE + paraphrase only", dict(paraphrase=True)),
    ]
    # the authors' own SCARCE-SINGLE references (GPT-2 DELOREAN, COMET, DailyDialog retrieval),
    # scored the same way: what the full method reaches on these 100 contexts
    authors = {}
    with open(DATA / "scarce" / "scarce.singleref.json", encoding="utf-8") as fh:
        for rec in json.load(fh):
            refs = [t for t in rec["all_references"] if t.strip()]
            authors.setdefault(rec["context_id"], list(dict.fromkeys(refs)))
    stages.append(("  the authors' SCARCE-SINGLE references", "authors"))
    table = []
    for name, spec in stages:
        if spec == "authors":
            sets = [authors[r["context_id"]] for r in rows]
        else:
            sets = [refs_of(r["context_id"], **spec) for r in rows]
        b = bleu(hyps, sets, n=4).items
        f = bertscore(hyps, sets, reduction="max")["F"].items
        cells = []
        for scores in (b, f):
            c = correlate(scores, human, methods=("spearman",), n_resamples=1000, seed=0)
            c = c["spearman"]
            cells.append(f"{c.value:.3f} [{c.interval.low:.2f}, {c.interval.high:.2f}]")
        mean_refs = sum(len(s) for s in sets) / len(sets)
        table.append((name, f"{mean_refs:.1f}", *cells))
    print(
        render_table(
            f"Spearman with human ratings ({len(rows)} responses, {len(items)} contexts; 95% "
            "bootstrap intervals over responses)",
            ["references", "refs/context", "BLEU-4 ρ", "BERTScore F1 ρ"],
            table,
        )
    )
    changed = sum(
        1
        for rec in out
        for a in rec["added_references"]
        if a["source"] == "retrieval" and "original" in a
    )
    n_ret = sum(1 for rec in out for a in rec["added_references"] if a["source"] == "retrieval")
    print(f"DELOREAN changed {changed} of {n_ret} retrieved references")
    adapted = [a["text"] for rec in out for a in rec["added_references"] if "original" in a]
    per_context = [
        len({a["text"] for a in rec["added_references"] if a["source"] != "paraphrase"})
        for rec in out
    ]
    print(
        f"distinct adapted texts: {len(set(adapted))} of {len(adapted)}; distinct added "
        f"(non-paraphrase) references per context: mean {sum(per_context) / len(per_context):.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
