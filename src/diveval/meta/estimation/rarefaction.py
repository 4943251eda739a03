"""Rarefaction and extrapolation of richness and Hill numbers (Chao et al. 2014), with Chao1 and
the asymptotic Hill estimates: how many distinct answers a model would show at m responses.

The input is an abundance vector: how many of a set's n responses fall in each class (an
equivalence class of answers, NoveltyBench's judge). For m < n the estimates are exact
expectations over the m-subsets (rarefaction); for m > n they extrapolate (Chao et al. 2014):

- q = 0 (richness): S(m) = sum_i [1 - C(n - X_i, m) / C(n, m)] for m <= n;
  S(n + m*) = S_obs + f0 [1 - (1 - f1 / (n f0 + f1))^m*] past n, f0 = Chao1's unseen classes,
  (n-1)/n f1^2 / (2 f2), or (n-1)/n f1 (f1 - 1) / 2 when f2 = 0 (copia's bias-corrected form);
- q = 1 (exponential of Shannon entropy): exp(E[H]) with E[H] = -sum_k (k/m) log(k/m) f_k(m),
  f_k(m) the expected number of classes seen k times in m draws, for m < n;
  exp((n/m) H_obs + (1 - n/m) H_est) past n, H_est = Chao, Wang & Jost (2013)'s entropy;
- q = 2 (inverse Simpson): 1 / (1/m + (1 - 1/m) sum X_i (X_i - 1) / (n (n - 1))) for every m
  (for m <= n it is 1 / E[Simpson index of the m-subsample], exactly).

The asymptotes (m -> infinity) are Chao1 (q = 0), exp(H_est) (q = 1) and
1 / sum X_i (X_i - 1) / (n (n - 1)) (q = 2): :func:`estimated_hill`, equal to copia 0.1.4's
``hill.estimated_hill`` and ``richness.chao1``; q = 0's curve equals its
``stats.rarefaction_extrapolation``. Copia has no curve for q = 1 and 2: theirs are the formulas of
Chao et al. (2014) as iNEXT's appendix code writes them, with copia's conventions for H_est.

Sample-based (incidence) data, e.g. n-gram types counted once per response that holds them, use
the q = 0 formulas with ``units`` = the number of responses in place of n (Chao et al. 2014,
sample-based rarefaction and extrapolation; Colwell et al. 2012).

Intervals: Chao et al. (2014)'s bootstrap, as copia computes it (``stats.bootstrap``): the
observed classes get detection probabilities adjusted by the estimated coverage, ceil(f0)
unseen classes share the missing coverage, ``resamples`` multinomial samples of n are drawn
(numpy ``RandomState(seed)``, as copia), and the interval is the estimate minus / plus the
distances of the bootstrap mean to the bootstrap's percentiles. With the same seed the interval
equals copia's. Incidence data resample each type's incidence as Binomial(units, p) (iNEXT's
sample-based bootstrap), where copia has no counterpart.

Several sets (one per prompt): the estimate is the mean over sets at each m; each bootstrap
replicate is the mean of one replicate of every set (sets resampled independently), so the
interval is that of the mean of the sets' estimates. One set gives copia's numbers.

:func:`curve` returns the estimators' own numbers (copia's); :func:`feasible` moves those that
leave their feasible range (a Hill number of m draws lies in [1, m]; D_0 >= D_1 >= D_2) into it,
listing each move: what :func:`diveval.meta.estimation.rarefaction_curves.rarefy` reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Sequence

import numpy as np
from scipy.special import digamma, gammaln

from ...constants import DEFAULT_CONFIDENCE
from ...errors import InputError
from ...lexical.expected import miss_probability
from ...options import OPTION

ORDERS = (0, 1, 2)
DEFAULT_RESAMPLES: int = OPTION["rarefy_resamples"].default
KNOTS = 40  # points of a default curve (iNEXT's default), from 1 to twice the largest set


def _counts(x: Any) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    if a.ndim != 1 or np.any(a < 0) or np.any(a != np.round(a)):
        raise InputError("an abundance vector holds non-negative whole counts")
    return a[a > 0]


# -- the estimators on frequency tables -----------------------------------------------------
# Every estimator depends on a sample only through its frequency counts f_c (the number of classes
# seen c times): a table holds one row per sample (all of the same size n), column c - 1 = f_c.
# Bootstrap samples full of unseen classes (sample-based n-gram data: thousands) stay small.


def table(rows: np.ndarray, width: int | None = None) -> np.ndarray:
    """Frequency counts of each row of counts (zeros ignored): (rows x width), column c-1 = f_c."""
    rows = np.atleast_2d(np.asarray(rows)).astype(np.int64)
    top = int(rows.max(initial=0))
    width = max(width or 0, top, 2)
    offset = np.arange(rows.shape[0], dtype=np.int64)[:, None] * (width + 1)
    flat = np.bincount((rows + offset).ravel(), minlength=rows.shape[0] * (width + 1))
    return flat.reshape(rows.shape[0], width + 1)[:, 1:].astype(float)


def _c(f: np.ndarray) -> np.ndarray:
    return np.arange(1, f.shape[1] + 1, dtype=float)


def _unseen(f: np.ndarray, n: float) -> np.ndarray:
    """Chao1's f0 of each row: (n-1)/n f1^2 / (2 f2), or (n-1)/n f1 (f1 - 1) / 2 when f2 = 0."""
    f1, f2 = f[:, 0], f[:, 1]
    ratio = np.divide(f1 * f1, 2 * f2, out=f1 * (f1 - 1) / 2, where=f2 > 0)
    return (n - 1) / n * ratio


