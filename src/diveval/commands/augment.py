"""`diveval augment INPUT --corpus ... --k 10 --out OUT.jsonl`: SCARCE reference augmentation."""

from __future__ import annotations

import json
import time

from . import add_json_flag, help_formatter

EPILOG = """examples:
  diveval augment items.jsonl --corpus chitchat --k 10 --out augmented.jsonl
  diveval augment singleref.json --corpus ddpp:dev.json --corpus ddpp:test.json --corpus chitchat \\
      --out scarce.jsonl
  diveval augment items.jsonl --knowledge comet.jsonl --out augmented.jsonl   commonsense only
  diveval score augmented.jsonl -m ref-bleu-4 -m ref-rouge-l     score against the new references

INPUT: JSON lines (or one JSON list) of items with "context" (a list of turns, or a string with
turns separated by ||||), the human "reference" (or "prevgt", or the first of "references"),
optionally "future" (turns after the reference) and "id". OUT: the items with "references"
extended and "added_references" saying where each added one came from (retrieval score and BM25
per field, or the commonsense relation), for a person to audit.

Corpora: chitchat (the chitchat-dataset package), ddpp:PATH (DailyDialog++ json lines),
multirefeval:PATH, or PATH / jsonl:PATH with {"id", "turns": [...]} per line.
Commonsense: no COMET model ships offline; --knowledge reads records
{"id" | "utterance", "relation", "text"} a user made (oEffect, oWant, oReact templates).
"""


def add_parser(sub):
    p = sub.add_parser(
        "augment",
        help="add references by retrieval (and commonsense) for audit",
        description="SCARCE (Gangal et al. 2021): add references to each item by three-field\n"
        "BM25 retrieval (past, response, future) over dialogue corpora and by\n"
        "templated commonsense inferences; write them with their sources.",
        epilog=EPILOG,
        formatter_class=help_formatter(),
    )
    p.add_argument("input", help="items: .jsonl, or a .json list")
    p.add_argument(
        "--corpus",
        action="append",
        default=[],
        metavar="SPEC",
        help="retrieval corpus (repeatable): chitchat, ddpp:PATH, multirefeval:PATH, PATH",
    )
    p.add_argument("--k", type=int, default=10, help="retrieved references per item (default 10)")
    p.add_argument("--out", required=True, help="output JSON lines (written atomically)")
    p.add_argument("--knowledge", default=None, help="precomputed commonsense records (JSON lines)")
    p.add_argument(
        "--relations",
        default="oEffect,oReact,oWant",
        help="commonsense relations kept (default oEffect,oReact,oWant)",
    )
    g = p.add_argument_group("retrieval")
    g.add_argument("--k1", type=float, default=0.5, help="BM25 k1 (default 0.5, the paper's)")
    g.add_argument("--b", type=float, default=0.7, help="BM25 b (default 0.7, the paper's)")
    g.add_argument("--window", type=int, default=2, help="turns of past and future (default 2)")
    g.add_argument(
        "--zero",
        choices=["drop", "floor"],
        default="drop",
        help="a field with BM25 0: drop the candidate (default) or use a floor score",
    )
    g.add_argument("--keep-stopwords", action="store_true", help="index English stopwords too")
    add_json_flag(p)
    return p


def run(args) -> int:
    from ..augment.commonsense import PrecomputedKnowledge
    from ..augment.corpus import concat, read_corpus
    from ..augment.pipeline import augment, read_items
    from ..augment.retrieval import BM25Retriever
    from ..errors import InputError
    from ..io.writers import write_jsonl
    from ..report.tables import render_table

    if args.k < 1:
        raise InputError("--k must be at least 1")
    items = read_items(args.input)
    retriever, build_s = None, 0.0
    if args.corpus:
        corpus = concat(read_corpus(spec) for spec in args.corpus)
        t0 = time.perf_counter()
        retriever = BM25Retriever(
            corpus,
            window=args.window,
            k1=args.k1,
            b=args.b,
            zero=args.zero,
            stopwords=None if args.keep_stopwords else "en",
        )
        build_s = time.perf_counter() - t0
    knowledge = None
    if args.knowledge:
        rels = [r.strip() for r in args.relations.split(",") if r.strip()]
        knowledge = PrecomputedKnowledge(args.knowledge, rels)
    t0 = time.perf_counter()
    out = augment(items, retriever, args.k, knowledge, progress=True)
    aug_s = time.perf_counter() - t0
    write_jsonl(args.out, out)
    added = [len(r["added_references"]) for r in out]
    summary = {
        "input": args.input,
        "out": args.out,
        "items": len(out),
        "added_mean": sum(added) / len(added),
        "items_without_additions": sum(1 for a in added if a == 0),
        "retrieval": None
        if retriever is None
        else {**retriever.signature, "index_seconds": round(build_s, 2)},
        "knowledge": None if knowledge is None else knowledge.name,
        "seconds": round(aug_s, 2),
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    rows = [
        ("items", len(out)),
        ("added references per item (mean)", f"{summary['added_mean']:.2f}"),
        ("items with none added", summary["items_without_additions"]),
        ("written to", args.out),
    ]
    if retriever is not None:
        sig = retriever.signature
        rows += [
            ("retrieval corpus", f"{sig['corpus']} ({sig['turns']} turns)"),
            (
                "BM25",
                f"k1={sig['k1']} b={sig['b']} window={sig['window']} zero={sig['zero']} "
                f"stopwords={sig['stop']}",
            ),
            ("index build / augmentation", f"{build_s:.1f} s / {aug_s:.1f} s"),
        ]
    print(render_table(f"diveval augment {args.input}", ["", "value"], rows))
    first = next((r for r in out if r["added_references"]), None)
    if first is not None:
        ex = [
            (
                a["source"],
                f"{a.get('score', 0):.2f}" if a["source"] == "retrieval" else a["relation"],
                a["text"],
            )
            for a in first["added_references"][:5]
        ]
        print(
            render_table(
                "first item's added references", ["source", "score / relation", "text"], ex
            )
        )
    return 0
