"""`diveval score INPUT --shard I/N --state FILE`: one shard of a run, its metric states saved
for `diveval merge` (``scale.shards``)."""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from .options import metric_options
from .score_modes import CLASSES, QUALITY, Mode, mergeable_defaults, read_scored_input

MODE = Mode("--shard", ("shard", "state"), frozenset({CLASSES, QUALITY}))


def run(args: Any) -> int:
    from ..io.readers import per_item_fields
    from ..sampling.records import add_sampling
    from ..scale.shards import parse_shard, score_shard, shardable

    if not (args.shard and args.state):
        raise InputError("--shard I/N and --state FILE go together")
    shard = parse_shard(args.shard)
    data = read_scored_input(args)
    names = mergeable_defaults(args.metrics, data.setting, shardable, "no mergeable state")
    options = per_item_fields(metric_options(args), data.records)
    result = score_shard(data.items, names, shard, **options)
    # the whole file's sampling settings, so every shard names them as a one-process run does
    result.set_scores = add_sampling(result.set_scores, data.records or [])
    result.save(args.state)
    print(f"shard {shard[0]}/{shard[1]} of {args.input} written to {args.state}")
    return 0
