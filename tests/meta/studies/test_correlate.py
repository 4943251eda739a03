"""Correlations against scipy.stats directly; column handling and the undefined cases."""

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hst

from diveval.errors import InputError
from diveval.meta.studies.correlate import (
    coefficient,
    coefficient_rows,
    correlate,
    correlate_columns,
    correlations_to_dict,
    numeric_columns,
)


def _data(seed=0, n=40):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = x + rng.normal(scale=1.5, size=n)
    return x, y


def test_values_and_p_values_equal_scipy():
    x, y = _data()
    res = correlate(x, y, n_resamples=None)
    for name, fn in (
        ("pearson", st.pearsonr),
        ("spearman", st.spearmanr),
        ("kendall", st.kendalltau),
    ):
        ref = fn(x, y)
        assert res[name].value == pytest.approx(ref[0], abs=1e-12)
        assert res[name].p_value == pytest.approx(ref[1], rel=1e-9)
        assert res[name].n == len(x)


def test_rowwise_coefficients_equal_scipy_with_ties():
    rng = np.random.default_rng(2)
    xs = rng.integers(0, 5, size=(30, 25)).astype(float)  # many ties
    ys = xs + rng.integers(0, 3, size=(30, 25))
    for method, fn in (
        ("pearson", st.pearsonr),
        ("spearman", st.spearmanr),
        ("kendall", st.kendalltau),
    ):
        got = coefficient_rows(xs, ys, method)
        want = [fn(a, b)[0] for a, b in zip(xs, ys)]
        np.testing.assert_allclose(got, want, atol=1e-12)
    const = coefficient_rows(np.ones((2, 5)), np.arange(10.0).reshape(2, 5), "pearson")
    assert np.isnan(const).all()


def test_bootstrap_interval_is_seeded_and_contains_estimate_for_strong_signal():
    x, y = _data(3, 80)
    a = correlate(x, y, ["spearman"], n_resamples=300, seed=5)["spearman"]
    b = correlate(x, y, ["spearman"], n_resamples=300, seed=5)["spearman"]
    assert (a.interval.low, a.interval.high) == (b.interval.low, b.interval.high)
    assert a.interval.low < a.value < a.interval.high


def test_missing_cells_are_dropped():
    # rows 2 (x empty), 4 (y "nan") and 5 (x None) are incomplete: pairs (1,2), (2,1), (4,5) remain
    res = correlate([1, 2, "", 4, 5, None], [2, 1, 3, 5, "nan", 6], ["pearson"], n_resamples=None)
    assert res["pearson"].n == 3
    assert res["pearson"].value == pytest.approx(st.pearsonr([1.0, 2.0, 4.0], [2.0, 1.0, 5.0])[0])


def test_undefined_cases_raise_input_error():
    with pytest.raises(InputError, match="constant"):
        correlate([1, 1, 1, 1], [1, 2, 3, 4], n_resamples=None, x_name="flat")
    with pytest.raises(InputError, match="at least 3"):
        correlate([1, 2], [1, 2], n_resamples=None)
    with pytest.raises(InputError, match="not a number"):
        correlate([1, "x", 3], [1, 2, 3], n_resamples=None)
    assert np.isnan(coefficient([1, 1, 1], [1, 2, 3]))


def test_correlate_columns_groups_and_default_metrics():
    rows = []
    rng = np.random.default_rng(4)
    for g in ("A", "B"):
        for i in range(12):
            h = rng.normal()
            rows.append(
                {
                    "group": g,
                    "system": f"s{i}",
                    "human": h,
                    "m1": h + rng.normal(scale=0.3),
                    "m2": str(rng.normal()),
                }
            )
    assert numeric_columns(rows, exclude=["human", "group"]) == ["m1", "m2"]
    res = correlate_columns(rows, "human", group_by="group", n_resamples=50)
    assert set(res) == {"A", "B"} and set(res["A"]) == {"m1", "m2"}
    sub = [r for r in rows if r["group"] == "B"]
    ref = st.kendalltau([r["m1"] for r in sub], [r["human"] for r in sub])[0]
    assert res["B"]["m1"]["kendall"].value == pytest.approx(ref)
    js = correlations_to_dict(res)
    assert js["A"]["m1"]["spearman"]["interval"]["n_resamples"] == 50
    with pytest.raises(InputError, match="no column"):
        correlate_columns(rows, "nope")


