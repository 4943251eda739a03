"""Distinct-n at a common number of responses K, exactly: the expectation over every K-subset.

A set of k responses is scored as if K of them (K <= k) had been drawn without replacement, every
K-subset equally likely, without drawing any:

- expected distinct n-grams: E[U_K] = sum over the set's n-gram types t of
  1 - C(k - a_t, K) / C(k, K), where a_t is the number of the set's responses that contain t
  (a type is missed only when all K responses drawn are among the k - a_t without it);
- expected n-grams: E[T_K] = K / k * T (each response is drawn with probability K / k).

Distinct-n at K is reported as E[U_K] / E[T_K], the ratio of the expectations: Distinct-n pooled
over all K-subsets, as Distinct-n itself pools over a set (Li et al. 2016; GUIDE §2). The mean of
the ratios, E[U_K / T_K], has no closed form and differs from it by O(1/T) when responses differ
in length; a signature says ``estimand:ratio-of-expectations``. At K = k both are Distinct-n.

The miss probability C(k - a, K) / C(k, K) is the rarefaction term of Hurlbert (1971) and of Chao
et al. (2014, sample-based, q = 0); :mod:`diveval.meta.estimation.rarefaction` builds its curves
on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..results import SETS, Score
from ..text.ngrams import group_code_keys, ngram_codes, text_of_positions, unique_sorted
from ..text.prepared import Prepared, TokenOptions, prepare
from .counts import lexical_score, safe_ratio

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

ESTIMAND = "ratio-of-expectations"


def miss_probability(a: Any, k: Any, m: Any) -> np.ndarray:
    """C(k - a, m) / C(k, m): the chance that m of k units drawn without replacement all miss a
    type present in a of them (0 where k - a < m). Broadcasts over its arguments."""
    # scipy here, not at the top: registering the lexical metrics imports this module on every
    # `diveval score`, and scipy.special alone costs more than a small Distinct-n run
    from scipy.special import gammaln

    a, k, m = np.broadcast_arrays(
        np.asarray(a, dtype=float), np.asarray(k, dtype=float), np.asarray(m, dtype=float)
    )
    ok = k - a >= m
    safe = np.where(ok, k - a - m, 0.0)
    logp = gammaln(k - a + 1) + gammaln(k - m + 1) - gammaln(safe + 1) - gammaln(k + 1)
    return np.where(ok, np.exp(np.where(ok, logp, 0.0)), 0.0)


def set_incidences(prep: Prepared, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(set of each n-gram type, responses of that set holding the type, n-grams per set).

    A type is counted once per response that holds it, however often it occurs there.
    """
    codes, starts, exact = ngram_codes(prep.tids, n)
    totals = np.zeros(prep.n_groups, dtype=np.int64)
    if codes.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), totals
    text = text_of_positions(prep.tids, starts)
    group = prep.set_index[text]
    totals = np.bincount(group, minlength=prep.n_groups).astype(np.int64)
    keys = group_code_keys(codes, exact, group, prep.n_groups)
    # one row per (type, response): unique (key, text) pairs, then responses per key
    order = np.lexsort((text, keys))
    k_sorted, t_sorted = keys[order], text[order]
    first = np.ones(k_sorted.size, dtype=bool)
    first[1:] = (k_sorted[1:] != k_sorted[:-1]) | (t_sorted[1:] != t_sorted[:-1])
    pair_keys, pair_group = k_sorted[first], group[order][first]
    types = unique_sorted(pair_keys)
    where = np.searchsorted(types, pair_keys)
    incidence = np.bincount(where, minlength=types.size).astype(np.int64)
    type_group = np.zeros(types.size, dtype=np.int64)
    type_group[where] = pair_group
    return type_group, incidence, totals


def _sizes(prep: Prepared) -> np.ndarray:
    return np.bincount(prep.set_index, minlength=prep.n_groups).astype(np.int64)


def expected_distinct(prep: Prepared, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """(E[distinct n-grams], E[n-grams]) of each set at m responses (m <= every set's size)."""
    type_group, incidence, totals = set_incidences(prep, n)
    k = _sizes(prep)
    hit = 1.0 - miss_probability(incidence, k[type_group], m)
    uniq = np.bincount(type_group, weights=hit, minlength=prep.n_groups)
    return uniq, totals * (m / np.maximum(k, 1))


def distinct_at(texts: Any, at_k: int, n: int = 2, **tokens: Unpack[TokenOptions]) -> Score:
    """Distinct-n of each set at ``at_k`` responses, E[U_K] / E[T_K] (module docstring), the
    expected counts in ``details``. Every set must have at least ``at_k`` responses."""
    prep = prepare(texts, setting=SETS, **tokens)
    uniq, total = expected_distinct(prep, n, at_k)
    details = {"expected_distinct_ngrams": uniq, "expected_total_ngrams": total}
    sig = {"n": n, "estimand": ESTIMAND}
    return lexical_score("distinct", safe_ratio(uniq, total), prep, sig, details)


def avg_distinct_at(texts: Any, at_k: int, n_max: int = 5, **tokens: Unpack[TokenOptions]) -> Score:
    """Tevet & Berant's averaged distinct-n at ``at_k`` responses: the mean over n = 1..n_max of
    Distinct-n at K (each the ratio of its expectations)."""
    prep = prepare(texts, setting=SETS, **tokens)
    per_n = np.vstack([safe_ratio(*expected_distinct(prep, k, at_k)) for k in range(1, n_max + 1)])
    sig = {"n": f"1-{n_max}", "estimand": ESTIMAND}
    return lexical_score("avg-distinct", per_n.mean(axis=0), prep, sig)
