"""Per-set Scores of consecutive shards of sets, joined into the Score of all the sets.

A per-set metric (every metric in the sets setting) is independent per set, so shards of sets can
be scored anywhere and joined: the per-set values are concatenated in shard order and the headline
is their mean, as in the one-process run. Details are joined by one rule: arrays (one entry per set
or per response) are concatenated, integer counts added, dictionaries joined key by key, lists
appended without repeats; any other value must be the same in every shard.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import InputError
from ..results import SETS, Score


def _join(key: str, values: list[Any]) -> Any:
    first = values[0]
    if isinstance(first, np.ndarray):
        return np.concatenate([np.asarray(v) for v in values])
    if isinstance(first, (bool, np.bool_)):
        if any(v != first for v in values):
            raise InputError(f"shards disagree on details[{key!r}]")
        return first
    if isinstance(first, (int, np.integer)):
        return int(sum(values))
    if isinstance(first, Mapping):
        keys = list(first)
        if any(list(v) != keys for v in values):
            raise InputError(f"shards disagree on the keys of details[{key!r}]")
        return {k: _join(f"{key}.{k}", [v[k] for v in values]) for k in keys}
    if isinstance(first, (list, tuple)):
        seen: list[Any] = []
        for v in values:
            seen += [x for x in v if x not in seen]
        return seen
    if any(v != first for v in values):
        raise InputError(f"shards disagree on details[{key!r}]: {first!r} and others")
    return first


def join_set_scores(parts: Sequence[Score]) -> Score:
    """The Score of all sets from the Scores of consecutive shards of sets (in order)."""
    if not parts:
        raise InputError("nothing to join: no shard scores")
    head = parts[0]
    for p in parts:
        if p.setting != SETS or p.items is None:
            raise InputError(f"{p.metric}: only per-set scores (sets setting) can be joined")
        if (p.metric, p.signature) != (head.metric, head.signature):
            raise InputError(
                f"cannot join scores of different runs: {head.signature} and {p.signature}"
            )
    items = np.concatenate([np.asarray(p.items) for p in parts])
    details = {k: _join(k, [p.details[k] for p in parts]) for k in head.details}
    return Score(head.metric, float(items.mean()), head.signature, SETS, items, details)
