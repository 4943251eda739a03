"""Length bias: the designated distribution, natural sampling, trends, the plot."""

import math

import numpy as np
import pytest
from scipy import stats

from diveval.errors import InputError
from diveval.meta.studies.length_bias import (
    NaturalSampler,
    designated_tokens,
    fit_trend,
    length_bias,
    parse_lengths,
    plot_length_bias,
)


def test_designated_distribution_matches_its_pmf():
    # P(X = k) = (1/v) * integral_0^v lambda^k e^-lambda / k! = (1/v) * P(Poisson... ) =
    # (1/v) * regularized lower gamma(k+1, v); checked with a small v against scipy.
    v = 20
    rng = np.random.default_rng(0)
    x = designated_tokens(rng, 200_000, v)
    ks = np.arange(0, 45)
    pmf = stats.gamma.cdf(v, ks + 1) / v
    assert pmf.sum() == pytest.approx(1.0, abs=1e-6)
    observed = np.bincount(x, minlength=len(ks))[: len(ks)] / len(x)
    np.testing.assert_allclose(observed, pmf, atol=3e-3)


def test_distinct_falls_by_half_while_ead_stays_flat():
    # The check: lengths 5..40, 10 sets of 2,000 responses (the ends of the range).
    r = length_bias("designated", lengths=[5, 40], metrics=["distinct-1", "ead"], seed=0)
    d5, d40 = r.means("distinct-1")
    e5, e40 = r.means("ead")
    assert d40 < d5 / 2
    assert abs(e40 - e5) / e5 < 0.01
    # The check gave 0.85 -> 0.35 and EAD 1.00 -> 1.00; Distinct-1 at L = 40 sits at 0.355,
    # on the rounding boundary, so it is held to 0.01.
    assert round(d5, 2) == 0.85 and abs(d40 - 0.35) < 0.01 and round(e5, 2) == round(e40, 2) == 1.00
    # The expectation of Distinct-1 under (near) uniform draws from v tokens, for reference:
    v = 30522
    for L, d in ((5, d5), (40, d40)):
        c = 2000 * L
        assert d == pytest.approx(v * -math.expm1(c * math.log1p(-1 / v)) / c, rel=0.02)
    assert r.trends["distinct-1"].high < 0
    assert r.scores["ead"].shape == (2, 10)


def test_seeded_reproducibility():
    a = length_bias("designated", lengths=[3, 6], n_sets=2, n_responses=50, seed=4)
    b = length_bias("designated", lengths=[3, 6], n_sets=2, n_responses=50, seed=4)
    np.testing.assert_array_equal(a.scores["ead"], b.scores["ead"])


def test_natural_sampler_draws_exact_lengths_and_skips_missing():
    texts = ["a b", "c d", "e f g", "", "h i j k", "l  m"]
    s = NaturalSampler(texts)
    rng = np.random.default_rng(0)
    assert s.available(2) == 3 and s.available(5) == 0
    assert all(len(t.split()) == 2 for t in s.sample(2, 20, rng))
    r = length_bias(texts, lengths=[2, 3, 5], n_sets=2, n_responses=10, name="toy")
    assert r.lengths == [2, 3] and r.missing == [5] and r.source == "natural:toy"
    r2 = length_bias(texts, lengths=[2, 3], n_sets=2, n_responses=10, min_pool=2)
    assert r2.lengths == [2] and r2.missing == [3]
    with pytest.raises(InputError):
        length_bias(texts, lengths=[9], n_sets=1, n_responses=5)


def test_trend_equals_linregress_and_flat_rule():
    scores = np.array([[1.0, 1.2], [0.8, 0.9], [0.5, 0.7]])
    t = fit_trend([5, 10, 15], scores)
    ref = stats.linregress([5, 5, 10, 10, 15, 15], scores.reshape(-1))
    assert t.slope == pytest.approx(ref.slope)
    assert t.low < t.slope < t.high
    assert t.relative_change == pytest.approx((0.6 - 1.1) / 1.1)
    flat = fit_trend([5, 10], np.ones((2, 3)))
    assert flat.slope == 0.0 and flat.relative_change == 0.0


def test_parse_lengths():
    assert parse_lengths("5:40:5") == [5, 10, 15, 20, 25, 30, 35, 40]
    assert parse_lengths("3:5") == [3, 4, 5]
    assert parse_lengths("5,10") == [5, 10]
    for bad in ("a:b", "0:3", "5:10:0", ""):
        with pytest.raises(InputError):
            parse_lengths(bad)


def test_plot_is_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    r = length_bias("designated", lengths=[2, 4], n_sets=2, n_responses=30)
    out = plot_length_bias([r], str(tmp_path / "lb.png"))
    assert open(out, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
