"""`diveval rarefy INPUT`: rarefaction and extrapolation curves of a file of response sets."""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..io.grouping import groups_by_field
from . import add_json_flag, add_online_flag, print_json
from .options import MODEL_FLAGS, add_input_flags, add_option_flags, metric_options

#: the options rarefy reads itself (the others configure a measure, see
#: ``meta.estimation.rarefaction_curves``)
OWN_OPTIONS = ("at_k", "rarefy_resamples", "rarefy_seed")

EPILOG = """examples:
  diveval rarefy sets.jsonl --judge bleu --at-k 50     distinct answers at 50 responses per prompt
  diveval rarefy sets.jsonl --by system --measure classes --measure 2-grams --json
  diveval rarefy sets.jsonl --by system --judge embedding --report rarefaction.html

Measures: classes (equivalence classes under --judge, Hill numbers of order 0, 1, 2) and N-grams
(distinct n-grams, counted once per response). Below a set's size the curve is the exact
expectation over subsets, above it Chao et al. (2014)'s extrapolation; intervals are their
bootstrap (copia's). Without --at-k the value is the asymptotic estimate (Chao1, estimated Hill).
Every number printed lies in its feasible range (1 <= D_q(m) <= m, D_0 >= D_1 >= D_2): one that the
estimators put outside is clipped to it, with a warning naming the rule; so are extrapolation past
twice a set's size, estimates from sets without doubletons, and an undefined q = 2 asymptote.
"""


def _model_flags() -> list[str]:
    """The model flags a measure takes (the judge's, for classes), and the process-wide ones
    (threads, applied by ``diveval.cli``): never a flag that would configure nothing here."""
    from ..meta.estimation.rarefaction_options import JUDGE_OPTIONS, NGRAM_OPTIONS
    from ..options import OPTION

    return [f for f in MODEL_FLAGS if f in (*JUDGE_OPTIONS, *NGRAM_OPTIONS) or OPTION[f].run]


def add_parser(sub):
    p = sub.add_parser(
        "rarefy",
        help="rarefaction / extrapolation: distinct answers at k responses",
        description="How many distinct answers (equivalence classes) or n-grams each system "
        "would show at k responses per prompt, below or above the k it was sampled with "
        "(Chao et al. 2014), with bootstrap intervals and a curve per system.",
        epilog=EPILOG,
    )
    p.add_argument("input", help="a .jsonl, .json, .csv or .parquet file of response sets")
    add_input_flags(p, "the field holding the responses")
    p.add_argument(
        "--measure",
        action="append",
        dest="measures",
        metavar="NAME",
        help="classes (default) or N-grams, e.g. 2-grams (repeatable)",
    )
    p.add_argument(
        "--by", metavar="COLUMN", default=None, help="one curve per value of this field (system)"
    )
    p.add_argument("--report", metavar="FILE.html", default=None, help="also write the HTML report")
    add_option_flags(p, *OWN_OPTIONS, "tokenizer", "lowercase")
    add_option_flags(p, *_model_flags())
    add_online_flag(p)
    add_json_flag(p)
    return p


def run(args) -> int:

    from ..context import RunContext
    from ..io.readers import locate, read_input
    from ..meta.estimation.rarefaction_curves import measure_options, parse_measure, rarefy
    from ..options import OPTION

    if args.report and not args.report.lower().endswith((".html", ".htm")):
        raise InputError("the report is an HTML file: name it FILE.html", args.report)
    measures = args.measures or ["classes"]
    for m in measures:
        parse_measure(m)  # a bad name before the input is read
    options = metric_options(args)
    at_k = options.pop("at_k", None)
    own = {k: options.pop(k) for k in OWN_OPTIONS if k in options}
    # process-wide options (threads) are applied by diveval.cli before the command runs
    options = {k: v for k, v in options.items() if not OPTION[k].run and k != "progress"}
    taken = {o for m in measures for o in measure_options(m)}
    unused = sorted(k for k in options if k not in taken)
    if unused:  # given, but no measure asked for reads it: refused rather than dropped
        flags = ", ".join("--" + k.replace("_", "-") for k in unused)
        raise InputError(f"{flags} configures no measure asked for ({', '.join(measures)})")
    data = read_input(args.input, args.format, args.field)
    if data.setting != "sets":
        raise InputError("rarefaction needs response sets (records with responses)", data.path)
    groups = groups_by_field(data, args.by)
    largest = max(len(s) for s in data.items)
    from ..meta.estimation.rarefaction import default_sizes

    sizes = default_sizes(largest, at_k)  # one grid for every system: their curves compare
    # the model settings the CLI resolved (--device, --precision, ...) load the judge's models
    context = RunContext(progress=True, models=args.models)
    results: dict[Any, list] = {}
    for name, index in groups.items():
        part = [data.items[i] for i in index]
        try:
            results[name] = [
                r
                for m in measures
                for r in rarefy(
                    part,
                    m,
                    at_k=at_k,
                    sizes=sizes,
                    context=context,
                    **own,
                    **{k: v for k, v in options.items() if k in measure_options(m)},
                )
            ]
        except InputError as exc:
            raise locate(exc, data, index) from None
    bodies = {
        ("all" if g is None else g): {
            "items": len(groups[g]),
            "scores": {},
            "rarefaction": [r.to_dict() for r in rs],
        }
        for g, rs in results.items()
    }
    run: dict[str, Any] = {"input": args.input, "setting": "sets", "items": len(data.items)}
    if args.by:
        run.update(by=args.by, groups=bodies)
    else:
        run.update(scores={}, rarefaction=bodies["all"]["rarefaction"])
    _print_warnings(results)
    if args.json:
        print_json(run)
    else:
        from ..report.rarefaction_tables import rarefaction_table

        print(rarefaction_table(results, at_k))
    if args.report:
        _write_report(args, data, run)
    return 0


def _print_warnings(results: dict) -> None:
    """Each result's warnings on stderr, naming the system and the measure."""
    import sys

    for group, rs in results.items():
        for r in rs:
            for w in r.warnings:
                who = r.name if group is None else f"{group}: {r.name}"
                print(f"diveval: warning: {who}: {w}", file=sys.stderr)


def _write_report(args, data, run: dict) -> None:
    import os
    import sys

    from ..meta.studies.report_figures import build_report, write_report

    text_key = "responses"
    records = [
        {**(data.records[i] if data.records else {}), text_key: item, "_line": data.line_of(i)}
        for i, item in enumerate(data.items)
    ]
    report = build_report(
        [],
        runs=[run],
        records=records,
        sources=[args.input] if os.path.isfile(args.input) else [],
        command="diveval " + " ".join(sys.argv[1:]) if sys.argv[1:] else "",
    )
    size = write_report(report, args.report)
    print(f"diveval: wrote {args.report} ({size / 1e6:.2f} MB)", file=sys.stderr)
