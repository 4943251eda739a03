"""Which registered metrics an aggregator can carry, and the one error for those it cannot."""

from __future__ import annotations

from typing import Any, Mapping

from ..errors import InputError
from ..registry import PER_ITEM_OPTIONS, Metric, all_metrics, check_options, get_metric
from ..results import CORPUS
from ..state import DeclaredState


def _carries(metric: Metric, declared: bool) -> bool:
    """A corpus state that needs no per-item options (references travel with no row here);
    ``declared``: one written as a :class:`~diveval.state.DeclaredState`, whose fields an
    aggregator can hold one by one."""
    if metric.state is None or not metric.supports(CORPUS):
        return False
    if set(PER_ITEM_OPTIONS) & set(metric.options):
        return False
    if not declared:
        return True
    try:
        return isinstance(metric.make_state({}), DeclaredState)
    except Exception:  # a state that cannot be made without options is not one to offer
        return False


def carried_state(
    name: str, options: Mapping[str, Any], *, declared: bool, host: str
) -> tuple[Metric, Any]:
    """(the metric's row, a fresh state of it for ``options``), or an InputError naming the
    metrics ``host`` can carry."""
    metric = get_metric(name)
    check_options(options, [metric])
    if not _carries(metric, declared):
        supported = [n for n, m in all_metrics().items() if _carries(m, declared)]
        raise InputError(
            f"{host} carries metrics with a mergeable corpus state; {name!r} has none. "
            f"Supported: {', '.join(supported)}"
        )
    return metric, metric.make_state(dict(options))
