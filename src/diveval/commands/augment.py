"""`diveval augment INPUT --corpus ... --k 10 --out OUT.jsonl`: SCARCE reference augmentation."""

from __future__ import annotations

import json
import time

from ..io import json_out
from . import add_json_flag, add_online_flag, add_valued_flags, same_names
from .options import add_option_flags

EPILOG = """examples:
  diveval augment items.jsonl --corpus chitchat --k 10 --out augmented.jsonl
  diveval augment singleref.json --corpus ddpp:dev.json --corpus ddpp:test.json --corpus chitchat \\
      --out scarce.jsonl
  diveval augment items.jsonl --knowledge comet.jsonl --out augmented.jsonl   commonsense only
  diveval score augmented.jsonl -m ref-bleu-4 -m ref-rouge-l     score against the new references
  diveval augment items.jsonl --corpus chitchat --commonsense lm --adapter delorean \\
      --paraphrase lm --out scarce.jsonl      the full pipeline (offline: SmolLM2 stand-ins)

INPUT: JSON lines (or one JSON list) of items with "context" (a list of turns, or a string with
turns separated by ||||), the human "reference" (or "prevgt", or the first of "references"),
optionally "future" (turns after the reference) and "id". OUT: the items with "references"
extended and "added_references" saying where each added one came from (retrieval score and BM25
per field, or the commonsense relation), for a person to audit.

Corpora: chitchat (the chitchat-dataset package), ddpp:PATH (DailyDialog++ json lines),
multirefeval:PATH, or PATH / jsonl:PATH with {"id", "turns": [...]} per line.
Commonsense: --commonsense comet:PATH runs a COMET seq2seq checkpoint you have ("{head}
{relation} [GEN]", 5 beams per relation); --commonsense lm[:NAME] is an offline STAND-IN (a causal
LM, SmolLM2 by default, completing one prompt per relation; labelled lm-standin, not COMET);
--knowledge reads records {"id" | "utterance", "relation", "text"} a user made.
Adaptation: --adapter delorean rewrites every added reference to the item's context with DELOREAN
decoding (Qin et al. 2020) over --lm (SmolLM2 offline; gpt2-medium as the paper); "original" keeps
the text before. --paraphrase lm[:NAME] adds a paraphrase of each human reference (the paper's
PARAPHRASE baseline). OUT is written item by item: an interrupted run started again with the
same options resumes where it stopped.
"""

#: DELOREAN's numeric settings (flag, default, help): SCARCE used the authors' defaults.
DELOREAN_FLAGS = (
    ("--iterations", 5, "backward/forward passes"),
    ("--backward-iters", 5, "steps per backward pass"),
    ("--mix-rate", 0.92, "weight of the LM's forward logits"),
    ("--stepsize", 0.0004, "backward step"),
)
#: BM25 retrieval's settings (flag, default, help): the SCARCE paper's.
BM25_FLAGS = (
    ("--k1", 0.5, "BM25 k1 (default 0.5, the paper's)"),
    ("--b", 0.7, "BM25 b (default 0.7, the paper's)"),
    ("--window", 2, "turns of past and future (default 2)"),
)


