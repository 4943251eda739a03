"""Shared by the lexical metrics: n-gram statistics per order, and Scores built from them.

The n-gram family (Distinct-n, avg-distinct, EAD-n) has one path from counts to a Score,
:func:`counts_score`, whichever way the counts were obtained: the exact codes of one process
(:func:`prepared_counts`, the function forms), or the hashed keys of a state, merged or streamed
(:mod:`diveval.lexical.ngram_state`). Each metric's formula, its :data:`Finish`, is written once,
beside its definition."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Sequence

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


#: ``counts(order) -> (distinct n-grams, total n-grams)``: arrays of one element (a corpus) or one
#: per set.
Counts = Callable[[int], tuple[np.ndarray, np.ndarray]]

#: A metric's formula over counts: ``finish(counts, n, setting) -> (the value of each group, the
#: signature keys of its choices, its details)``.
Finish = Callable[[Counts, int, str], tuple[np.ndarray, dict[str, Any], dict[str, Any]]]


def prepared_counts(prep: Prepared, orders: Sequence[int]) -> Counts:
    """The exact counts of ``prep`` for ``orders``, counted now."""
    return ngram_statistics(prep, orders).__getitem__


def counts_score(
    metric: str,
    finish: Finish,
    n: int,
    counts: Counts,
    setting: str,
    signature_keys: dict[str, Any],
    details_extra: Callable[[int], dict[str, Any]] | None = None,
) -> Score:
    """The Score of ``metric`` at order ``n`` from ``counts``, by its formula ``finish``.
    ``signature_keys``: the tokenizer's, the setting and any approximation; ``details_extra(n)``:
    details of how the counts were made (a sketch's error bounds)."""
    values, sig, details = finish(counts, n, setting)
    if details_extra is not None:
        details.update(details_extra(n))
    signature = make_signature(metric, **sig, **signature_keys)
    return values_score(metric, values, setting, signature, details)


def lexical_score(
    metric: str, values: np.ndarray, prep: Prepared, sig: dict[str, Any], details=None
) -> Score:
    """:func:`~diveval.lexical.groups.values_score` of ``prep``'s groups, the signature ``sig``
    with the tokenizer's keys and the setting."""
    signature = make_signature(metric, **sig, **prep.signature_keys())
    return values_score(metric, values, prep.setting, signature, details)
