"""The results of a paired comparison: one :class:`Row` per metric and candidate, gathered in a
:class:`Comparison` (with ``to_dict``/JSON and the printed table's fields).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

#: The keys of a row's dict, in the order of the JSON output (``gain`` and ``more_diverse`` are
#: read from the row; ``note`` follows where there is one).
_ROW_KEYS = (
    "metric",
    "baseline",
    "candidate",
    "baseline_value",
    "candidate_value",
    "difference",
    "direction",
    "gain",
    "interval",
    "interval_unadjusted",
    "interval_extended",
    "p_value",
    "p_adjusted",
    "significant",
    "more_diverse",
    "n_prompts",
    "test",
    "signature",
)


@dataclass(frozen=True)
class Row:
    """One metric, one candidate against the baseline."""

    metric: str
    baseline: str
    candidate: str
    direction: str
    n_prompts: int
    signature: str
    baseline_value: float | None = None
    candidate_value: float | None = None
    difference: float | None = None  # candidate - baseline
    # the interval shown: simultaneous over the run's tests (see :func:`_simultaneous`), so it
    # never excludes 0 beside "no decision"; the per-test interval, not adjusted, beside it
    interval: tuple[float, float] | None = None
    interval_unadjusted: tuple[float, float] | None = None
    interval_extended: bool = False  # the simultaneous interval was extended to reach 0
    p_value: float | None = None
    p_adjusted: float | None = None
    significant: bool = False
    test: str | None = None
    note: str | None = None  # why a metric could not be compared

    @property
    def comparable(self) -> bool:
        return self.p_value is not None

    @property
    def gain(self) -> float | None:
        """The difference in the more-diverse direction: > 0 when the candidate is more diverse."""
        if self.difference is None:
            return None
        return self.difference if self.direction == "higher" else -self.difference

    @property
    def more_diverse(self) -> str | None:
        """The system the test says is more diverse, or None when it does not say."""
        if not self.significant or not self.gain:
            return None
        return self.candidate if self.gain > 0 else self.baseline

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in _ROW_KEYS}
        for key in ("interval", "interval_unadjusted"):
            out[key] = list(getattr(self, key)) if getattr(self, key) else None
        return {**out, **({"note": self.note} if self.note else {})}


@dataclass(frozen=True)
class Comparison:
    """Every row of a comparison, the prompts left out of each pair, and the run's choices."""

    rows: tuple[Row, ...]
    baseline: str
    candidates: tuple[str, ...]
    settings: Mapping[str, Any]
    unmatched: Mapping[str, Mapping[str, list[str]]] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "comparison": {
                "baseline": self.baseline,
                "candidates": list(self.candidates),
                **dict(self.settings),
            },
            "unmatched": {c: dict(u) for c, u in self.unmatched.items()},
            "warnings": list(self.warnings),
            "rows": [r.to_dict() for r in self.rows],
        }
