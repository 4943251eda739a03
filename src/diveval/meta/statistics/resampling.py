"""Resampling that knows no metric: the one home of the draws, p-values and intervals that
``compare``, the leaderboard, ``score --level``, ``at_k``, the agreement board and the bootstrap
intervals share.

- Draws: bootstrap row indices (:func:`resample_indices`), their multiplicities
  (:func:`multiplicities`, for statistics that add up over units) and the swap patterns of a paired
  permutation test (:func:`swaps`).
- P-values: the paired permutation test (:func:`permutation_p`, :func:`sign_flip_p`), the paired
  bootstrap's (:func:`bootstrap_p`, sacrebleu's rule) and Holm's adjustment (:func:`holm`).
- Intervals: percentiles of the resampled statistics (:func:`percentile_interval`), and the rule
  for statistics that are undefined on some resamples (:func:`finite_percentile_interval`).

Each function takes numbers (values, differences, counts) and returns numbers; what a unit is and
how a metric's value follows from it is the caller's.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...constants import DEFAULT_RESAMPLES
from ...errors import InputError

# -- draws --------------------------------------------------------------------------------------


def resample_indices(
    n: int,
    n_resamples: int = DEFAULT_RESAMPLES,
    fraction: float = 1.0,
    replace: bool = True,
    seed: int | None = 0,
) -> np.ndarray:
    """[n_resamples, m] row indices, m = round(fraction * n) (at least 2)."""
    if n < 2:
        raise InputError(f"a bootstrap needs at least 2 rows, got {n}")
    if not 0 < fraction <= 1:
        raise InputError(f"bootstrap fraction must be in (0, 1], got {fraction}")
    if n_resamples < 1:
        raise InputError(f"n_resamples must be at least 1, got {n_resamples}")
    m = max(2, int(round(fraction * n)))
    rng = np.random.default_rng(seed)
    if replace:
        return rng.integers(0, n, size=(n_resamples, m))
    # Without replacement: a random permutation per resample, keep the first m rows.
    return np.argsort(rng.random((n_resamples, n)), axis=1)[:, :m]


def multiplicities(n: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """[n_resamples, n] counts: how often each of n units is drawn in each bootstrap resample
    of n units with replacement (rows sum to n)."""
    idx = rng.integers(0, n, size=(n_resamples, n))
    flat = idx + (np.arange(n_resamples, dtype=np.int64) * n)[:, None]
    return np.bincount(flat.ravel(), minlength=n_resamples * n).reshape(n_resamples, n)


def swaps(n: int, n_resamples: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """([draws, n] 0/1: which units swap the two systems' answers, exact): all 2**n patterns
    when there are no more than ``n_resamples`` of them, else ``n_resamples`` random ones."""
    if 2**n <= n_resamples:
        return (np.arange(2**n)[:, None] >> np.arange(n)) & 1, True
    return rng.integers(0, 2, size=(n_resamples, n), dtype=np.int8), False


def matvec(a: np.ndarray, v: np.ndarray) -> np.ndarray:
    """a @ v without BLAS: a matrix-vector product of this size gains nothing from BLAS threads,
    and on a busy machine their start-up cost 40 ms a call where einsum takes 0.2 ms."""
    return np.einsum("ij,j->i", a, np.asarray(v, dtype=float))


# -- p-values -----------------------------------------------------------------------------------


def _at_least(values: np.ndarray, observed: float) -> np.ndarray:
    """values >= observed, with a margin for the float rounding of equal sums."""
    tol = 1e-12 * max(1.0, abs(observed))
    return values >= observed - tol


def permutation_p(stats: np.ndarray, observed: float, exact: bool) -> float:
    """Two-sided p-value from the |difference| of each swap pattern: the share at least as large
    as the observed one (exact), or (1 + hits) / (1 + draws) with the observed pattern counted
    among random draws."""
    if observed == 0.0:
        return 1.0
    hits = _at_least(np.abs(stats), abs(observed))
    return float(hits.mean()) if exact else float((1 + hits.sum()) / (stats.size + 1))


def sign_flip_p(diffs: np.ndarray, n_resamples: int, rng: np.random.Generator) -> float:
    """Two-sided p-value of the sign-flip permutation test of mean(diffs) = 0 (swapping the two
    systems' answers to a unit flips the sign of its difference): exact over all 2**n sign
    vectors when there are no more than ``n_resamples`` of them, otherwise Monte Carlo."""
    d = np.asarray(diffs, dtype=float)
    pattern, exact = swaps(d.size, n_resamples, rng)
    return permutation_p(matvec(1 - 2 * pattern.astype(float), d) / d.size, float(d.mean()), exact)


def bootstrap_p(deltas: np.ndarray, observed: float) -> float:
    """Two-sided p-value of the paired bootstrap (sacrebleu's rule): the resampled differences,
    shifted to mean 0, as the null distribution of the observed difference."""
    deltas = np.asarray(deltas, dtype=float)
    if observed == 0.0:
        return 1.0
    null = np.abs(deltas - deltas.mean())
    return float((1 + _at_least(null, abs(observed)).sum()) / (deltas.size + 1))


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values: sorted ascending, the i-th smallest (1-based)
    times m - i + 1, made non-decreasing by a running maximum, capped at 1. A hypothesis is
    rejected at level alpha exactly when its adjusted p-value is <= alpha.

    >>> holm([0.01, 0.04, 0.03]).round(4).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=float)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = p[order] * (m - np.arange(m))
    adjusted = np.minimum(np.maximum.accumulate(scaled), 1.0)
    out = np.empty(m)
    out[order] = adjusted
    return out


# -- intervals ----------------------------------------------------------------------------------


def percentile_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """The central ``confidence`` percentile interval of the resampled statistics."""
    tail = (1 - confidence) / 2
    low, high = np.quantile(np.asarray(values, dtype=float), [tail, 1 - tail])
    return float(low), float(high)


def finite_percentile_interval(values: np.ndarray, confidence: float) -> tuple[float, float, int]:
    """(low, high, dropped): the percentile interval of the finite resampled statistics, and how
    many were not finite; NaN bounds when more than half of them were not (never a silently
    narrow interval)."""
    values = np.asarray(values, dtype=float)
    finite = values[np.isfinite(values)]
    dropped = int(len(values) - len(finite))
    if len(finite) * 2 < len(values):
        return float("nan"), float("nan"), dropped
    low, high = percentile_interval(finite, confidence)
    return low, high, dropped
