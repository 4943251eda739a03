"""A diveval metric as a Ray Data aggregation: ``ds.aggregate(aggregate("distinct-2"))``.

Each block of the dataset fills a fresh state of the metric (see :mod:`diveval.state`) with the
texts of its column; Ray combines the blocks' states through the state's own ``merge`` and the
finished state gives the one-process value of ``diveval.score`` over the whole column, as a float
under the aggregation's name. States that need a second pass over the texts (corpus Self-BLEU)
keep their texts' n-gram counts, so they finish without one.

>>> ds.aggregate(aggregate("distinct-2", column="response"))   # doctest: +SKIP
{'distinct-2': 0.81...}
"""

from __future__ import annotations

from typing import Any, Optional

from ray.data.aggregate import AggregateFnV2
from ray.data.block import Block, BlockAccessor

from .carried import carried_state


class DiversityAggregate(AggregateFnV2):
    """The aggregation :func:`aggregate` returns (Ray's ``AggregateFnV2``: the accumulator is
    the metric's state; an empty block gives none, which Ray skips)."""

    def __init__(self, metric: str, column: str, name: Optional[str], options: dict[str, Any]):
        row, _ = carried_state(metric, options, declared=False, host="diveval's Ray aggregation")
        self._row, self._options = row, options
        super().__init__(name or row.name, zero_factory=self._fresh, on=column, ignore_nulls=True)

    def _fresh(self) -> Any:
        return self._row.make_state(self._options)

    def aggregate_block(self, block: Block) -> Any:
        texts = BlockAccessor.for_block(block).to_numpy(self.get_target_column())
        if len(texts) == 0:
            return None
        state = self._fresh()
        state.update([str(t) for t in texts])
        return state

    def combine(self, current_accumulator: Any, new: Any) -> Any:
        return current_accumulator.merge(new)

    # AggregateFnV2 declares finalize as a method, its base class as an attribute
    def finalize(self, accumulator: Any) -> float:  # type: ignore[override]
        return float(accumulator.result().value)


def aggregate(
    metric: str, column: str = "text", name: Optional[str] = None, **options: Any
) -> DiversityAggregate:
    """The Ray Data aggregation of ``metric`` (a registry name with a mergeable corpus state)
    over the text column ``column``; ``name``: its key in ``Dataset.aggregate``'s result (the
    metric's name by default); ``options``: as ``diveval.score`` takes them."""
    return DiversityAggregate(metric, column, name, options)
