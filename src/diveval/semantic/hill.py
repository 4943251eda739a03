"""Similarity-sensitive Hill numbers (Leinster & Cobbold 2012), a sets-only metric.

For a set of k responses with weights p (uniform, p_i = 1/k) and a similarity matrix Z (symmetric,
Z_ii = 1, 0 <= Z_ij <= 1; ``pair_similarity``, the embedding cosine with negatives clipped to 0 by
default), (Zp)_i is how common response i's kind is in the set, and the diversity of order q is

    D_q^Z(p) = (sum_i p_i (Zp)_i^(q-1))^(1/(1-q)),
    D_1^Z(p) = exp(-sum_i p_i log (Zp)_i),      D_inf^Z(p) = 1 / max_i (Zp)_i,

sums over the responses with p_i > 0. With Z = I these are the ordinary Hill numbers: q = 0 the
richness, q = 1 the exponential of the Shannon entropy, q = 2 the inverse Simpson index, q = inf
the inverse Berger-Parker index. D_q^Z is between 1 (identical responses) and k (responses that
share nothing), and does not increase with q. It is an *effective number of distinct responses*:
higher = more diverse.

Identical responses are one kind: Z_ij = 1 for two responses with the same text by default
(``identical="one"``), so k copies of a response score 1 under any similarity; ``"model"`` keeps
the similarity's own value for the pair (with nli-entailment and the shipped NLI model, three
copies of "yes ." score 1.14, not 1). See :mod:`diveval.semantic.identical`.

The value is D_1^Z (order ``q``, 1 by default), the mean over sets. ``details`` holds the
diversity profile: ``q0_mean``, ``q0.5_mean``, ``q1_mean``, ``q2_mean``, ``q4_mean``, ``qinf_mean``
(the mean over sets of D_q^Z at the orders listed in ``details["orders"]``), and ``profiles``, each
set's curve (one row per set, shown with the per-item values). A set of one response scores 1 at every order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

import numpy as np

from ..errors import InputError
from ..results import SETS, Score, make_signature
from .pair_similarity import SimilarityOptions, by_size, set_similarities

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

DEFAULT_SIMILARITY = "cosine"
DEFAULT_ORDER = 1.0
PROFILE_ORDERS = (0.0, 0.5, 1.0, 2.0, 4.0, float("inf"))


def parse_q(q: Union[float, str]) -> float:
    """An order q >= 0 (``"inf"`` for infinity)."""
    try:
        value = float(q)
    except (TypeError, ValueError):
        raise InputError(f"the order q must be a number >= 0 or inf, got {q!r}") from None
    if np.isnan(value) or value < 0:
        raise InputError(f"the order q must be a number >= 0 or inf, got {q!r}")
    return value


def hill_numbers(zp: np.ndarray, p: np.ndarray, q: float) -> np.ndarray:
    """D_q^Z for stacks of (Zp) and p [..., k]; entries with p_i = 0 are left out of the sums."""
    zp = np.asarray(zp, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    on = p > 0
    if np.isinf(q):
        return 1.0 / np.where(on, zp, -np.inf).max(axis=-1)
    safe = np.where(on, zp, 1.0)  # (Zp)_i >= p_i Z_ii > 0 on the support
    if q == 1:
        return np.exp(-np.sum(np.where(on, p * np.log(safe), 0.0), axis=-1))
    # in log space: (Zp)^(q-1) under- or overflows for large q, its log-sum-exp does not
    terms = np.where(on, np.log(np.where(on, p, 1.0)) + (q - 1) * np.log(safe), -np.inf)
    top = terms.max(axis=-1, keepdims=True)
    log_sum = top[..., 0] + np.log(np.sum(np.exp(terms - top), axis=-1))
    return np.exp(log_sum / (1.0 - q))


def similarity_hill(
    sets: Any,
    similarity: Optional[str] = None,
    *,
    q: Union[float, str] = DEFAULT_ORDER,
    orders: Sequence[Union[float, str]] = PROFILE_ORDERS,
    progress: Optional[bool] = None,
    **options: Unpack[SimilarityOptions],
) -> Score:
    """The similarity-sensitive Hill number D_q^Z of each set, uniform p, and the mean over sets:

    D_q^Z(p) = (sum_i p_i (Zp)_i^(q-1))^(1/(1-q))   (q = 1, inf: the limits)

    similarity: cosine (default: the sentence-embedding cosine, clipped at 0), ngram (cosine of
    1-2-gram counts), jaccard, nli-entailment or nli-contradiction
    (``diveval.semantic.pair_similarity``). q: the order of the value
    (1 by default); orders: the profile kept in ``details``; identical: "one" (default: two
    responses with the same text have Z_ij = 1) or "model" (the similarity's own value).
    """
    del progress  # the models show their own progress bars
    name = "similarity-hill"
    order = parse_q(q)
    grid = [parse_q(x) for x in orders]
    items, matrices, sim_params = set_similarities(
        sets,
        similarity or DEFAULT_SIMILARITY,
        name,
        **options,
    )
    values = np.empty(len(items))
    profiles = np.empty((len(items), len(grid)))
    for m, index in by_size(matrices).items():
        z = np.stack([matrices[g] for g in index])
        p = np.full((len(index), m), 1.0 / m)
        zp = np.einsum("gij,gj->gi", z, p)
        values[index] = hill_numbers(zp, p, order)
        for c, x in enumerate(grid):
            profiles[index, c] = hill_numbers(zp, p, x)
    sig = make_signature(name, **sim_params, q=f"{order:g}", p="uniform", setting=SETS)
    labels = [f"{x:g}" for x in grid]
    # the profile: one ``q<order>_mean`` each (means over sets, so shards of sets join)
    details: dict[str, Any] = {"orders": labels, "profiles": profiles}
    for c, label in enumerate(labels):
        details[f"q{label}_mean"] = float(profiles[:, c].mean())
    return Score(name, float(values.mean()), sig, SETS, values, details)
