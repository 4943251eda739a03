"""Tevet & Berant's n-gram cosine diversity ("cos-sim"), a sets-only metric.

For each set and each n in 1..n_max: the cosine similarity of the n-gram count vectors of every
unordered pair of responses (0 when they share no n-gram, empty responses included), averaged
over pairs and negated; then averaged over n. Higher is more diverse; the maximum is 0.
A set needs at least two responses (a pairwise metric has no value for one).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..constants import DEFAULT_TOKENIZER
from ..data import require_pairs, unordered_pairs
from ..results import SETS, Score, make_signature
from ..text.ngrams import _densify, ngram_codes, text_of_positions
from ..text.prepared import Prepared, prepare
from ..text.tokenizers import Tokenizer


def _pair_cosines(prep: Prepared, n: int, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    from scipy import sparse

    codes, starts, _ = ngram_codes(prep.tids, n)
    n_texts = prep.tids.n_texts
    if codes.size == 0:
        return np.zeros(first.size)
    cols = _densify(codes)
    rows = text_of_positions(prep.tids, starts)
    counts = sparse.csr_matrix(
        (np.ones(codes.size), (rows, cols)), shape=(n_texts, int(cols.max()) + 1)
    )  # duplicates are summed: row i is text i's n-gram count vector
    dots = np.asarray(counts[first].multiply(counts[second]).sum(axis=1)).ravel()
    norms = np.sqrt(np.asarray(counts.multiply(counts).sum(axis=1)).ravel())
    denom = norms[first] * norms[second]
    out = np.zeros(first.size)
    np.divide(dots, denom, out=out, where=dots > 0)
    return out


def cosine_diversity(
    sets: Any,
    n_max: int = 5,
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
    lowercase: bool = False,
) -> Score:
    """Minus the mean pairwise n-gram cosine similarity of each set, averaged over n = 1..n_max."""
    prep = prepare(sets, tokenizer, lowercase, setting=SETS)
    sizes = np.bincount(prep.set_index, minlength=prep.n_groups)
    require_pairs(sizes, "cos-diversity")
    first, second, owner = unordered_pairs(sizes)
    pairs_per_set = np.bincount(owner, minlength=prep.n_groups)
    per_n = []
    for n in range(1, n_max + 1):
        sims = _pair_cosines(prep, n, first, second)
        per_n.append(-np.bincount(owner, weights=sims, minlength=prep.n_groups) / pairs_per_set)
    values = np.mean(per_n, axis=0)
    sig = make_signature("cos-diversity", n=f"1-{n_max}", **prep.signature_keys())
    return Score("cos-diversity", float(values.mean()), sig, SETS, values)