def _richness(f: np.ndarray, m: float, n: float) -> np.ndarray:
    if m <= n:
        return f @ (1.0 - miss_probability(_c(f), n, m))
    s_obs, f1 = f.sum(axis=1), f[:, 0]
    f0 = _unseen(f, n)
    denom = n * f0 + f1
    keep = np.divide(n * f0, denom, out=np.zeros_like(f0), where=denom > 0)
    return np.where(f1 == 0, s_obs, s_obs + f0 * (1 - keep ** (m - n)))


def _entropy(f: np.ndarray, n: float) -> np.ndarray:
    """Chao, Wang & Jost (2013)'s Shannon entropy estimate (nats) of each row, as copia's
    ``_chao_7b`` computes it (its series for the unseen part included)."""
    c = _c(f)
    first = f @ (c / n * (digamma(n) - digamma(c)))
    f1, f2 = f[:, 0], f[:, 1]
    p1 = np.where(
        f2 > 0,
        2 * f2 / np.maximum((n - 1) * f1 + 2 * f2, 1e-300),
        np.where(f1 > 0, 2 / np.maximum((n - 1) * (f1 - 1) + 2, 1e-300), 1.0),
    )
    r = np.arange(1, int(n), dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        tail = -np.log(p1) - ((1 - p1)[:, None] ** r / r).sum(axis=1)
        second = f1 / n * (1 - p1) ** (1 - n) * tail
    return first + np.where((f1 == 0) | (p1 == 1), 0.0, second)


def _observed_entropy(f: np.ndarray, n: float) -> np.ndarray:
    p = _c(f) / n
    return f @ (-p * np.log(p))


def _shannon(f: np.ndarray, m: float, n: float) -> np.ndarray:
    if m < n:
        k = np.arange(1, int(m) + 1, dtype=float)
        x = _c(f)[:, None]
        # P(a class of x members is drawn k times in m of n draws): hypergeometric, as logs
        possible = (k <= x) & (m - k <= n - x)
        logp = (
            gammaln(x + 1)
            - gammaln(k + 1)
            - gammaln(np.maximum(x - k, 0) + 1)
            + gammaln(np.maximum(n - x, 0) + 1)
            - gammaln(m - k + 1)
            - gammaln(np.maximum(n - x - m + k, 0) + 1)
            - (gammaln(n + 1) - gammaln(m + 1) - gammaln(n - m + 1))
        )
        prob = np.where(possible, np.exp(np.where(possible, logp, 0.0)), 0.0)
        fk = f @ prob  # expected classes seen k times in m draws, per row
        return np.exp(fk @ (-k / m * np.log(k / m)))
    observed = _observed_entropy(f, n)
    if m == n:
        return np.exp(observed)
    w = (m - n) / m
    return np.exp(w * _entropy(f, n) + (1 - w) * observed)


def _simpson_sum(f: np.ndarray, n: float) -> np.ndarray:
    if n < 2:
        return np.full(f.shape[0], np.nan)
    c = _c(f)
    return f @ (c * (c - 1)) / (n * (n - 1))


def _simpson(f: np.ndarray, m: float, n: float) -> np.ndarray:
    return 1 / (1 / m + (1 - 1 / m) * _simpson_sum(f, n))


def _asymptote(f: np.ndarray, q: int, n: float) -> np.ndarray:
    if q == 0:
        return f.sum(axis=1) + _unseen(f, n)
    if q == 1:
        return np.exp(_entropy(f, n))
    s = _simpson_sum(f, n)
    with np.errstate(divide="ignore"):
        return np.where(s > 0, 1 / np.where(s > 0, s, 1.0), np.nan)


def _empirical(f: np.ndarray, q: int, n: float) -> np.ndarray:
    if q == 0:
        return f.sum(axis=1)
    if q == 1:
        return np.exp(_observed_entropy(f, n))
    return 1 / (f @ (_c(f) / n) ** 2)


_CURVES = (_richness, _shannon, _simpson)


def _check_order(q: Any, units: Any) -> int:
    if q not in ORDERS:
        raise InputError(f"rarefaction and extrapolation are for q = 0, 1, 2, not q = {q}")
    if units is not None and q != 0:
        raise InputError("sample-based (incidence) data are rarefied at q = 0 only")
    return int(q)


def _hill_rows(f: np.ndarray, q: int, sizes: np.ndarray, n: float) -> np.ndarray:
    """(rows x sizes) estimates of order q from the frequency table ``f``."""
    fn = _CURVES[q]
    return np.stack([fn(f, float(m), n) for m in sizes], axis=1)


# -- one sample ------------------------------------------------------------------------------


def unseen(x: Any, units: float | None = None) -> float:
    """Chao1's estimate of the classes not seen, f0 (copia's bias-corrected form)."""
    x = _counts(x)
    n = float(units) if units is not None else float(x.sum())
    return float(_unseen(table(x), n)[0]) if n > 0 else 0.0


def chao1(x: Any) -> float:
    """Bias-corrected Chao1 (Chao 1984; Chao & Jost 2012): S_obs + f0 (``copia.richness.chao1``)."""
    x = _counts(x)
    return float(x.size + unseen(x))


def estimated_hill(x: Any, q: int) -> float:
    """The asymptotic Hill number of order q = 0, 1 or 2 (``copia.hill.estimated_hill``): Chao1,
    exp of the entropy estimate, and 1 / sum X(X-1) / (n(n-1)) (nan when that sum is 0: every
    class seen once, or n = 1, as copia)."""
    x = _counts(x)
    return float(_asymptote(table(x), _check_order(q, None), float(x.sum()))[0])


def empirical_hill(x: Any, q: int) -> float:
    """The observed Hill number of order q: classes, exp(Shannon), inverse Simpson."""
    x = _counts(x)
    return float(_empirical(table(x), _check_order(q, None), float(x.sum()))[0])


def hill_at(x: Any, q: int, sizes: Sequence[float], units: float | None = None) -> np.ndarray:
    """The Hill number of order q expected at each sample size in ``sizes`` (rarefied below the
    sample's size, extrapolated above it). ``units``: sample-based data (q = 0 only), the number
    of sampling units behind the incidence counts ``x``."""
    x = _counts(x)
    q = _check_order(q, units)
    n = float(units) if units is not None else float(x.sum())
    if n <= 0 or x.size == 0:
        return np.zeros(len(sizes))
    return _hill_rows(table(x), q, np.asarray(sizes, dtype=float), n)[0]


def bootstrap_probabilities(x: Any) -> np.ndarray:
    """Chao et al. (2014)'s bootstrap assemblage (iNEXT's EstiBootComm.Ind, copia's ``bt_prob``):
    the observed classes' probabilities, then ceil(f0) unseen classes sharing 1 - coverage."""
    x = _counts(x)
    n = float(x.sum())
    f1, f2 = int(np.count_nonzero(x == 1)), int(np.count_nonzero(x == 2))
    if f2 > 0:
        a = (n - 1) * f1 / ((n - 1) * f1 + 2 * f2)
    elif f1 > 0:
        a = (n - 1) * (f1 - 1) / ((n - 1) * (f1 - 1) + 2)
    else:
        a = 0.0
    missing = f1 / n * a  # 1 - estimated coverage
    share = x / n
    tail = float(np.sum(share * (1 - share) ** n))
    w = missing / tail if missing > 0 else 0.0  # one class holding everything: no tail, no gap
    p = share * (1 - w * (1 - share) ** n)
    f0 = int(np.ceil(unseen(x)))
    if f0 > 0:
        p = np.concatenate([p, np.full(f0, missing / f0)])
    return p


def _incidence_probabilities(x: np.ndarray, units: float) -> tuple[np.ndarray, float, int]:
    """iNEXT's sample-based bootstrap assemblage (EstiBootComm.Sam): each seen type's chance to
    be in one unit; and the chance of each of the ceil(Q0) unseen types, and their number."""
    total = float(x.sum())
    q1 = int(np.count_nonzero(x == 1))
    q0 = unseen(x, units)
    a = units * q0 / (units * q0 + q1) if q1 > 0 else 1.0
    missing = q1 / total * a if q1 > 0 else 0.0
    share = x / units
    tail = float(np.sum(share * (1 - share) ** units))
    w = missing / tail * total / units if missing > 0 and tail > 0 else 0.0
    p = np.clip(share * (1 - w * (1 - share) ** units), 0.0, 1.0)
    extra = int(np.ceil(q0))
    p0 = min(missing / extra * total / units, 1.0) if extra > 0 else 0.0
    return p, p0, extra


def bootstrap_tables(
    x: Any, resamples: int, rng: np.random.RandomState, units: float | None = None
) -> np.ndarray:
    """The frequency tables of ``resamples`` bootstrap samples of ``x``: copia's draw,
    ``rng.multinomial(n, p, resamples)``, for abundance data; for incidence data (``units``),
    each seen type in Binomial(units, p) units and the unseen types' counts drawn together
    (their number seen c times is multinomial over the Binomial(units, p0) probabilities)."""
    x = _counts(x)
    if units is None:
        n = int(x.sum())
        return table(rng.multinomial(n, bootstrap_probabilities(x), resamples), n)
    t = int(units)
    p, p0, extra = _incidence_probabilities(x, float(units))
    f = table(rng.binomial(t, p, size=(resamples, p.size)), t)
    if extra > 0:
        from scipy.stats import binom

        pmf = binom.pmf(np.arange(t + 1), t, p0)
        f[:, :t] += rng.multinomial(extra, pmf / pmf.sum(), resamples)[:, 1:]
    return f


@dataclass(frozen=True)
class Curve:
    """One measure's rarefaction / extrapolation curve, the mean over sets at each size.

    sizes: sample sizes m; value, low, high: the estimate and its interval at each; observed:
    the sets' mean size (the curve is rarefied below it, extrapolated above it, per set);
    asymptote (low, high): the mean asymptotic estimate (Chao1 / estimated Hill) and interval.
    """

    q: int
    sizes: np.ndarray
    value: np.ndarray
    low: np.ndarray
    high: np.ndarray
    observed: float
    asymptote: float
    asymptote_low: float
    asymptote_high: float
    empirical: float  # mean observed Hill number of the sets
    sets: int
    resamples: int
    seed: int
    confidence: float
    extra: dict[str, Any] = field(default_factory=dict)

    def at(self, m: float) -> tuple[float, float, float]:
        """(estimate, low, high) at size m, which must be one of ``sizes``."""
        hit = np.flatnonzero(self.sizes == m)
        if hit.size == 0:
            raise InputError(f"the curve has no point at m = {m}")
        i = int(hit[0])
        return float(self.value[i]), float(self.low[i]), float(self.high[i])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; an undefined number (nan: the q = 2 asymptote of sets with no class seen
        twice) is None, never a bare NaN."""
        out = {
            "q": self.q,
            "sizes": self.sizes.tolist(),
            "value": [finite_or_none(v) for v in self.value],
            "low": [finite_or_none(v) for v in self.low],
            "high": [finite_or_none(v) for v in self.high],
            "observed": self.observed,
            "empirical": self.empirical,
            "asymptote": finite_or_none(self.asymptote),
            "asymptote_interval": [
                finite_or_none(self.asymptote_low),
                finite_or_none(self.asymptote_high),
            ],
            "sets": self.sets,
            "resamples": self.resamples,
            "seed": self.seed,
            "confidence": self.confidence,
        }
        if "smallest" in self.extra:
            out["extrapolation_limit"] = 2 * self.extra["smallest"]
        if "clipped" in self.extra:
            out["clipped"] = list(self.extra["clipped"])
        return out


def finite_or_none(x: float) -> float | None:
    """``x`` as a float, or None where it is nan or infinite (JSON has no NaN)."""
    return float(x) if np.isfinite(x) else None


# -- the feasible range of a reported number ---------------------------------------------------
# Every Hill number of a sample of m lies in [1, m], and D_0 >= D_1 >= D_2 for any distribution
# (Chao et al. 2014). The estimators do not all keep to it: rarefaction (m <= n) does, being exact
# expectations; the q = 1 extrapolation gives the entropy estimate a weight that grows with m (on
# ten answers all different it reaches 25.9 at m = 20), and the shifted bootstrap interval can end
# past m or below 1. The reported numbers are moved into the range by the rules below, and each
# move is listed, so that no infeasible number is printed bare.

RANGE_RULE = "1 <= D_q(m) <= m"
INCIDENCE_RULE = "0 <= S(m)"
ORDER_RULE = "D_0 >= D_1 >= D_2"
_TOLERANCE = 1e-9  # a change smaller than this (relative) is rounding, not worth a word


def _cap(x: np.ndarray, top: np.ndarray) -> np.ndarray:
    """min(x, top) where both are defined; x as it is where either is nan (undefined stays so)."""
    return np.where(np.isfinite(x) & np.isfinite(top), np.minimum(x, top), x)


def _moves(
    what: str,
    sizes: np.ndarray | None,
    raw: np.ndarray,
    ranged: np.ndarray,
    final: np.ndarray,
    range_rule: str,
) -> list[dict[str, Any]]:
    def moved(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        both = np.isfinite(a) & np.isfinite(b)
        return both & (np.abs(b - a) > _TOLERANCE * np.maximum(1.0, np.abs(a)))

    return [
        {
            "what": what,
            "m": None if sizes is None else float(sizes[i]),
            "raw": float(raw[i]),
            "reported": float(final[i]),
            "rule": ORDER_RULE if moved(ranged, final)[i] else range_rule,
        }
        for i in np.flatnonzero(moved(raw, final))
    ]


def feasible(curves: Sequence[Curve], incidence: bool = False) -> list[Curve]:
    """The curves of one measure (one per order, on the same sizes), each estimate and interval
    bound moved into its feasible range, by two rules in turn:

    - range (``1 <= D_q(m) <= m``): the value and both bounds at m clipped to [1, m]; the asymptote
      and its bounds raised to at least 1. Sample-based data (``incidence``: n-gram types in m
      responses, many per response, none in a response shorter than n) have no such range: only
      negative bounds are raised to 0 (``0 <= S(m)``);
    - order (``D_0 >= D_1 >= D_2``, among the orders in ``curves``): each order's value and upper
      bound capped by those of the next lower order, then its lower bound by its own value, so the
      interval still holds the estimate.

    A number already in its range is left exactly as it is. Each number moved is listed in the
    returned curve's ``extra["clipped"]`` (what, m or None for the asymptote, raw, reported, rule).
    An undefined (nan) number stays undefined and caps nothing.
    """
    out: list[Curve] = []
    below: Curve | None = None
    for c in sorted(curves, key=lambda c: c.q):
        if below is not None and not np.array_equal(below.sizes, c.sizes):
            raise ValueError("the orders' curves of one measure share their sizes")  # a slip
        top = np.full(c.sizes.shape, np.inf) if incidence else c.sizes
        least = 0.0 if incidence else 1.0
        ranged = [np.clip(a, least, top) for a in (c.value, c.low, c.high)]
        asym = np.array([c.asymptote, c.asymptote_low, c.asymptote_high])
        a_ranged = np.where(np.isfinite(asym), np.maximum(asym, least), asym)
        value, low, high = ranged
        a_final = a_ranged.copy()
        if below is not None:
            value = _cap(value, below.value)
            high = _cap(high, below.high)
            a_final[0] = _cap(a_final[:1], np.array([below.asymptote]))[0]
            a_final[2] = _cap(a_final[2:], np.array([below.asymptote_high]))[0]
        low = _cap(low, value)
        a_final[1] = _cap(a_final[1:2], a_final[:1])[0]
        rule = INCIDENCE_RULE if incidence else RANGE_RULE
        clipped = [
            *_moves("value", c.sizes, c.value, ranged[0], value, rule),
            *_moves("low", c.sizes, c.low, ranged[1], low, rule),
            *_moves("high", c.sizes, c.high, ranged[2], high, rule),
        ]
        for i, what in enumerate(("value", "low", "high")):
            clipped += _moves(
                what, None, asym[i : i + 1], a_ranged[i : i + 1], a_final[i : i + 1], rule
            )
        new = replace(
            c,
            value=value,
            low=low,
            high=high,
            asymptote=float(a_final[0]),
            asymptote_low=float(a_final[1]),
            asymptote_high=float(a_final[2]),
            extra={**c.extra, "clipped": clipped},
        )
        out.append(new)
        below = new
    return out


def shifted_interval(
    estimate: np.ndarray, replicates: np.ndarray, confidence: float
) -> tuple[np.ndarray, np.ndarray]:
    """copia's bootstrap interval: the estimate minus (bootstrap mean - lower percentile) and
    plus (upper percentile - bootstrap mean), per column of ``replicates``."""
    tail = (1 - confidence) / 2
    mean = replicates.mean(axis=0)
    low = estimate - (mean - np.quantile(replicates, tail, axis=0))
    high = estimate + (np.quantile(replicates, 1 - tail, axis=0) - mean)
    return low, high


def default_sizes(largest: int, target: int | None = None) -> np.ndarray:
    """About ``KNOTS`` whole sizes from 1 to twice the largest set (and ``target``), with every
    set size itself."""
    end = max(2 * largest, target or 0, 2)
    grid = np.unique(np.round(np.linspace(1, end, KNOTS)).astype(int))
    extra = [largest] + ([target] if target else [])
    return np.unique(np.concatenate([grid, np.array(extra, dtype=int)]))


def curve(
    samples: Sequence[Any],
    q: int,
    sizes: Sequence[float] | np.ndarray | None = None,
    *,
    units: Sequence[float] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Curve:
    """The mean curve of order q over ``samples`` (one abundance vector per set; with ``units``,
    incidence counts and each set's number of responses), with bootstrap intervals."""
    if not samples:
        raise InputError("rarefaction needs at least one set")
    if not 0 < confidence < 1:
        raise InputError(f"confidence must be in (0, 1), got {confidence}")
    if resamples < 2:
        raise InputError(f"the bootstrap needs at least 2 resamples, got {resamples}")
    xs = [_counts(x) for x in samples]
    ns = [float(u) for u in units] if units is not None else [float(x.sum()) for x in xs]
    if min(ns) < 2:
        raise InputError("rarefaction and extrapolation need at least 2 responses per set")
    grid = (
        np.asarray(sizes, dtype=float)
        if sizes is not None
        else default_sizes(int(max(ns))).astype(float)
    )
    if grid.size == 0 or np.any(grid < 1):
        raise InputError("sample sizes for rarefaction are whole numbers of at least 1")
    q = _check_order(q, units)
    rng = np.random.RandomState(seed)
    estimate = np.zeros(grid.size)
    reps = np.zeros((resamples, grid.size))
    asym, asym_reps, empirical = 0.0, np.zeros(resamples), 0.0
    undefined = 0  # sets whose asymptote is infinite (q = 2, no class seen twice)
    for x, n in zip(xs, ns):
        row = table(x)
        estimate += _hill_rows(row, q, grid, n)[0]
        one = float(_asymptote(row, q, n)[0])
        undefined += not np.isfinite(one)
        asym += one
        empirical += float(_empirical(row, q, n)[0])
        boot = bootstrap_tables(x, resamples, rng, n if units is not None else None)
        reps += _hill_rows(boot, q, grid, n)
        asym_reps += _asymptote(boot, q, n)
    k = len(xs)
    estimate, reps, asym, asym_reps = estimate / k, reps / k, asym / k, asym_reps / k
    low, high = shifted_interval(estimate, reps, confidence)
    if np.all(np.isfinite(asym_reps)) and np.isfinite(asym):
        a_low, a_high = shifted_interval(np.array([asym]), asym_reps[:, None], confidence)
        a_lo, a_hi = float(a_low[0]), float(a_high[0])
    else:  # q = 2 with every class seen once: no finite asymptote (copia: nan)
        a_lo = a_hi = float("nan")
    extra = {
        "undefined_sets": undefined,
        "undefined_resamples": int(np.count_nonzero(~np.isfinite(asym_reps))),
        "smallest": float(min(ns)),
    }
    return Curve(
        q,
        grid,
        estimate,
        low,
        high,
        float(np.mean(ns)),
        float(asym),
        a_lo,
        a_hi,
        empirical / k,
        k,
        resamples,
        seed,
        confidence,
        extra,
    )
