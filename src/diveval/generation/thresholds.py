"""Percentile thresholds: how diverse human response sets are, as a target for generation.

Stasaski & Hearst (2022) set each threshold of Diversity Threshold Generation at the 90th
percentile of the metric over the human response sets of DailyDialog++ (five positive responses
per context). ``percentile_threshold`` computes that number for any registered sets metric:
the metric per set, then numpy's percentile with linear interpolation (numpy's default; on
DailyDialog++ dev every numpy method gives the same value to 3 decimals for averaged distinct-n
with Tevet's tokenizer: 0.983, the paper's 0.98).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np

from ..errors import InputError
from .scorers import PRESETS, MetricScorer


@dataclass(frozen=True)
class ThresholdEstimate:
    metric: str
    percentile: float
    value: float
    sets: int
    mean: float
    method: str
    signature: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def percentile_threshold(
    sets: Sequence[Sequence[str]],
    metric: str = "avg-distinct",
    percentile: float = 90.0,
    method: str = "linear",
    **options: Any,
) -> ThresholdEstimate:
    """The ``percentile``-th percentile of a registered sets metric over ``sets``.

    metric: a registry name or a threshold-generation preset ("avg-distinct" as a preset means
    Tevet's tokenizer, as in ``PRESETS``). options: metric options (tokenizer, models, ...).
    """
    if not 0 <= percentile <= 100:
        raise InputError(f"percentile must be between 0 and 100, got {percentile}")
    preset = PRESETS.get(metric)
    name = preset.metric if preset else metric
    opts = {
        **(preset.options if preset else {}),
        **{k: v for k, v in options.items() if v is not None},
    }
    scorer = MetricScorer(name, **opts)
    values = scorer.score_many(sets)
    value = float(np.percentile(values, percentile, method=method))  # type: ignore[call-overload]  # method is a str numpy checks
    return ThresholdEstimate(
        name,
        float(percentile),
        value,
        len(values),
        float(values.mean()),
        method,
        f"{scorer.signature}|pct:{percentile:g}|method:{method}",
    )
