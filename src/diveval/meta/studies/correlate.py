"""Correlation of metric values with a reference (human scores, a diversity parameter).

Pearson, Spearman and Kendall (tau-b) come from ``scipy.stats``; scipy is imported on first use
so ``import diveval`` stays cheap. Each coefficient can carry a seeded percentile bootstrap
interval (``meta.statistics.bootstrap``).

Two-sided p-values. Up to ``EXACT_P_MAX_N`` (8) pairs they are exact permutation p-values: the
fraction of the n! orderings of y whose coefficient is at least as far from 0 as the observed one
(``p_method = "exact"``). scipy's Pearson and Spearman p-values come from a t / beta distribution
that gives p = 0 for a perfect ordering of 3 pairs, which chance alone produces in 2 of the 6
orderings (p = 1/3). Above 8 pairs scipy's p-value is kept (``p_method = "scipy"``), raised to
1/n! where it is smaller: no test over the orderings of n pairs can give less.

Rules for undefined cases (never a silent NaN):
- fewer than 3 complete pairs -> InputError naming the column;
- a constant column (zero variance) -> InputError naming the column;
- rows where either value is missing (None, empty string, NaN) are dropped and counted in ``n``;
- which values are numbers, and which columns are never metrics by default (bookkeeping ``_x``,
  identifiers such as ``context_id``), is decided by ``diveval.io.numbers``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ...errors import InputError
from ...io.numbers import is_label, number, numbers_of
from ..statistics.bootstrap import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, Interval, bootstrap

METHODS = ("pearson", "spearman", "kendall")


@dataclass(frozen=True)
class Correlation:
    """One coefficient: value, two-sided p-value, number of pairs, optional bootstrap interval."""

    method: str
    value: float
    p_value: float
    n: int
    interval: Interval | None = None
    p_method: str = "scipy"  # "exact" (all n! orderings) or "scipy" (see the module docstring)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "method": self.method,
            "value": self.value,
            "p_value": _finite_or_none(self.p_value),
            "p_method": self.p_method,
            "n": self.n,
        }
        if self.interval is not None:
            out["interval"] = self.interval.to_dict()
        return out

    def __float__(self) -> float:
        return self.value


def _finite_or_none(v: float):
    return float(v) if v is not None and math.isfinite(v) else None


def _scipy_function(method: str):
    from scipy import stats  # lazy: scipy.stats costs ~0.3 s to import

    table = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}
    if method not in table:
        raise InputError(f"unknown correlation {method!r}; choose from {', '.join(METHODS)}")
    return table[method]


def coefficient(x: Sequence[float], y: Sequence[float], method: str = "pearson") -> float:
    """The bare coefficient, NaN where undefined (used inside the bootstrap)."""
    xa = np.asarray(x, dtype=float)
    ya = np.asarray(y, dtype=float)
    if len(xa) < 2 or np.ptp(xa) == 0 or np.ptp(ya) == 0:
        return float("nan")
    return float(_scipy_function(method)(xa, ya)[0])


def coefficient_rows(x: np.ndarray, y: np.ndarray, method: str = "pearson") -> np.ndarray:
    """The coefficient of each row pair of two [R, m] arrays; NaN where a row is constant.

    Pearson and Spearman (Pearson of average ranks, as scipy) are computed in one numpy pass;
    Kendall falls back to scipy row by row.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if method == "kendall":
        return np.array([coefficient(a, b, "kendall") for a, b in zip(x, y)])
    if method == "spearman":
        from scipy.stats import rankdata

        x, y = rankdata(x, axis=1), rankdata(y, axis=1)
    elif method != "pearson":
        raise InputError(f"unknown correlation {method!r}; choose from {', '.join(METHODS)}")
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    den = np.sqrt((xc * xc).sum(axis=1) * (yc * yc).sum(axis=1))
    num = (xc * yc).sum(axis=1)
    out = np.full(len(x), np.nan)
    ok = (np.ptp(x, axis=1) > 0) & (np.ptp(y, axis=1) > 0)
    out[ok] = np.clip(num[ok] / den[ok], -1.0, 1.0)
    return out


#: Up to this many pairs, p-values enumerate every ordering (8! = 40,320 rows of 8 values).
EXACT_P_MAX_N = 8


