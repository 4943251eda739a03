"""`diveval meta tevet FILE.csv --metric NAME ...`: Tevet & Berant's tests of diversity metrics."""

from __future__ import annotations

import sys
from typing import Callable, TypeVar

from ..errors import InputError
from ..meta.defaults import TEVET_TOKENIZER
from ..progress import track
from . import add_json_flag, add_metric_flag, print_json
from .options import (
    MODEL_FLAGS,
    add_bootstrap_options,
    add_model_options,
    add_option_flags,
    bootstrap_arguments,
    metric_options,
)

T = TypeVar("T")

EPILOG = """examples:
  diveval meta tevet con_test_200_with_hds_resp_gen.csv --metric avg-distinct --metric cos-diversity
  diveval meta tevet dec_test_200_with_hds_resp_gen.csv -m avg-distinct -m abs_hds_mean --json
  diveval meta tevet FILE.csv -m AveragedDistinctNgrams    (the file's own metric_* column)

A metric is a registered name (computed on each row's responses; `diveval metrics` lists them), or
the name of a metric_* column of the file (with or without the prefix). `abs_hds_mean` (or `human`)
is Tevet & Berant's absHDS line: the human score taken as a metric.
"""


def add_parser(sub):
    p = sub.add_parser(
        "meta",
        help="meta-evaluation of metrics (Tevet & Berant tests)",
        description="Meta-evaluation: does a diversity metric track diversity?",
        epilog=EPILOG,
    )
    msub = p.add_subparsers(dest="meta_command", metavar="TEST", parser_class=type(p))
    t = msub.add_parser(
        "tevet",
        help="Tevet & Berant (2021) tests on their CSV format",
        description="Spearman/Pearson of each metric with label_value (the "
        "diversity parameter) and metric_abs_hds_mean (humans), the "
        "best threshold classifier's accuracy for a binary parameter, "
        "with bootstrap intervals (default: the NLI Diversity paper's "
        "1,000 resamples of half the rows).",
        epilog=EPILOG,
    )
    _add_tevet_file_flags(
        t,
        "a registered metric or a metric_* column (repeatable)",
        metric_required=True,
        values="per-row",
        fraction=0.5,  # the NLI Diversity paper's resamples of half the rows
    )
    t.add_argument(
        "--decimals",
        type=int,
        default=None,
        help="round computed per-row values to this many decimals first (the authors' "
        "columns have 3)",
    )
    t.set_defaults(meta_run=run_tevet)
    add_agreement_parser(msub)
    p.set_defaults(meta_parser=p)
    return p


AGREEMENT_EPILOG = """examples:
  diveval meta agreement con_test_200_with_hds_resp_gen.csv
  diveval meta agreement dec_test_200_with_hds_*.csv -m distinct-2 -m self-bleu -m SentBert --json

Without -m: every registered metric that applies to response sets, and the file's own metric_*
columns (the authors' metrics and, where collected, the human score abs_hds_mean). A metric that
fails on a file keeps its row, which says why. rank: 1 + the number of metrics whose rho is higher
by a paired bootstrap over sets (the interval of the difference above 0); equal ranks cannot be
told apart on this file.
"""


def _add_tevet_file_flags(
    p, metric_help: str, *, metric_required: bool, values: str, fraction: float
) -> None:
    """The flags both tests on Tevet & Berant's files take: the files, -m, their tokenizer, the
    bootstrap (``fraction`` of the rows in each resample), the model options and --json."""
    p.add_argument(
        "inputs", nargs="+", metavar="FILE.csv", help="one or more Tevet & Berant CSV files"
    )
    add_metric_flag(p, metric_help, required=metric_required)
    # Tevet & Berant's own tokenizer: their per-row values are reproduced with it
    add_option_flags(p, "tokenizer", "lowercase", defaults={"tokenizer": TEVET_TOKENIZER})
    p.add_argument(
        "--values", action="store_true", help=f"with --json: include {values} metric values"
    )
    add_bootstrap_options(p, fraction=fraction)
    add_model_options(p)
    add_json_flag(p)


def add_agreement_parser(msub) -> None:
    a = msub.add_parser(
        "agreement",
        help="which metric agrees with the diversity label: Spearman, OCA, paired ranks",
        description="Tevet & Berant's test for many metrics at once: each metric's Spearman rho "
        "with label_value and, for a 0/1 label, its optimal classification accuracy (OCA), "
        "oriented by the metric's direction, each with a seeded bootstrap interval over sets; "
        "ranks from paired bootstrap differences in rho.",
        epilog=AGREEMENT_EPILOG,
    )
    _add_tevet_file_flags(
        a,
        "a registered metric or a metric_* column (repeatable; default: all that apply)",
        metric_required=False,
        values="per-set",
        fraction=1.0,
    )
    a.set_defaults(meta_run=run_agreement)


def run(args) -> int:
    fn = getattr(args, "meta_run", None)
    if fn is None:
        args.meta_parser.print_help()
        return 2
    return fn(args)


def _each_file(inputs: list[str], title: str, test: Callable[[str], T]) -> dict[str, T]:
    """``{path: test(path)}`` of each input file, with a progress bar over several files; an
    input error that names no file is about the one being read."""
    out = {}
    for path in track(inputs, title, total=len(inputs), enabled=None if len(inputs) > 1 else False):
        try:
            out[path] = test(path)
        except InputError as exc:
            if exc.path is None:
                raise InputError(exc.problem, path) from None
            raise
    return out


def run_tevet(args) -> int:
    from ..meta.studies.tevet import HUMAN, tevet_test

    options = metric_options(args, *MODEL_FLAGS)  # every flag shown takes effect
    results = _each_file(
        args.inputs,
        "Tevet & Berant tests",
        lambda path: tevet_test(
            path,
            args.metrics,
            tokenizer=args.tokenizer,
            lowercase=args.lowercase,
            **bootstrap_arguments(args),
            decimals=args.decimals,
            progress=True,
            models=args.models,  # as the CLI resolved them
            **options,
        ),
    )
    for path in results:
        left_out = [m for m in args.metrics if m not in {r.metric for r in results[path]}]
        if left_out:  # only the human line is ever left out: the file has no human scores
            print(
                f"diveval: note: {path}: no human scores ({HUMAN} column): "
                f"{', '.join(left_out)} left out",
                file=sys.stderr,
            )
    if args.json:
        print_json(
            {"tests": {p: [r.to_dict(args.values) for r in rows] for p, rows in results.items()}}
        )
        return 0
    from ..report.study_tables import tevet_table

    print(tevet_table(results))
    return 0


def run_agreement(args) -> int:
    from ..meta.studies.agreement import agreement

    if args.fraction != 1.0 or args.no_replace:
        # the paired comparison and the ranks read every metric's resamples of the same sets
        raise InputError("meta agreement resamples all sets with replacement (--fraction 1)")
    options = metric_options(args, *MODEL_FLAGS)
    results = list(
        _each_file(
            args.inputs,
            "agreement",
            lambda path: agreement(
                path,
                args.metrics,
                n_resamples=args.resamples or None,
                confidence=args.confidence,
                seed=args.seed,
                tokenizer=args.tokenizer,
                lowercase=args.lowercase,
                progress=len(args.inputs) == 1,
                models=args.models,  # as the CLI resolved them
                **options,
            ),
        ).values()
    )
    if args.json:
        rows = [r.to_dict(args.values) for res in results for r in res.rows]
        files = [{k: v for k, v in res.to_dict().items() if k != "rows"} for res in results]
        print_json({"files": files, "rows": rows})
        return 0
    from ..report.study_tables import agreement_table

    print(agreement_table(results))
    return 0
