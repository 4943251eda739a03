"""Distinct values of numpy arrays by one sort: the set algebra under the n-gram engine
(:mod:`diveval.text.ngrams`) and the UNION reduction of mergeable states (:mod:`diveval.state`),
kept below both so that they share one implementation.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["first_of_runs", "union_sorted", "unique_sorted"]

# np.unique is avoided on large arrays: in numpy 2.x its plain form takes a hash-table path that
# was measured 150x slower than sorting (36 s vs 0.23 s for 10M int64), and return_inverse uses a
# full argsort. These helpers use one np.sort each.


def first_of_runs(sorted_values: np.ndarray) -> np.ndarray:
    """Where each run of equal values of a sorted array starts."""
    keep = np.empty(sorted_values.size, dtype=bool)
    if sorted_values.size:
        keep[0] = True
        np.not_equal(sorted_values[1:], sorted_values[:-1], out=keep[1:])
    return keep


def unique_sorted(values: np.ndarray) -> np.ndarray:
    """The distinct values, ascending."""
    s = np.sort(values)
    return s[first_of_runs(s)]


def union_sorted(parts: Sequence[np.ndarray]) -> np.ndarray:
    """The distinct values of several arrays that are each sorted ascending. numpy's stable sort
    is a timsort that finds the sorted runs and merges them: measured 1.8x faster than the
    default sort on four runs of 2.5M uint64 keys."""
    s = np.sort(np.concatenate(parts), kind="stable")
    return s[first_of_runs(s)]
