"""`diveval leaderboard FILE... -m METRIC`: every pair of systems tested as `compare` tests one,
Holm over all pairs, the systems ranked with their intervals, rank ranges and letter groups (the
logic is :mod:`diveval.meta.statistics.leaderboard` and :mod:`diveval.meta.statistics.groups`)."""

from __future__ import annotations

from ..errors import InputError
from . import add_metric_flag
from .compare import (
    add_scoring_flags,
    add_system_inputs,
    add_test_group,
    check_input_count,
    print_result,
    read_systems,
    system_options,
)
from .options import resampling_arguments

EPILOG = """examples:
  diveval leaderboard runs/*/scores.jsonl -m distinct-2 --field generations
  diveval leaderboard a.jsonl b.jsonl c.jsonl -m self-bleu --json > board.json
  diveval leaderboard all.jsonl --by model -m distinct-2      one file, a system field

Every system must answer the same prompts (matched by "id", else by prompt text, else by
position). Systems that share a letter are not significantly different after Holm's adjustment
over all pairs; the rank range is every rank a system could take given the pairs the test does
not separate.
"""


def add_parser(sub):
    from ..meta.statistics import compare_options as cmp  # the flags' declarations only
    from ..meta.statistics import leaderboard_options as lb

    p = sub.add_parser(
        "leaderboard",
        help="rank systems on one metric, with the groups the paired tests cannot tell apart",
        description="Every pair of systems compared by compare's paired test (permutation or "
        "bootstrap, prompts resampled and swapped alike for all pairs), Holm's adjustment over "
        "all m(m-1)/2 pairs; the systems sorted by value with an interval each (simultaneous by "
        "default), the range of ranks each can take, and a compact letter display (Piepho 2004).",
        epilog=EPILOG,
    )
    add_system_inputs(p, "one file per system (what `diveval score` reads); or one file with --by")
    add_metric_flag(p, "the metric to rank by (one)", required=True)
    g = add_test_group(
        p,
        "each pair's p-value: paired permutation (sign flips of per-prompt differences) or the "
        "paired bootstrap",
        "resamples and swaps, shared by all pairs (default: 1,000, more with many systems: twice "
        "the fewest whose smallest p-value passes Holm's first threshold)",
        None,  # None: lb.default_resamples, which grows with the pairs
    )
    g.add_argument("--alpha", type=float, default=cmp.DEFAULT_ALPHA, help="significance level")
    g.add_argument(
        "--intervals",
        choices=lb.INTERVALS,
        default=lb.DEFAULT_INTERVALS,
        help="each system's interval: simultaneous (all hold together: a sup-t band) or "
        "per-system (each alone)",
    )
    add_scoring_flags(p)
    return p


def run(args) -> int:
    from ..meta.statistics import leaderboard as lb

    check_input_count(args, "a leaderboard needs two or more INPUT files (or one file with --by)")
    if len(args.metrics) != 1:
        raise InputError(
            f"a leaderboard ranks on one metric, got {len(args.metrics)}: "
            f"{', '.join(args.metrics)}; run it once per metric"
        )
    systems, match = read_systems(args)
    board = lb.leaderboard(
        systems,
        args.metrics[0],
        test=args.test,
        **resampling_arguments(args),
        alpha=args.alpha,
        intervals=args.intervals,
        match=match,
        models=args.models,  # as the CLI resolved them
        **system_options(args),
    )
    from ..report.comparison_tables import leaderboard_table

    print_result(args, board, leaderboard_table)
    return 0
