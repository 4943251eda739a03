"""Rarefaction and extrapolation (Chao et al. 2014) against copia 0.1.4, run here on the same
abundance vectors, and against brute-force enumeration of every subset where copia has no curve
(q = 1, 2; sample-based data)."""

from __future__ import annotations

import itertools
import warnings
from functools import partial

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from diveval.errors import InputError
from diveval.meta.estimation import rarefaction as R

# Abundance vectors: singletons and doubletons (the estimators' inputs), none of one or both, one
# class holding everything, and a long tail; copia's own series is exact in double precision here
VECTORS = [
    [5, 3, 2, 2, 1, 1, 1, 4],
    [1, 1, 1, 1, 1],
    [2, 2, 2, 1],
    [3, 3, 4],
    [10],
    [7, 1],
    [1, 2],
    [12, 9, 5, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1],
    [4, 1, 1, 1, 1, 1, 1, 1, 3, 2],
]


@pytest.fixture(scope="module")
def copia():
    pytest.importorskip("copia", reason="copia 0.1.4 is the reference (test extra)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import copia.hill
        import copia.richness
        import copia.stats
    return copia


@pytest.mark.parametrize("x", VECTORS)
def test_richness_curve_equals_copia(copia, x):
    x = np.array(x)
    steps = 3 * int(x.sum()) + 5  # copia: m = 1 .. steps - 1, rarefied then extrapolated
    theirs = copia.stats.rarefaction_extrapolation(x.copy(), steps)
    ours = R.hill_at(x, 0, np.arange(1, steps))
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9)


@pytest.mark.parametrize("x", VECTORS)
def test_chao1_and_estimated_hill_equal_copia(copia, x):
    x = np.array(x)
    assert R.chao1(x) == pytest.approx(copia.richness.chao1(x.copy()), rel=1e-12, abs=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # copia divides by zero on the nan cases
        theirs = copia.hill.estimated_hill(x.copy(), [0, 1, 2])
        empirical = copia.hill.empirical_hill(x.copy(), [0, 1, 2])
    ours = [R.estimated_hill(x, q) for q in (0, 1, 2)]
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-9, equal_nan=True)
    np.testing.assert_allclose([R.empirical_hill(x, q) for q in (0, 1, 2)], empirical, rtol=1e-12)


@pytest.mark.parametrize("x", [VECTORS[0], VECTORS[7], VECTORS[8], VECTORS[2]])
@pytest.mark.parametrize("seed", [0, 7])
def test_bootstrap_intervals_equal_copia(copia, x, seed):
    """The same seed gives the same bootstrap samples, hence copia's interval to 1e-9."""
    x = np.array(x)
    steps = 2 * int(x.sum()) + 2
    fn = partial(copia.stats.rarefaction_extrapolation, max_steps=steps)
    theirs = copia.stats.bootstrap(x, fn=fn, n_iter=60, seed=seed, disable_pb=True)
    ours = R.curve([x], 0, np.arange(1, steps), resamples=60, seed=seed)
    np.testing.assert_allclose(ours.value, theirs["richness"], atol=1e-9)
    np.testing.assert_allclose(ours.low, theirs["lci"], atol=1e-9)
    np.testing.assert_allclose(ours.high, theirs["uci"], atol=1e-9)
    for q in (0, 1):
        fn = partial(copia.hill.estimated_hill, q_values=[q])
        theirs = copia.stats.bootstrap(x, fn=fn, n_iter=60, seed=seed, disable_pb=True)
        ours = R.curve([x], q, [1], resamples=60, seed=seed)
        assert ours.asymptote == pytest.approx(theirs["richness"][0], abs=1e-9)
        assert ours.asymptote_low == pytest.approx(theirs["lci"][0], abs=1e-9)
        assert ours.asymptote_high == pytest.approx(theirs["uci"][0], abs=1e-9)


def _classes_of(x):
    return [c for c, size in enumerate(x) for _ in range(size)]


def _subset_mean(x, m, fn):
    """The mean of fn(class sizes of the subset) over every m-subset of the sample."""
    members = _classes_of(x)
    values = []
    for subset in itertools.combinations(range(len(members)), m):
        sizes = np.bincount([members[i] for i in subset])
        values.append(fn(sizes[sizes > 0]))
    return float(np.mean(values))


def _shannon(sizes):
    p = sizes / sizes.sum()
    return float(-(p * np.log(p)).sum())


def _simpson(sizes):
    p = sizes / sizes.sum()
    return float((p**2).sum())


