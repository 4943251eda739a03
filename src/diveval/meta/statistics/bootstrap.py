"""Seeded percentile bootstrap over the rows of paired data (its draws and interval rule are
:mod:`diveval.meta.statistics.resampling`'s).

``bootstrap(statistic, x, y, ...)`` draws rows of the arrays together (so pairs stay pairs),
recomputes the statistic on each resample and returns the percentile interval. Two variants:

- the classic bootstrap: ``fraction=1.0, replace=True`` (n rows with replacement);
- the NLI Diversity paper's (Stasaski & Hearst 2022, appendix): 1,000 resamples of half the rows,
  ``half_sample_bootstrap``. The paper does not say whether the half is drawn with replacement;
  diveval draws it with replacement (the m-out-of-n bootstrap) and records the choice.

Rule for degenerate resamples: a resample on which the statistic is undefined (it returns NaN,
e.g. a correlation of a constant column) is dropped and counted in ``dropped``; when fewer than
half of the resamples are usable the interval is (nan, nan) and ``ok`` is False, never a
silently narrow interval.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ...constants import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES
from ...errors import InputError
from .resampling import finite_percentile_interval, resample_indices


@dataclass(frozen=True)
class Interval:
    """A percentile bootstrap interval and how it was drawn."""

    low: float
    high: float
    confidence: float
    n_resamples: int
    sample_size: int
    replace: bool
    seed: int | None
    dropped: int = 0

    @property
    def ok(self) -> bool:
        return bool(np.isfinite(self.low) and np.isfinite(self.high))

    def to_dict(self) -> dict:
        return {
            "low": _num(self.low),
            "high": _num(self.high),
            "confidence": self.confidence,
            "n_resamples": self.n_resamples,
            "sample_size": self.sample_size,
            "replace": self.replace,
            "seed": self.seed,
            "dropped": self.dropped,
        }

    def describe(self) -> str:
        """Short text for signatures and table footers."""
        how = "with" if self.replace else "without"
        return (
            f"{self.confidence:.0%} percentile bootstrap, {self.n_resamples} resamples of "
            f"{self.sample_size} rows {how} replacement, seed {self.seed}"
        )


def _num(v: float):
    return float(v) if np.isfinite(v) else None


def bootstrap(
    statistic: Callable[..., float | np.ndarray],
    *arrays: Sequence[float],
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    fraction: float = 1.0,
    replace: bool = True,
    seed: int | None = 0,
    return_values: bool = False,
    vectorized: bool = False,
):
    """Percentile interval of ``statistic(*resampled_arrays)``; rows are drawn jointly.

    vectorized: ``statistic`` takes 2-D arrays [n_resamples, m] and returns one value per row
    (much faster for Pearson/Spearman than a Python loop).
    Returns an :class:`Interval` (and the array of resampled statistics when ``return_values``).
    """
    if not 0 < confidence < 1:
        raise InputError(f"confidence must be in (0, 1), got {confidence}")
    cols = [np.asarray(a, dtype=float) for a in arrays]
    if not cols:
        raise InputError("bootstrap needs at least one array")
    n = len(cols[0])
    if any(len(c) != n for c in cols):
        raise InputError("bootstrap arrays must have the same length")
    idx = resample_indices(n, n_resamples, fraction, replace, seed)
    if vectorized:
        values = np.asarray(statistic(*[c[idx] for c in cols]), dtype=float)
    else:
        values = np.array([statistic(*[c[row] for c in cols]) for row in idx], dtype=float)
    low, high, dropped = finite_percentile_interval(values, confidence)
    interval = Interval(low, high, confidence, n_resamples, idx.shape[1], replace, seed, dropped)
    return (interval, values) if return_values else interval


def half_sample_bootstrap(
    statistic: Callable[..., float],
    *arrays: Sequence[float],
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int | None = 0,
    replace: bool = True,
) -> Interval:
    """The NLI Diversity paper's variant: ``n_resamples`` resamples of half the rows."""
    return bootstrap(
        statistic,
        *arrays,
        n_resamples=n_resamples,
        confidence=confidence,
        fraction=0.5,
        replace=replace,
        seed=seed,
    )
