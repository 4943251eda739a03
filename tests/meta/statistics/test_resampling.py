"""diveval.meta.statistics.resampling, the draws, p-values and intervals every paired test and
bootstrap shares, against independent implementations: scipy's permutation test, statsmodels' Holm,
numpy's quantiles; and its rules for degenerate resamples."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats as st

from diveval.errors import InputError
from diveval.meta.statistics.resampling import (
    bootstrap_p,
    finite_percentile_interval,
    holm,
    multiplicities,
    percentile_interval,
    resample_indices,
    sign_flip_p,
    swaps,
)

# -- Holm ------------------------------------------------------------------------------------------


def test_holm_by_its_definition():
    # m = 4: sorted .005 .01 .03 .04 times 4 3 2 1 = .02 .03 .06 .04, running max .02 .03 .06 .06
    got = holm([0.01, 0.04, 0.03, 0.005])
    assert got == pytest.approx([0.03, 0.06, 0.06, 0.02], abs=1e-15)
    assert holm([0.5, 0.9]).tolist() == [1.0, 1.0]  # capped at 1
    assert holm([]).size == 0


def test_holm_equals_statsmodels():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(0)
    for m in (1, 2, 5, 17, 60):
        p = rng.uniform(0, 0.2, m) ** 2
        p[: m // 3] = p[0]  # ties
        reject, adjusted, _, _ = multitest.multipletests(p, alpha=0.05, method="holm")
        assert holm(p) == pytest.approx(adjusted, abs=1e-15)
        assert ((holm(p) <= 0.05) == reject).all()


# -- the tests -------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 6, 9])
def test_exact_sign_flip_equals_scipy_permutation_test(n):
    rng = np.random.default_rng(n)
    for _ in range(5):
        d = np.round(rng.normal(0.3, 1, n), 2)
        ref = st.permutation_test(
            (d, np.zeros(n)),
            lambda x, y, axis: np.mean(x - y, axis=axis),
            permutation_type="samples",
            n_resamples=np.inf,
            alternative="two-sided",
            vectorized=True,
        )
        got = sign_flip_p(d, 2**n, np.random.default_rng(0))
        assert got == pytest.approx(min(1.0, ref.pvalue), rel=1e-12)


def test_monte_carlo_sign_flip_is_near_the_exact_value():
    rng = np.random.default_rng(3)
    d = rng.normal(0.25, 1, 14)
    exact = sign_flip_p(d, 2**14, rng)
    draws = 20_000
    mc = sign_flip_p(d, draws, np.random.default_rng(1))
    assert abs(mc - exact) < 4 * math.sqrt(exact * (1 - exact) / draws) + 1 / draws


def test_bootstrap_p_reads_the_centred_resamples():
    deltas = np.array([0.0, 1.0, 2.0, 3.0, 4.0])  # centred: -2 -1 0 1 2
    assert bootstrap_p(deltas, 1.5) == pytest.approx((1 + 2) / 6)
    assert bootstrap_p(deltas, 0.0) == 1.0


def test_multiplicities_are_counts_of_n_draws():
    w = multiplicities(7, 50, np.random.default_rng(0))
    assert w.shape == (50, 7) and (w.sum(axis=1) == 7).all() and (w >= 0).all()


def test_swaps_are_every_pattern_when_few_and_random_otherwise():
    pattern, exact = swaps(4, 100, np.random.default_rng(0))
    assert exact and pattern.shape == (16, 4)
    assert len({tuple(r) for r in pattern.tolist()}) == 16
    pattern, exact = swaps(10, 100, np.random.default_rng(0))
    assert not exact and pattern.shape == (100, 10) and set(np.unique(pattern)) <= {0, 1}


def test_resample_indices_with_and_without_replacement():
    idx = resample_indices(10, 50, seed=3)
    assert idx.shape == (50, 10) and idx.min() >= 0 and idx.max() <= 9
    half = resample_indices(10, 50, fraction=0.5, replace=False, seed=3)
    assert half.shape == (50, 5)
    assert all(len(set(r)) == 5 for r in half.tolist())  # no row repeats a row
    assert (resample_indices(10, 50, seed=3) == idx).all()  # seeded
    with pytest.raises(InputError):
        resample_indices(1, 10)


def test_percentile_interval_is_numpys_central_quantiles():
    values = np.random.default_rng(4).normal(size=999)
    low, high = percentile_interval(values, 0.9)
    assert [low, high] == pytest.approx(np.quantile(values, [0.05, 0.95]), rel=1e-15)


def test_non_finite_resamples_are_dropped_and_counted_and_too_many_give_no_interval():
    values = np.array([1.0, 2.0, np.nan, 3.0, 4.0, np.inf])
    low, high, dropped = finite_percentile_interval(values, 0.5)
    assert dropped == 2
    assert (low, high) == percentile_interval(np.array([1.0, 2.0, 3.0, 4.0]), 0.5)
    low, high, dropped = finite_percentile_interval(np.array([np.nan, np.nan, 1.0]), 0.5)
    assert math.isnan(low) and math.isnan(high) and dropped == 2
