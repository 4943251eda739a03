"""`diveval thresholds INPUT`: the percentile of a metric over human response sets."""

from __future__ import annotations

from . import add_json_flag, add_metric_flag, print_json
from .options import MODEL_FLAGS, add_model_options, add_option_flags, metric_options

EPILOG = """examples:
  diveval thresholds ../shared/data/dailydialog-plusplus/dev.json
        averaged distinct-n (Tevet tokenizer), 90th percentile over the 5 positive responses
  diveval thresholds sets.jsonl --metric sent-bert --percentile 90 --json
"""


def add_parser(sub):
    p = sub.add_parser(
        "thresholds",
        help="percentile of a diversity metric over human response sets",
        description="The threshold Diversity Threshold Generation aims at: the given "
        "percentile of a sets metric over human response sets (Stasaski & "
        "Hearst 2022 use the 90th percentile over DailyDialog++'s five "
        "positive responses per context).",
        epilog=EPILOG,
    )
    p.add_argument(
        "input", help='JSON lines: DailyDialog++ records or {"responses": [...]} per line'
    )
    add_metric_flag(
        p,
        "a preset (avg-distinct, sent-bert, nli) or a sets metric (repeatable; "
        "default: avg-distinct)",
    )
    p.add_argument(
        "--percentile",
        "-p",
        type=float,
        default=90.0,
        help="percentile of the set scores taken as the threshold",
    )
    p.add_argument(
        "--field",
        default=None,
        help='which list holds a set (default: "responses", or "positive_responses")',
    )
    # unset, each preset takes the tokenizer of its paper (avg-distinct: Tevet's)
    add_option_flags(p, "tokenizer", "lowercase")
    add_model_options(p)
    add_json_flag(p)
    return p


def run(args) -> int:

    from ..generation.scorers import PRESETS
    from ..generation.thresholds import percentile_threshold
    from ..io.contexts import read_response_sets
    from ..report.tables import counted, render_table

    sets = read_response_sets(args.input, args.field)
    options = metric_options(args, "tokenizer", "lowercase", *MODEL_FLAGS)
    results = [
        percentile_threshold(sets, m, args.percentile, **options)
        for m in (args.metrics or ["avg-distinct"])
    ]
    if args.json:
        print_json({"input": args.input, "thresholds": [r.to_dict() for r in results]})
        return 0
    paper = {p.metric: p.threshold for p in PRESETS.values()}
    rows = [
        (
            r.metric,
            f"{r.value:.4f}",
            f"{r.value:.2f}",
            f"{r.mean:.4f}",
            f"{paper[r.metric]:g}" if r.metric in paper else "-",
            r.signature,
        )
        for r in results
    ]
    print(
        render_table(
            f"{args.input}: {counted(len(sets), 'set')}, {args.percentile:g}th percentile",
            ["metric", "threshold", "rounded", "mean", "paper", "signature"],
            rows,
        )
    )
    return 0
