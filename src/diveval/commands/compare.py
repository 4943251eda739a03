"""`diveval compare BASELINE CANDIDATE...`: paired tests of every metric, candidates against the
baseline (the logic is :mod:`diveval.meta.statistics.compare`)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Callable

from ..errors import InputError
from ..options import PER_ITEM_OPTIONS
from . import add_json_flag, add_metric_flag, print_json
from .options import (
    add_at_k_options,
    add_input_flags,
    add_model_options,
    add_option_flags,
    add_resampling_flags,
    metric_options,
    resampling_arguments,
)

if TYPE_CHECKING:  # the method is imported where a run needs it: the parser needs no numpy
    from ..meta.statistics.systems import System

#: The per-item options whose flag names a record field (one entry per response), shared with
#: `leaderboard`: each system's records' values travel on its System, not in the options.
STORED = ("classes", "quality")

EPILOG = """examples:
  diveval compare base.jsonl tuned.jsonl                      the lexical defaults, paired by id
  diveval compare t07.jsonl t10.jsonl t13.jsonl -m distinct-2 -m self-bleu --json
  diveval compare systems.jsonl --by system --baseline base   one file, a system field
  diveval compare a.txt b.txt -m distinct-2                   line i of each file is prompt i

Prompts are matched by the records' "id", else by their prompt text ("prompt", "context", ...),
else by position; prompts only one input answered are named in a warning and left out.
"""


def add_parser(sub):
    from ..meta.statistics import compare_options as cmp  # the flags' declarations only

    p = sub.add_parser(
        "compare",
        help="paired tests: is a candidate more diverse than the baseline?",
        description="For every metric and every candidate against the baseline, on the prompts "
        "both answered: the difference (candidate - baseline), its paired bootstrap interval, a "
        "paired p-value (a permutation test swapping the two systems' answers to random prompts: "
        "the sign flip of per-prompt differences for per-set metrics, corpus metrics recomputed "
        "from the swapped states), and Holm-adjusted p-values over all rows.",
        epilog=EPILOG,
    )
    add_system_inputs(
        p, "the baseline, then the candidates (what `diveval score` reads); or one file with --by"
    )
    p.add_argument(
        "--baseline",
        metavar="NAME",
        default=None,
        help="with --by: the baseline system (default: the first in the file)",
    )
    add_metric_flag(p, "a metric name (repeatable); default: the lexical metrics")
    g = add_test_group(
        p,
        "the p-value: paired permutation (swaps of the answers to a prompt; exact under A/A) or "
        "the paired bootstrap (on DailyDialog++ A/A runs it rejects corpus EAD too often)",
        "resamples",
        cmp.DEFAULT_RESAMPLES,
    )
    g.add_argument(
        "--refit-resamples",
        type=int,
        default=cmp.DEFAULT_REFIT_RESAMPLES,
        help="resamples and swaps of a metric refitted on each (MAUVE's PCA and k-means)",
    )
    g.add_argument("--alpha", type=float, default=cmp.DEFAULT_ALPHA, help="significance level")
    g.add_argument(
        "--levels",
        type=int,
        choices=cmp.LEVELS,
        default=cmp.DEFAULT_LEVELS,
        help="1: resample prompts; 2: prompts, then the responses within each (conservative; "
        "see the guide 'Comparing models')",
    )
    add_scoring_flags(p, at_k=True)
    return p


def add_system_inputs(p, inputs_help: str) -> None:
    """The inputs of a comparison of systems (compare, leaderboard): a file per system, or one
    file and the field naming its systems, and how prompts are paired across them."""
    from ..meta.statistics import compare_options as cmp  # the flags' declarations only

    p.add_argument("inputs", nargs="+", metavar="INPUT", help=inputs_help)
    add_input_flags(p, "the responses field")
    p.add_argument(
        "--by", metavar="FIELD", default=None, help="one file: the record field naming the system"
    )
    p.add_argument(
        "--match",
        choices=cmp.MATCHES,
        default=None,
        help="how prompts are paired (default: id if every record has one, else prompt, else "
        "position)",
    )


def add_test_group(p, test_help: str, resamples_help: str, resamples: int | None) -> Any:
    """The group of the paired test of a comparison of systems (compare, leaderboard): --test
    and the resampling flags with compare's defaults; the command adds its own flags to the
    group it returns."""
    from ..meta.statistics import compare_options as cmp  # the flags' declarations only

    g = p.add_argument_group("the test")
    g.add_argument("--test", choices=cmp.TESTS, default=cmp.DEFAULT_TEST, help=test_help)
    add_resampling_flags(
        g,
        resamples_help=resamples_help,
        seed_help="seed of every resample",
        resamples=resamples,
        confidence=cmp.DEFAULT_CONFIDENCE,
        seed=cmp.DEFAULT_SEED,
    )
    return g


def add_scoring_flags(p, at_k: bool = False) -> None:
    """How each system is scored (compare, leaderboard): the metrics' options, the record fields
    of stored classes and quality, the models' settings, --json; ``at_k``: the --at-k flags."""
    add_option_flags(p, "tokenizer", "lowercase", "vocab", "smoothing", "variant")
    if at_k:
        add_at_k_options(p)
    add_option_flags(p, *STORED)
    add_model_options(p)
    add_json_flag(p)


