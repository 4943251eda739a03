"""`diveval score INPUT --by SYSTEM --across`: how alike the systems' answers to the same prompt
are, as the alpha / beta / gamma decomposition (``meta.estimation.metacommunity``)."""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from . import print_json
from .options import metric_options, resampling_arguments
from .score_modes import Mode

MODE = Mode("--across", ("across",), frozenset({"--by", "--items"}))


def add_options(p: Any) -> None:
    s = p.add_argument_group("systems side by side (with --by SYSTEM_FIELD)")
    s.add_argument(
        "--across",
        action="store_true",
        help="how alike the systems' answers to the same prompt are: "
        "gamma (the pooled answers), alpha (each system alone) and beta (the effective number of "
        "distinct systems, Reeve et al. 2016) per prompt and overall; --similarity (cosine "
        "or exact) and --viewpoint choose the similarity and the order q",
    )
    s.add_argument(
        "--viewpoint",
        default="1",
        metavar="Q",
        help="--across: the order q of the Hill numbers (0, 1, 2, ..., inf)",
    )


def run(args: Any) -> int:
    import sys

    from ..context import RunContext
    from ..io.readers import read_input
    from ..meta.estimation.levels import group_by_input
    from ..meta.estimation.metacommunity import across_systems
    from ..models.devices import SETTINGS_OPTIONS
    from ..report.tables import across_table

    if not args.by:
        raise InputError("--across compares systems: add --by FIELD naming the system field")
    data = read_input(args.input, args.format, args.field)
    if not data.records:
        raise InputError("--across needs records with a prompt and a system field", data.path)
    sets = [x if isinstance(x, list) else [x] for x in data.items]
    groups = group_by_input(data.records, sets, args.by)
    options = {
        k: v
        for k, v in metric_options(args).items()
        if k in ("embedding_model", "nli_model", *SETTINGS_OPTIONS)
    }
    result = across_systems(
        groups,
        args.similarity,
        q=args.viewpoint,
        **resampling_arguments(args),
        context=RunContext(progress=True, models=args.models),  # as the CLI resolved them
        **options,
    )
    for warning in result.warnings:
        print(f"diveval: warning: across: {warning}", file=sys.stderr)
    if args.json:
        out = {"input": args.input, "by": args.by, "across": result.to_dict(args.items is True)}
        print_json(out)
    else:
        print(across_table(result, f"{args.input}: --by {args.by} --across"))
    return 0