@settings(max_examples=25, deadline=None)
@given(hst.lists(hst.tuples(hst.floats(-100, 100), hst.floats(-100, 100)), min_size=4, max_size=30))
def test_symmetry_and_bounds(pairs):
    x = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return
    a = correlate(x, y, n_resamples=None)
    b = correlate(y, x, n_resamples=None)
    for m in a:
        assert -1 - 1e-12 <= a[m].value <= 1 + 1e-12
        assert a[m].value == pytest.approx(b[m].value, abs=1e-9)


def test_ids_bookkeeping_and_underscored_numbers_are_never_default_metrics():
    rng = np.random.default_rng(1)
    rows = [
        {
            "context_id": f"{i}_4",  # float("73_4") is 734 in Python: an id, not a number
            "turn_id": i,
            "idx": i,
            "_n": 100,
            "human": float(h),
            "m": float(h + rng.normal(scale=0.5)),
            "inf_word": "inf",
        }
        for i, h in enumerate(rng.normal(size=10))
    ]
    assert numeric_columns(rows, exclude=["human"]) == ["m"]
    assert set(correlate_columns(rows, "human", n_resamples=0)[None]) == {"m"}
    # named explicitly, an id column is the user's choice
    named = correlate_columns(rows, "human", metrics=["turn_id"], n_resamples=0)
    assert named[None]["turn_id"]["spearman"].n == 10
    with pytest.raises(InputError, match=r"'context_id', row 1: '0_4' is not a number"):
        correlate_columns(rows, "human", metrics=["context_id"], n_resamples=0)


def test_tiny_n_gets_exact_permutation_p_values_never_zero():
    # a perfect ordering of 3 pairs: scipy's t-based Spearman p and beta-based Pearson p are 0,
    # yet 2 of the 6 orderings (up and down) are perfect: p = 1/3 exactly
    assert st.spearmanr([1, 2, 3], [1, 2, 3])[1] == 0.0  # the failure this guards against
    res = correlate([1, 2, 3], [10, 20, 30], n_resamples=None)
    for m in ("pearson", "spearman", "kendall"):
        assert res[m].p_value == pytest.approx(1 / 3, abs=1e-15) and res[m].p_method == "exact"
        assert correlations_to_dict({None: {"x": res}})


@pytest.mark.parametrize("n", [4, 5, 6])
def test_exact_p_values_equal_a_loop_over_every_ordering(n):
    import itertools

    rng = np.random.default_rng(n)
    x = rng.normal(size=n)
    y = x + rng.normal(size=n)
    y[0] = y[1]  # a tie in y
    res = correlate(x, y, n_resamples=None)
    for method, fn in (
        ("pearson", st.pearsonr),
        ("spearman", st.spearmanr),
        ("kendall", st.kendalltau),
    ):
        observed = abs(fn(x, y)[0])
        coefs = [abs(fn(x, y[list(p)])[0]) for p in itertools.permutations(range(n))]
        want = np.mean([c >= observed - 1e-12 for c in coefs])
        assert res[method].p_value == pytest.approx(want, abs=1e-15), method
        assert res[method].p_method == "exact"


def test_exact_kendall_equals_scipy_exact_without_ties():
    x = [0.3, 1.2, 0.7, 2.5, 1.9, 3.1]
    y = [1.0, 0.4, 2.2, 1.8, 3.3, 2.9]
    ref = st.kendalltau(x, y, method="exact")
    assert correlate(x, y, ["kendall"], n_resamples=None)["kendall"].p_value == pytest.approx(
        ref[1], abs=1e-12
    )


def test_above_the_exact_limit_scipy_p_is_kept_and_never_below_one_over_n_factorial():
    import math

    from diveval.meta.studies.correlate import EXACT_P_MAX_N

    x, y = _data(4, EXACT_P_MAX_N + 12)
    res = correlate(x, y, n_resamples=None)
    assert res["spearman"].p_method == "scipy"
    assert res["spearman"].p_value == pytest.approx(st.spearmanr(x, y)[1], rel=1e-9)
    n = EXACT_P_MAX_N + 1
    perfect = correlate(list(range(n)), list(range(n)), ["spearman"], n_resamples=None)
    assert st.spearmanr(list(range(n)), list(range(n)))[1] == 0.0
    assert perfect["spearman"].p_value == pytest.approx(1 / math.factorial(n), rel=1e-12)
