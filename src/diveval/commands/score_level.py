"""`diveval score INPUT --level LEVEL`: each metric at one reporting level, with a bootstrap
interval (``meta.estimation.levels``)."""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..meta.defaults import DEFAULT_DRAWS
from . import print_json
from .options import add_hidden_alias, add_resampling_flags, metric_options, resampling_arguments
from .score_modes import Mode

MODE = Mode("--level", ("level",), frozenset({"--items"}))


def add_options(p: Any) -> None:
    g = p.add_argument_group(
        "reporting levels (Kirk et al. 2024; see docs/guides/llm-sampling.md#reporting-levels)"
    )
    g.add_argument(
        "--level",
        choices=["per-input", "across-input", "cross-model"],
        default=None,
        help="score each --metric at this level, with a bootstrap interval; JSONL records with "
        "responses (and prompt/context and model for cross-model)",
    )
    # named --level-*: --at-k K, --at-k-draws and --at-k-seed are another mode's look-alikes;
    # each still answers to its name before the prefix, unlisted
    for flag, old, dest, default, metavar, text in (
        ("--level-k", "--k", "k", None, "K", "per-input: subsample K outputs per input (seeded)"),
        ("--level-draws", "--draws", "draws", DEFAULT_DRAWS, "D", "seeded draws averaged"),
    ):
        g.add_argument(flag, dest=dest, type=int, default=default, metavar=metavar, help=text)
        add_hidden_alias(g, old, dest, int)
    g.add_argument(
        "--model-field", default="model", help="cross-model: the record field naming the model"
    )
    add_resampling_flags(g, seed_help="seed of draws and resamples", seed_flag="--level-seed")
    add_hidden_alias(g, "--seed", "seed", int)


def run(args: Any) -> int:
    from ..context import RunContext
    from ..io.readers import locate, read_input
    from ..meta.estimation.levels import group_by_input, score_level
    from ..registry import default_metrics
    from ..report.tables import level_lines
    from ..sampling.records import add_sampling

    data = read_input(args.input, args.format, args.field)
    if data.setting != "sets":
        raise InputError(
            "--level needs the outputs of each input as a set (JSONL records with responses)",
            data.path,
        )
    names = args.metrics or default_metrics("sets")
    payload: Any = data.items
    if args.level == "cross-model":
        payload = group_by_input(data.records, data.items, args.model_field)
    options = metric_options(args)
    context = RunContext(progress=True, models=args.models)  # as the CLI resolved them
    try:
        results = [
            score_level(
                args.level,
                name,
                payload,
                k=args.k,
                draws=args.draws,
                **resampling_arguments(args),
                context=context,
                **options,
            )
            for name in names
        ]
    except InputError as exc:  # "set N" of per-input / across-input is record N of the file
        raise (exc if args.level == "cross-model" else locate(exc, data)) from None
    results = add_sampling(results, data.records or [])
    if args.json:
        scores = {r.metric: r.to_dict(with_items=args.items is True) for r in results}
        print_json({"input": args.input, "level": args.level, "scores": scores})
    else:
        print(level_lines(results, f"{args.input}: level {args.level}"))
    return 0
