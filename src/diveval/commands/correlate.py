"""`diveval correlate FILE --human COLUMN`: every metric column against a human column."""

from __future__ import annotations

from . import add_json_flag, add_metric_flag, print_json
from .options import add_bootstrap_options, bootstrap_arguments

EPILOG = """examples:
  diveval correlate systems.csv --human human --by dataset --metric distinct --metric ead
  diveval correlate ratings.jsonl --human rating --json
  diveval correlate scores.csv --human human --resamples 0        (no bootstrap intervals)

Input: a CSV (header row) or JSONL file (one object per line), one row per system or item.
Every numeric column except --human and --by is a metric unless --metric names some; columns
that start with _ (bookkeeping, e.g. _n) or name an identifier (id, context_id, idx, index,
qid, contextId) never are. Numbers: JSON numbers and plain decimals ("4.8", "-1e-3"; not "73_4").
"""


def add_parser(sub):
    p = sub.add_parser(
        "correlate",
        help="correlate metric columns with a human column",
        description="Pearson, Spearman and Kendall correlations (scipy, two-sided "
        "p-values) of metric columns with a human-score column, with "
        "seeded percentile bootstrap intervals.",
        epilog=EPILOG,
    )
    p.add_argument("input", help="a .csv/.tsv or .jsonl file")
    p.add_argument("--human", required=True, metavar="COLUMN", help="the human-score column")
    add_metric_flag(
        p, "a metric column (repeatable); default: every other numeric column", metavar="COLUMN"
    )
    p.add_argument(
        "--by",
        metavar="COLUMN",
        default=None,
        help="split rows by this column (e.g. the data set) and correlate each group",
    )
    p.add_argument(
        "--method",
        action="append",
        dest="methods",
        choices=["pearson", "spearman", "kendall"],
        help="default: all three",
    )
    add_bootstrap_options(p, fraction=1.0)
    add_json_flag(p)
    return p


def run(args) -> int:
    from ..errors import InputError
    from ..io.readers import read_records
    from ..meta.studies.correlate import METHODS, correlate_columns, correlations_to_dict
    from ..progress import track
    from ..report.study_tables import correlation_table

    rows = read_records(args.input)
    methods = args.methods or list(METHODS)
    try:
        result = correlate_columns(
            rows,
            args.human,
            args.metrics,
            methods,
            group_by=args.by,
            **bootstrap_arguments(args),
            progress=lambda jobs: track(jobs, "correlating", total=len(jobs)),
        )
    except InputError as exc:
        raise InputError(exc.problem, args.input) from None
    if args.json:
        print_json(
            {
                "input": args.input,
                "human": args.human,
                "by": args.by,
                "rows": len(rows),
                "correlations": correlations_to_dict(result),
            }
        )
        return 0
    print(correlation_table(result, args.input, args.human, methods))
    return 0
