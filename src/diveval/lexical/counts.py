"""Shared by the lexical metrics: n-gram statistics per order, and Scores built from them."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

import numpy as np

from ..results import CORPUS, Score, make_signature
from ..text.ngrams import distinct_and_total, distinct_per_group
from ..text.prepared import Prepared
from .groups import values_score


def safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    out = np.zeros_like(num)
    np.divide(num, den, out=out, where=den > 0)
    return out


def ngram_statistics(
    prep: Prepared, orders: Sequence[int]
) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """{n: (distinct, total)}: arrays of one element (corpus) or one per set (sets).

    Orders are counted in two threads: numpy's sort releases the GIL, and these machines have two
    cores.
    """

    def one(n: int):
        if prep.setting == CORPUS:
            distinct, total = distinct_and_total(prep.tids, n)
            return np.array([distinct]), np.array([total])
        return distinct_per_group(prep.tids, n, prep.set_index, prep.n_groups)

    orders = list(orders)
    if len(orders) == 1:
        return {orders[0]: one(orders[0])}
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(orders, pool.map(one, orders)))


def lexical_score(
    metric: str, values: np.ndarray, prep: Prepared, sig: dict[str, Any], details=None
) -> Score:
    """:func:`~diveval.lexical.groups.values_score` of ``prep``'s groups, the signature ``sig``
    with the tokenizer's keys and the setting."""
    signature = make_signature(metric, **sig, **prep.signature_keys())
    return values_score(metric, values, prep.setting, signature, details)
