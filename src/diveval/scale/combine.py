"""Per-set Scores of consecutive shards of sets, joined into the Score of all the sets, and the
per-item options of a slice of the items.

A per-set metric (every metric in the sets setting) is independent per set, so shards of sets can
be scored anywhere and joined: the per-set values are concatenated in shard order and the headline
is their mean, as in the one-process run (:func:`diveval.state.join_scores`, which also states the
rule that joins the details). Warnings are the parts' own, or recomputed from the joined details
where the metric's row says how (``Metric.joined_warnings``: its text holds figures of the input).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..registry import PER_ITEM_OPTIONS, all_metrics
from ..results import Score
from ..state import join_scores, joinable
from ..text.language import is_language_warning

__all__ = ["join_set_scores", "joinable", "per_item_options"]


def join_set_scores(parts: Sequence[Score], value: float | None = None) -> Score:
    """:func:`diveval.state.join_scores` with the registered metric's warnings rule."""
    rule = _warnings_rule(parts[0].metric) if parts else None
    return join_scores(parts, value, warnings_rule=rule)


def _warnings_rule(metric: str) -> Callable[[dict[str, Any], int], list[str]] | None:
    """The registered metric's ``joined_warnings`` (with its fixed parameters), if it has one."""
    row = all_metrics().get(metric)
    if row is None or row.joined_warnings is None:
        return None
    compute = row.joined_warnings

    def rule(details: dict[str, Any], count: int) -> list[str]:
        found = compute(details, count=count, **row.fixed)
        # the warnings about the input's script or language hold no figure to recompute: kept
        return found + [
            w for w in details.get("warnings", ()) if is_language_warning(w) and w not in found
        ]

    return rule


def per_item_options(options: dict[str, Any], part: slice) -> dict[str, Any]:
    """The options of a run restricted to a slice of its items (references per item...)."""
    out = dict(options)
    for key in PER_ITEM_OPTIONS:
        if out.get(key) is not None:
            out[key] = list(out[key])[part]
    return out
