"""Seeded percentile bootstrap: reproducibility, coverage sanity, the half-sample variant."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diveval.errors import InputError
from diveval.meta.statistics.bootstrap import bootstrap, half_sample_bootstrap, resample_indices


def test_same_seed_same_interval_other_seed_differs():
    rng = np.random.default_rng(1)
    x = rng.normal(size=60)
    a = bootstrap(np.mean, x, seed=7)
    b = bootstrap(np.mean, x, seed=7)
    c = bootstrap(np.mean, x, seed=8)
    assert (a.low, a.high) == (b.low, b.high)
    assert (a.low, a.high) != (c.low, c.high)


def test_percentiles_match_numpy_on_the_same_indices():
    x = np.arange(30, dtype=float) ** 1.5
    interval, values = bootstrap(np.mean, x, n_resamples=500, seed=3, return_values=True)
    idx = resample_indices(len(x), 500, seed=3)
    expected = x[idx].mean(axis=1)
    np.testing.assert_allclose(values, expected)
    lo, hi = np.quantile(expected, [0.025, 0.975])
    assert interval.low == pytest.approx(lo) and interval.high == pytest.approx(hi)


def test_coverage_of_the_mean_is_near_nominal():
    # 200 experiments, normal data with known mean 0: a 90% interval should cover ~90% of the time.
    rng = np.random.default_rng(0)
    hits = 0
    trials = 200
    for t in range(trials):
        x = rng.normal(size=50)
        iv = bootstrap(np.mean, x, n_resamples=400, confidence=0.9, seed=t)
        hits += iv.low <= 0.0 <= iv.high
    assert 0.80 <= hits / trials <= 0.97


def test_half_sample_variant_draws_half_the_rows():
    x = np.arange(101, dtype=float)
    iv = half_sample_bootstrap(np.mean, x, seed=0)
    assert iv.sample_size == 50 and iv.n_resamples == 1000 and iv.replace
    full = bootstrap(np.mean, x, seed=0)
    # Half-size resamples vary more: the interval is wider.
    assert (iv.high - iv.low) > (full.high - full.low)


def test_without_replacement_rows_are_distinct():
    idx = resample_indices(20, 50, fraction=0.5, replace=False, seed=1)
    assert idx.shape == (50, 10)
    assert all(len(set(row)) == 10 for row in idx)


def test_degenerate_resamples_are_dropped_and_counted():
    x = np.array([0.0] * 18 + [1.0, 2.0])
    stat = lambda a: np.nan if np.ptp(a) == 0 else a.mean()  # noqa: E731
    iv = bootstrap(stat, x, n_resamples=300, fraction=0.2, seed=0)
    assert iv.dropped > 0
    assert iv.ok == (iv.dropped * 2 <= 300)


def test_bad_arguments():
    with pytest.raises(InputError):
        bootstrap(np.mean, [1.0])
    with pytest.raises(InputError):
        bootstrap(np.mean, [1.0, 2.0], fraction=0)
    with pytest.raises(InputError):
        bootstrap(np.mean, [1.0, 2.0], confidence=1.5)
    with pytest.raises(InputError):
        bootstrap(lambda a, b: 0.0, [1.0, 2.0], [1.0])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3), min_size=3, max_size=40), st.integers(0, 2**31))
def test_interval_brackets_within_data_range(values, seed):
    x = np.array(values)
    iv = bootstrap(np.mean, x, n_resamples=50, seed=seed)
    assert x.min() - 1e-9 <= iv.low <= iv.high <= x.max() + 1e-9
