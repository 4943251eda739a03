"""SCARCE retrieval built here: how much do retrieved references raise the correlation of
BLEU-4 and ROUGE-L with human ratings on the 500 rated responses (100 contexts x 5 systems) of
../shared/data/multirefeval?

    python benchmarks/scarce_retrieval_gain.py [--k 10] [--examples 3]

Retrieval corpus: DailyDialog++ dev + test (../shared/data/dailydialog-plusplus) and the
chitchat-dataset package (the paper retrieved from the full DailyDialog training set, which is
not available here). Query of a rated item (context_id "D_T"): past = turns T-1..T of test
dialogue D, response = the original reference, future = the two turns after the reference.
Excluded: candidates from any corpus dialogue sharing a turn of 5+ words with test dialogue D
(DailyDialog++ contexts are cut from DailyDialog, its test split included), exact duplicates of
the query's past. Reference sets compared: SINGLE (the original reference), SINGLE + retrieved,
MULTI (the 4 human references of Gupta et al.), MULTI + retrieved.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--k", type=int, nargs="+", default=[5, 10, 20])
    ap.add_argument("--examples", type=int, default=3)
    ap.add_argument("--no-chitchat", action="store_true")
    args = ap.parse_args(argv)
    if not (DATA / "multirefeval").exists():
        print("shared data not found; nothing to do")
        return 0
    from diveval.augment import (
        BM25Retriever,
        Query,
        load_chitchat,
        read_dailydialog_plusplus,
    )
    from diveval.augment.corpus import concat, read_multirefeval
    from diveval.meta.studies.correlate import correlate
    from diveval.reference.multiref import bleu, reference_self_bleu, rouge_l
    from diveval.report.tables import render_table

    test = read_multirefeval(str(DATA / "multirefeval" / "multireftest.json"))
    rows = list(
        csv.DictReader(
            open(DATA / "multirefeval" / "mturk_rating_processed_output.csv", encoding="utf-8")
        )
    )
    corpora = [
        read_dailydialog_plusplus(str(DATA / "dailydialog-plusplus" / f"{s}.json"))
        for s in ("dev", "test")
    ]
    if not args.no_chitchat:
        corpora.append(load_chitchat())
    corpus = concat(corpora)
    t0 = time.perf_counter()
    retriever = BM25Retriever(corpus)
    build = time.perf_counter() - t0
    print(
        f"index: {corpus.name}, {retriever.n} candidate turns, built in {build:.1f} s "
        f"(k1={retriever.k1}, b={retriever.b}, zero={retriever.zero}, stopwords={retriever.stopwords})"
    )

    queries, single, multi = {}, [], []
    for r in rows:
        d_id, t = r["context_id"].split("_")
        d = test.by_id(d_id)
        t = int(t)
        ref = d.references[t][0]
        if r["context_id"] not in queries:
            past = " ".join(d.turns[max(0, t - 1) : t + 1])
            future = " ".join(d.turns[t + 2 : t + 4])
            queries[r["context_id"]] = Query(past, ref, future, own_turns=d.turns)
        single.append([ref])
        multi.append([x for x in r["all_references"].split("\t") if x])
    hyps = [r["response"] for r in rows]
    human = [float(r["human_average_rating"]) for r in rows]
    keys = list(queries)
    t0 = time.perf_counter()
    kmax = max(args.k)
    found = dict(zip(keys, retriever.search_many([queries[k] for k in keys], kmax)))
    qs = len(keys) / (time.perf_counter() - t0)
    n_found = [len(v) for v in found.values()]
    print(
        f"{len(keys)} rated contexts, {len(rows)} rated responses; retrieved {min(n_found)}..{max(n_found)} "
        f"references per context (k={kmax}), {qs:.0f} queries/s; sources: "
        + ", ".join(
            f"{s}: {sum(x.source == s for v in found.values() for x in v)}" for s in corpus.sources
        )
    )

    def corr(refsets):
        out = {}
        for name, fn in (
            ("BLEU-4", lambda: bleu(hyps, refsets, n=4).items),
            ("BLEU-4 coco", lambda: bleu(hyps, refsets, n=4, smoothing="coco").items),
            ("ROUGE-L", lambda: rouge_l(hyps, refsets).items),
        ):
            c = correlate(fn(), human, methods=("spearman", "kendall"), n_resamples=None)
            out[name] = (c["spearman"].value, c["kendall"].value)
        return out

    # control: the same number of turns drawn at random from the same corpus (seeded)
    import numpy as np

    rng = np.random.default_rng(0)
    all_turns = [(d, t) for d in corpus for t in range(d.respond_from, len(d.turns))]
    random_refs = {
        key: [
            all_turns[i][0].turns[all_turns[i][1]]
            for i in rng.choice(len(all_turns), kmax, replace=False)
        ]
        for key in keys
    }

    metrics = ("BLEU-4", "BLEU-4 coco", "ROUGE-L")
    table = []
    base = {"SINGLE": single, "MULTI": multi}
    results = {}
    for bname, bsets in base.items():
        results[bname] = corr(bsets)
        table.append((bname, *(f"{v:.3f}" for m in metrics for v in results[bname][m]), "-"))
        variants = [
            (f"{bname} + retrieved (k={k})", k, lambda key, k: [x.text for x in found[key][:k]])
            for k in args.k
        ]
        variants.append(
            (
                f"{bname} + random turns (k={args.k[len(args.k) // 2]}, control)",
                args.k[len(args.k) // 2],
                lambda key, k: random_refs[key][:k],
            )
        )
        for name, k, extra in variants:
            sets = [b + extra(r["context_id"], k) for b, r in zip(bsets, rows)]
            results[name] = corr(sets)
            sb = reference_self_bleu(sets[::5]).value
            table.append(
                (name, *(f"{v:.3f}" for m in metrics for v in results[name][m]), f"{sb:.3f}")
            )
    print(
        render_table(
            "correlation with human ratings (500 responses); BLEU-4 coco = the authors' nlg-eval convention",
            [
                "references",
                "BLEU-4 ρ",
                "BLEU-4 τ",
                "BLEU-4 coco ρ",
                "BLEU-4 coco τ",
                "ROUGE-L ρ",
                "ROUGE-L τ",
                "ref Self-BLEU-4",
            ],
            table,
        )
    )
    for k in args.k:
        g = {
            m: results[f"SINGLE + retrieved (k={k})"][m][0] - results["SINGLE"][m][0]
            for m in metrics
        }
        print(
            f"gain over SINGLE with k={k}: BLEU-4 Spearman {g['BLEU-4']:+.3f} (coco {g['BLEU-4 coco']:+.3f}), "
            f"ROUGE-L Spearman {g['ROUGE-L']:+.3f}  (paper, retrieval from the full DailyDialog train "
            f"corpus, coco BLEU-4: 0.09 -> 0.29)"
        )
    print()
    for key in keys[: args.examples]:
        q = queries[key]
        print(f"context {key}: past: {q.past!r}")
        print(f"  reference: {q.response!r}")
        for x in found[key][:5]:
            print(f"  + [{x.source} {x.dialogue_id}#{x.turn} Sim={x.score:.2f}] {x.text}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