def exact_p_value(
    x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, method: str
) -> float:
    """Two-sided exact permutation p-value of ``method``'s coefficient: the fraction of the n!
    orderings of y whose coefficient is at least as far from 0 as the observed one (the observed
    ordering included, so never 0)."""
    from itertools import permutations

    xa = np.asarray(x, dtype=float)
    ya = np.asarray(y, dtype=float)
    n = len(xa)
    if n > EXACT_P_MAX_N:
        raise InputError(f"exact p-values enumerate n! orderings; n = {n} > {EXACT_P_MAX_N}")
    ys = ya[np.array(list(permutations(range(n))))]  # the identity ordering comes first
    if method == "kendall":
        # tau-b = S / a constant that no ordering of y changes (ties per column), so S decides;
        # S is an integer: compared exactly
        i, j = np.triu_indices(n, 1)
        stat = (np.sign(xa[i] - xa[j]) * np.sign(ys[:, i] - ys[:, j])).sum(axis=1)
        return float(np.mean(np.abs(stat) >= abs(stat[0])))
    stat = coefficient_rows(np.broadcast_to(xa, ys.shape), ys, method)
    # orderings that tie the observed coefficient in exact arithmetic may differ in the last bits
    slack = 1e-12 * max(1.0, abs(stat[0]))
    return float(np.mean(np.abs(stat) >= abs(stat[0]) - slack))


def _p_value(x: np.ndarray, y: np.ndarray, method: str, scipy_p: float) -> tuple[float, str]:
    """(p-value, how it was computed): exact up to EXACT_P_MAX_N pairs, else scipy's, at least
    1/n!."""
    n = len(x)
    if n <= EXACT_P_MAX_N:
        return exact_p_value(x, y, method), "exact"
    floor = math.exp(-math.lgamma(n + 1))  # 0.0 past n = 170: no floor left to apply
    return (max(scipy_p, floor) if math.isfinite(scipy_p) else scipy_p), "scipy"


def _as_float(v: Any, name: str, i: int) -> float:
    x = number(v)
    if x is None:
        raise InputError(f"column {name!r}, row {i + 1}: {v!r} is not a number")
    return x


def as_numbers(values: Iterable[Any], name: str = "values") -> np.ndarray:
    """Floats, with missing cells as NaN; anything else that is not a number
    (``diveval.io.numbers``: "73_4", "inf" and true are not) is an InputError."""
    return np.array([_as_float(v, name, i) for i, v in enumerate(values)], dtype=float)


def _complete_pairs(x: np.ndarray, y: np.ndarray, x_name: str, y_name: str):
    if len(x) != len(y):
        raise InputError(f"{x_name!r} has {len(x)} values but {y_name!r} has {len(y)}")
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if len(x) < 3:
        raise InputError(
            f"{x_name!r} vs {y_name!r}: {len(x)} complete pairs; a correlation needs at least 3"
        )
    for arr, name in ((x, x_name), (y, y_name)):
        if np.ptp(arr) == 0:
            raise InputError(
                f"column {name!r} is constant ({arr[0]:g}); its correlation is undefined"
            )
    return x, y


def correlate(
    x: Sequence[Any] | np.ndarray,
    y: Sequence[Any] | np.ndarray,
    methods: Sequence[str] = METHODS,
    n_resamples: int | None = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    fraction: float = 1.0,
    replace: bool = True,
    seed: int | None = 0,
    x_name: str = "x",
    y_name: str = "y",
) -> dict[str, Correlation]:
    """{method: Correlation} of x with y. ``n_resamples=None`` or 0 skips the bootstrap.

    >>> round(correlate([1, 2, 3, 4], [1, 3, 2, 4], n_resamples=None)["spearman"].value, 2)
    0.8
    """
    xa, ya = _complete_pairs(as_numbers(x, x_name), as_numbers(y, y_name), x_name, y_name)
    out: dict[str, Correlation] = {}
    for method in methods:
        fn = _scipy_function(method)
        res = fn(xa, ya)
        interval = None
        if n_resamples:
            interval = bootstrap(
                lambda a, b, m=method: coefficient_rows(a, b, m),
                xa,
                ya,
                n_resamples=n_resamples,
                confidence=confidence,
                fraction=fraction,
                replace=replace,
                seed=seed,
                vectorized=True,
            )
        p, how = _p_value(xa, ya, method, float(res[1]))
        out[method] = Correlation(method, float(res[0]), p, len(xa), interval, how)
    return out