@pytest.mark.parametrize("x", [[3, 2, 1, 1], [4, 1, 1, 2, 1], [2, 2, 2, 1, 1]])
def test_rarefaction_is_the_expectation_over_every_subset(x):
    """q = 0: expected classes; q = 1: exp of the expected Shannon entropy; q = 2: 1 / the
    expected Simpson index, each over every m-subset, enumerated."""
    x = np.array(x)
    for m in range(1, int(x.sum()) + 1):
        q0, q1, q2 = (R.hill_at(x, q, [m])[0] for q in (0, 1, 2))
        assert q0 == pytest.approx(_subset_mean(x, m, lambda s: s.size), rel=1e-12)
        assert np.log(q1) == pytest.approx(_subset_mean(x, m, _shannon), rel=1e-10, abs=1e-12)
        assert 1 / q2 == pytest.approx(_subset_mean(x, m, _simpson), rel=1e-10)


@pytest.mark.parametrize("x", VECTORS)
def test_extrapolation_joins_the_sample_and_tends_to_the_asymptote(x):
    x = np.array(x)
    n = int(x.sum())
    for q in (0, 1, 2):
        at_n = R.hill_at(x, q, [n])[0]
        assert at_n == pytest.approx(R.empirical_hill(x, q), rel=1e-12)
        far = R.hill_at(x, q, [1e12])[0]
        asymptote = R.estimated_hill(x, q)
        if np.isfinite(asymptote):
            assert far == pytest.approx(asymptote, rel=1e-8)


def test_sample_based_rarefaction_is_the_expectation_over_responses():
    """Incidence data: types counted once per response; the expected number of types in m of
    the T responses, enumerated."""
    responses = [{"a", "b"}, {"a"}, {"c", "a"}, {"d"}, {"b", "e", "f"}]
    types = sorted(set().union(*responses))
    incidence = [sum(t in r for r in responses) for t in types]
    for m in range(1, 6):
        subsets = itertools.combinations(responses, m)
        brute = np.mean([len(set().union(*s)) for s in subsets])
        assert R.hill_at(incidence, 0, [m], units=5)[0] == pytest.approx(brute, rel=1e-12)
    # one type per response: sample-based data are abundance data (the same numbers)
    np.testing.assert_allclose(
        R.hill_at([3, 1, 1], 0, range(1, 12), units=5), R.hill_at([3, 1, 1], 0, range(1, 12))
    )


def test_mean_curve_over_sets_and_its_interval():
    sets = [[3, 1, 1], [2, 2, 1], [5]]
    c = R.curve(sets, 0, [1, 3, 5, 10], resamples=100, seed=1)
    expected = np.mean([R.hill_at(x, 0, [1, 3, 5, 10]) for x in sets], axis=0)
    np.testing.assert_allclose(c.value, expected)
    assert c.sets == 3 and c.observed == 5
    assert np.all(c.low <= c.value + 1e-12) and np.all(c.value <= c.high + 1e-12)
    again = R.curve(sets, 0, [1, 3, 5, 10], resamples=100, seed=1)
    np.testing.assert_array_equal(again.low, c.low)  # seeded: the same interval
    # one class holding every response: no singleton, nothing unseen, a flat curve at 1
    flat = R.curve([[6]], 1, [1, 6, 20], resamples=20)
    np.testing.assert_allclose(flat.value, 1.0)


def test_bad_input_is_an_input_error():
    with pytest.raises(InputError, match="q = 0, 1, 2"):
        R.hill_at([2, 1], 3, [1])
    with pytest.raises(InputError, match="whole counts"):
        R.hill_at([2.5, 1], 0, [1])
    with pytest.raises(InputError, match="at least 2 responses"):
        R.curve([[1]], 0)
    with pytest.raises(InputError, match="q = 0 only"):
        R.hill_at([2, 1], 1, [1], units=3)


@given(st.lists(st.integers(1, 6), min_size=1, max_size=8))
def test_rarefied_hill_numbers_are_ordered_bounded_and_grow_with_m(x):
    """Below the sample's size: 1 <= D2(m) <= D1(m) <= D0(m) <= min(m, S_obs) (Jensen on the
    expectations: exp E[H] <= E[S], and H >= -log Simpson), each non-decreasing in m."""
    n = sum(x)
    assume(n >= 2)  # the Simpson estimate needs two draws
    sizes = np.arange(1, n + 1)
    d0, d1, d2 = (R.hill_at(x, q, sizes) for q in (0, 1, 2))
    tol = 1e-9
    assert np.all(d2 >= 1 - tol) and np.all(d2 <= d1 + tol) and np.all(d1 <= d0 + tol)
    assert np.all(d0 <= np.minimum(sizes, len(x)) + tol)
    for d in (d0, d1, d2):
        assert np.all(np.diff(d) >= -tol)