def run(args) -> int:
    from ..meta.statistics import compare as cmp

    check_input_count(
        args, "compare needs a BASELINE and at least one CANDIDATE (or one file --by)"
    )
    if args.baseline and not args.by:
        raise InputError("--baseline names a --by group; without --by the first INPUT is it")
    systems, match = read_systems(args)
    result = cmp.compare(
        systems,
        args.metrics,
        baseline=args.baseline,
        test=args.test,
        **resampling_arguments(args),
        alpha=args.alpha,
        levels=args.levels,
        match=match,
        refit_resamples=args.refit_resamples,
        models=args.models,  # as the CLI resolved them
        **system_options(args),
    )
    for w in result.warnings:
        print(f"diveval: warning: {w}", file=sys.stderr)
    from ..report.comparison_tables import comparison_table

    print_result(args, result, comparison_table)
    return 0


def print_result(args, result: Any, table_of: Callable[[Any], str]) -> None:
    """A comparison's result (compare, leaderboard): with --json the inputs, the result's dict
    and --by's field; else its table."""
    if args.json:
        out = {"inputs": list(args.inputs), **result.to_dict()}
        if args.by:
            out["by"] = args.by
        print_json(out)
    else:
        print(table_of(result))


def system_options(args) -> dict[str, Any]:
    """The metric options of the command line less the per-item ones, which each system carries
    for its own items (:func:`read_systems`)."""
    return {k: v for k, v in metric_options(args).items() if k not in PER_ITEM_OPTIONS}


def check_input_count(args, too_few: str) -> None:
    """One INPUT with --by, two or more without (``too_few``: the command's words for that)."""
    if args.by:
        if len(args.inputs) != 1:
            raise InputError("--by splits one file into systems: give one INPUT")
    elif len(args.inputs) < 2:
        raise InputError(too_few)


def read_systems(args) -> tuple[list[System], str]:
    """The systems of ``args.inputs`` and how their prompts are matched
    (``meta.statistics.systems.read_systems``), what it says about the inputs printed on
    stderr: what `compare` and `leaderboard` read alike."""
    from ..meta.statistics.systems import read_systems as read

    stored = {k: getattr(args, k) for k in STORED if getattr(args, k, None)}
    systems, match, notes = read(
        args.inputs,
        by=args.by,
        fmt=args.format,
        field_name=args.field,
        stored=stored,
        match=args.match,
        at_k=getattr(args, "at_k", None),
    )
    for line in notes:
        print(line, file=sys.stderr)
    return systems, match
