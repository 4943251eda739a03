"""`diveval length-bias`: does a metric fall as responses get longer (EAD paper, Figure 1)?"""

from __future__ import annotations

from ..constants import BERT_VOCAB_SIZE
from . import add_json_flag, add_metric_flag, print_json
from .options import DEFAULT_SEED, add_option_flags, metric_options

EPILOG = """examples:
  diveval length-bias                                   designated distribution, lengths 5..40
  diveval length-bias --plot length_bias.png            and the plot (needs diveval[plots])
  diveval length-bias --corpus responses.txt --lengths 5:30:5 --metric distinct-1 --metric ead
  diveval length-bias --corpus chitchat --plot chitchat.png     the chitchat-dataset package
  diveval length-bias --corpus dailydialog++/test.json --json   DailyDialog++ responses

--corpus takes a .txt file (one response per line), a .jsonl/.json file of {"response": ...},
{"responses": [...]} or DailyDialog++ records (their positive_responses), a .csv with a response
or resp_* columns, or `chitchat` (every message of the chitchat-dataset package).
"""


def add_parser(sub):
    p = sub.add_parser(
        "length-bias",
        help="metric against response length (EAD paper, Figure 1)",
        description="For each length L draw sets of responses of exactly L tokens "
        "(from the EAD paper's designated distribution and/or a corpus), "
        "score each set, and fit the slope of each metric against L.",
        epilog=EPILOG,
    )
    p.add_argument(
        "--corpus",
        default=None,
        help="a corpus of responses (see below); also runs the designated distribution unless --no-designated",
    )
    p.add_argument(
        "--no-designated",
        action="store_true",
        help="with --corpus: skip the designated distribution",
    )
    p.add_argument(
        "--lengths",
        default="5:40:5",
        help="START:END[:STEP] (inclusive) or L1,L2,...",
    )
    add_metric_flag(p, "a corpus metric (repeatable); default distinct-1 and ead")
    p.add_argument("--sets", type=int, default=10, help="sets drawn per length")
    p.add_argument("--responses", type=int, default=2000, help="responses per set")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed")
    p.add_argument("--v", type=int, default=BERT_VOCAB_SIZE, help="designated distribution's v")
    add_option_flags(p, "tokenizer", "lowercase", "vocab")  # --vocab: the corpus run's V
    p.add_argument(
        "--min-pool",
        type=int,
        default=100,
        help="corpus: skip lengths with fewer responses than this",
    )
    p.add_argument(
        "--plot", default=None, metavar="OUT.png", help="write a PNG plot (needs diveval[plots])"
    )
    add_json_flag(p)
    return p


def run(args) -> int:
    from ..errors import InputError
    from ..io.readers import read_response_corpus
    from ..meta.studies.length_bias import (
        DEFAULT_METRICS,
        length_bias,
        parse_lengths,
        plot_length_bias,
    )
    from ..progress import track
    from ..report.study_tables import length_bias_table

    lengths = parse_lengths(args.lengths)
    metrics = args.metrics or list(DEFAULT_METRICS)
    if args.no_designated and not args.corpus:
        raise InputError("--no-designated needs --corpus")
    common = dict(
        lengths=lengths,
        metrics=metrics,
        n_sets=args.sets,
        n_responses=args.responses,
        seed=args.seed,
        v=args.v,
    )
    runs = []
    if not args.no_designated:
        runs.append(
            length_bias(
                "designated",
                **common,
                progress=lambda it: track(it, "designated", total=len(lengths) * args.sets),
            )
        )
    if args.corpus:
        texts, name = read_response_corpus(args.corpus)
        runs.append(
            length_bias(
                texts,
                **common,
                **metric_options(args, "tokenizer", "lowercase", "vocab"),
                name=name,
                min_pool=args.min_pool,
                progress=lambda it: track(it, name, total=len(lengths) * args.sets),
            )
        )
    if args.plot:
        plot_length_bias(runs, args.plot)
    if args.json:
        out = {"runs": [r.to_dict() for r in runs]}
        if args.plot:
            out["plot"] = args.plot
        print_json(out)
        return 0
    print(length_bias_table(runs))
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0
