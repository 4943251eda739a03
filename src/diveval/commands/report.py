"""`diveval report INPUT... -o report.html`: one self-contained HTML page of a study.

The inputs are what the other commands wrote; ``meta.studies.report_figures`` builds the page
from them.
"""

from __future__ import annotations

from ..errors import InputError

EPILOG = """examples:
  diveval score sets.jsonl --by system --json --items --summary systems.csv > run.json
  diveval report run.json sets.jsonl systems.csv -o report.html
  diveval report run.json items.csv human.csv human.sets.csv human.raters.csv lb.json -o r.html
  diveval score sets.jsonl --by system --report report.html       (the report of this run)

INPUT: what these wrote (one or several files, recognised by their content): score --json (with
--items for per-set values, --by for systems), score --items FILE, score --summary FILE,
score --level --json, rarefy --json (a rarefaction curve per system), meta tevet --json,
correlate --json, length-bias --json, compare --json, rate export (OUTPUT, .sets.csv, .raters.csv), and the scored input itself (records with "responses") for the
sets' texts. The page needs nothing but itself: it opens from disk or from an e-mail attachment.
"""


def add_parser(sub):
    p = sub.add_parser(
        "report",
        help="a self-contained HTML report of a run",
        description="Write one HTML file with the systems side by side, the agreement between "
        "metrics, distinct@k and length-bias curves, human agreement, the most and least diverse "
        "sets, and the provenance of every number.",
        epilog=EPILOG,
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="files other diveval commands wrote")
    p.add_argument("-o", "--output", required=True, metavar="FILE.html", help="the page to write")
    add_report_options(p)
    return p


def add_report_options(p) -> None:
    p.add_argument(
        "--sets-metric",
        default=None,
        metavar="NAME",
        help="rank the sets by this metric (default: the first with per-set values)",
    )
    p.add_argument(
        "--show", type=int, default=5, metavar="N", help="sets shown at each end per system"
    )
    p.add_argument(
        "--human-column",
        default="human",
        metavar="COLUMN",
        help="the human-score column of the inputs",
    )
    p.add_argument("--title", default=None, help="the page's title")


def run(args) -> int:
    import sys

    from ..meta.studies.report_figures import build_report, write_report

    if not args.output.lower().endswith((".html", ".htm")):
        raise InputError("the report is an HTML file: name it FILE.html", args.output)
    report = build_report(
        args.inputs,
        human=args.human_column,
        sets_metric=args.sets_metric,
        shown=args.show,
        title=args.title,
        command="diveval report " + " ".join(args.inputs) + f" -o {args.output}",
    )
    size = write_report(report, args.output)
    print(f"wrote {args.output} ({size / 1e6:.2f} MB)", file=sys.stderr)
    return 0