def add_parser(sub):
    p = sub.add_parser(
        "augment",
        help="add references by retrieval (and commonsense) for audit",
        description="SCARCE (Gangal et al. 2021): add references to each item by three-field\n"
        "BM25 retrieval (past, response, future) over dialogue corpora and by\n"
        "templated commonsense inferences; write them with their sources.",
        epilog=EPILOG,
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
    p.add_argument(
        "--commonsense",
        default=None,
        metavar="SPEC",
        help="generated commonsense: comet:PATH (a COMET checkpoint) or lm[:NAME] (stand-in)",
    )
    p.add_argument(
        "--paraphrase",
        default=None,
        metavar="lm[:NAME]",
        help="add an LM paraphrase of each human reference (PARAPHRASE baseline)",
    )
    a = p.add_argument_group("adaptation (DELOREAN)")
    a.add_argument(
        "--adapter",
        choices=["identity", "delorean"],
        default="identity",
        help="rewrite added references to the target context (default identity: keep them)",
    )
    a.add_argument(
        "--lm",
        default=None,
        metavar="NAME_OR_PATH",
        help="causal LM of DELOREAN (default smollm2, offline; the paper used gpt2-medium)",
    )
    add_valued_flags(a, *DELOREAN_FLAGS)
    a.add_argument(
        "--init",
        choices=["greedy", "teacher"],
        default="greedy",
        help="start: greedy decoding on the context (default, SCARCE) or the LM forced on the "
        "old reference (the DELOREAN authors' code)",
    )
    a.add_argument("--seed", type=int, default=0, help="random seed")
    g = p.add_argument_group("retrieval")
    add_valued_flags(g, *BM25_FLAGS)
    g.add_argument(
        "--zero",
        choices=["drop", "floor"],
        default="drop",
        help="a field with BM25 0: drop the candidate (default) or use a floor score",
    )
    g.add_argument("--keep-stopwords", action="store_true", help="index English stopwords too")
    add_online_flag(p)
    add_option_flags(p, "threads")
    add_json_flag(p)
    return p


def run(args) -> int:
    import sys

    # here, not at the top: the parser of every command is built at each start, and these
    # (numpy, bm25s, the models) load only when this command runs
    from ..augment.commonsense import PrecomputedKnowledge
    from ..augment.pipeline import augment_to_file, read_items
    from ..errors import InputError
    from ..report.run_summaries import augmentation_summary

    if args.k < 1:
        raise InputError("--k must be at least 1")
    if args.knowledge and args.commonsense:
        raise InputError("give --knowledge or --commonsense, not both")
    items = read_items(args.input)
    # --threads is applied by the CLI before any model loads (diveval.models.threads)
    retriever, build_s = _retriever(args)
    rels = [r.strip() for r in args.relations.split(",") if r.strip()]
    knowledge, adapter, paraphraser = _generative_parts(args, rels)
    if args.knowledge:
        knowledge = PrecomputedKnowledge(args.knowledge, rels)
    run_settings = {
        "k": args.k,
        "corpus": list(args.corpus),
        "retrieval": None if retriever is None else retriever.signature,
        "knowledge": None if knowledge is None else getattr(knowledge, "signature", knowledge.name),
        "relations": rels,
        "adapter": getattr(adapter, "signature", "identity"),
        "paraphrase": None if paraphraser is None else paraphraser.signature,
    }
    t0 = time.perf_counter()
    out = augment_to_file(
        items,
        args.out,
        json.loads(json.dumps(run_settings)),  # as it reads back from the file
        log=lambda line: print(f"diveval: {line}", file=sys.stderr),
        retriever=retriever,
        k=args.k,
        knowledge=knowledge,
        adapter=adapter,
        progress=True,
        paraphraser=paraphraser,
    )
    aug_s = time.perf_counter() - t0
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
        "adapter": run_settings["adapter"],
        "paraphrase": run_settings["paraphrase"],
        "seconds": round(aug_s, 2),
    }
    if args.json:
        print(json_out.dumps(summary, indent=2))
    else:
        print(augmentation_summary(summary, run_settings, out, (build_s, aug_s)))
    return 0


def _retriever(args):
    """(the BM25 retriever over the --corpus corpora, seconds to build it); (None, 0) without."""
    from ..augment.corpus import concat, read_corpus
    from ..augment.retrieval import BM25Retriever

    if not args.corpus:
        return None, 0.0
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
    return retriever, time.perf_counter() - t0


def _generative_parts(args, relations):
    """(knowledge source, adapter, paraphraser) the options ask for; models load once, shared."""
    from ..augment.generative import (
        CometKnowledge,
        LMKnowledge,
        LMParaphraser,
        parse_lm_spec,
    )
    from ..errors import InputError
    from ..models.lm_backends import load_causal_lm

    loaded: dict = {}

    def lm(name):
        key = name or "smollm2"
        if key not in loaded:
            loaded[key] = load_causal_lm(name)
        return loaded[key]

    knowledge = adapter = paraphraser = None
    spec = args.commonsense
    if spec:
        if spec.startswith("comet:") and spec[6:]:
            knowledge = CometKnowledge(spec[6:], relations)
        elif spec == "lm" or spec.startswith("lm:"):
            knowledge = LMKnowledge(lm(parse_lm_spec(spec)), relations)
        else:
            raise InputError(f"--commonsense: expected comet:PATH or lm[:NAME], got {spec!r}")
    if args.adapter == "delorean":
        from ..augment.delorean import DeloreanAdapter

        adapter = DeloreanAdapter(
            lm(args.lm),
            **same_names(
                args, "iterations", "backward_iters", "mix_rate", "stepsize", "seed", "init"
            ),
        )
    elif args.lm:
        raise InputError("--lm is the LM of --adapter delorean; add --adapter delorean")
    if args.paraphrase:
        paraphraser = LMParaphraser(lm(parse_lm_spec(args.paraphrase)))
    return knowledge, adapter, paraphraser
