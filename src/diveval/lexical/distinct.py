"""Distinct-n (Li et al. 2016): unique n-grams / total n-grams, pooled over a corpus or a set.

Rule for empty input: a corpus or set with no n-gram of order n has distinct-n 0.0 (as in
Tevet & Berant's code), and the number of such sets is reported in ``details["empty_sets"]``.
The per-response mean some repositories report is a different metric, offered under its own name,
``intra-distinct-n`` (:func:`diveval.lexical.gem.intra_distinct`).

Split runs (shard files, streaming, Ray) give the same number: their state
(:mod:`diveval.lexical.ngram_state`) finishes through the same formulas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..results import CORPUS, Score
from ..text.prepared import TextOptions, prepare
from .counts import Counts, counts_score, prepared_counts, safe_ratio

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it


def distinct_of_counts(counts: Counts, n: int, setting: str) -> tuple[np.ndarray, dict, dict]:
    """Distinct-n of each group, its signature keys and its details."""
    uniq, total = counts(n)
    sets = setting != CORPUS
    details = {
        "distinct_ngrams": uniq if sets else int(uniq[0]),
        "total_ngrams": total if sets else int(total[0]),
        "empty_sets": int((total == 0).sum()),
    }
    return safe_ratio(uniq, total), {"n": n}, details


def avg_distinct_of_counts(
    counts: Counts, n_max: int, setting: str
) -> tuple[np.ndarray, dict, dict]:
    """The mean of distinct-1..n_max of each group, its signature keys, no details."""
    per_n = np.vstack([safe_ratio(*counts(k)) for k in range(1, n_max + 1)])
    return per_n.mean(axis=0), {"n": f"1-{n_max}"}, {}


def distinct(texts: Any, n: int = 2, **text: Unpack[TextOptions]) -> Score:
    """Distinct-n of a corpus (list of str) or of each set (list of lists of str), then the mean.

    >>> distinct(["a b a b"], n=1).value
    0.5
    """
    prep = prepare(texts, **text)
    counts = prepared_counts(prep, [n])
    return counts_score(
        "distinct", distinct_of_counts, n, counts, prep.setting, prep.signature_keys()
    )


def avg_distinct(texts: Any, n_max: int = 5, **text: Unpack[TextOptions]) -> Score:
    """Tevet & Berant's averaged distinct-n: the mean of distinct-1..n_max (per set, then mean)."""
    prep = prepare(texts, **text)
    counts = prepared_counts(prep, range(1, n_max + 1))
    return counts_score(
        "avg-distinct", avg_distinct_of_counts, n_max, counts, prep.setting, prep.signature_keys()
    )