def _columns(data: Any) -> tuple[list[str], dict[str, list[Any]]]:
    """Accept a mapping of columns or a list of row dicts; keep column order."""
    if isinstance(data, Mapping):
        cols = {str(k): list(v) for k, v in data.items()}
        return list(cols), cols
    rows = list(data)
    if not rows:
        raise InputError("no rows to correlate")
    names: list[str] = []
    for r in rows:
        if not isinstance(r, Mapping):
            raise InputError(
                f"expected rows as mappings of column -> value, got {type(r).__name__}"
            )
        for k in r:
            if k not in names:
                names.append(k)
    return names, {k: [r.get(k) for r in rows] for k in names}


def numeric_columns(data: Any, exclude: Iterable[str] = ()) -> list[str]:
    """The columns that can be metrics, in file order: every non-missing cell a number (at least
    one), the name neither bookkeeping (``_`` first) nor an identifier (``context_id``, ``idx``);
    the rule is ``diveval.io.numbers``'."""
    names, cols = _columns(data)
    skip = set(exclude)
    out = []
    for name in names:
        if name in skip or is_label(name):
            continue
        vals = numbers_of(cols[name])
        if vals is not None and any(math.isfinite(v) for v in vals):
            out.append(name)
    return out


def correlate_columns(
    data: Any,
    human: str,
    metrics: Sequence[str] | None = None,
    methods: Sequence[str] = METHODS,
    group_by: str | None = None,
    n_resamples: int | None = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    fraction: float = 1.0,
    replace: bool = True,
    seed: int | None = 0,
    progress=None,
) -> dict[str | None, dict[str, dict[str, Correlation]]]:
    """Correlate every metric column with the ``human`` column.

    data: a mapping {column: values} or a list of row dicts (e.g. ``InputData.records``).
    metrics: the columns to test; by default every :func:`numeric_columns` column except ``human``
    and ``group_by`` (a column named here is used even if it is an identifier). group_by: a
    column whose values split the rows (e.g. the data set), each group correlated on its own.
    progress: wraps the iterable of (group, metric) jobs, e.g.
    ``diveval.progress.track``. Returns {group (None without group_by): {metric: {method:
    Correlation}}}.
    """
    names, cols = _columns(data)
    for needed in [human] + ([group_by] if group_by else []) + list(metrics or []):
        if needed not in cols:
            raise InputError(
                f"no column {needed!r}; columns are {', '.join(n for n in names if not n.startswith('_'))}"
            )
    if metrics is None:
        metrics = numeric_columns(cols, exclude=[human] + ([group_by] if group_by else []))
        if not metrics:
            raise InputError(
                f"no numeric column besides {human!r} to correlate (identifiers and columns "
                "starting with _ are never picked: name a metric column)"
            )
    n_rows = len(cols[human])
    if group_by:
        members: dict[str, list[int]] = {}
        for i, g in enumerate(cols[group_by]):
            members.setdefault(str(g), []).append(i)
        groups: dict[str | None, np.ndarray] = {g: np.array(ix) for g, ix in members.items()}
    else:
        groups = {None: np.arange(n_rows)}
    out: dict[str | None, dict[str, dict[str, Correlation]]] = {g: {} for g in groups}
    jobs = [(g, m) for g in groups for m in metrics]
    for g, m in progress(jobs) if progress is not None else jobs:
        ix = groups[g]
        label = f" (group {g})" if g is not None else ""
        out[g][m] = correlate(
            [cols[m][i] for i in ix],
            [cols[human][i] for i in ix],
            methods,
            n_resamples,
            confidence,
            fraction,
            replace,
            seed,
            x_name=m + label,
            y_name=human + label,
        )
    return out


def correlations_to_dict(
    result: Mapping[str | None, Mapping[str, Mapping[str, Correlation]]],
) -> dict:
    """JSON-ready form of ``correlate_columns``'s result."""
    return {
        ("all" if g is None else g): {
            m: {k: c.to_dict() for k, c in by.items()} for m, by in per.items()
        }
        for g, per in result.items()
    }
