"""The n-gram family's per-unit sufficient statistics, laid out for resampling.

A paired test (``diveval.meta.statistics.compare``) weighs units (prompts) by how often a resample
draws them, or moves them between two systems (a swap); a corpus Distinct-n or EAD of such a
weighted corpus is a function of two sums over units: the n-grams counted (each unit's count times
its weight) and the distinct n-grams (the union of the drawn units' n-gram sets).
:class:`NgramTable` holds what makes both sums one matrix product for all resamples at once;
:class:`WeightedNgramValues` finishes them through the metric's own formula
(:meth:`NgramMetricState.group_values`).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ..text.ngrams import ngram_starts
from ..text.prepared import encode_texts
from ..text.stable_keys import ngram_keys, token_hashes


def _matvec(a: np.ndarray, v: np.ndarray) -> np.ndarray:
    # einsum, not a @ v: a matrix-vector product of this size gains nothing from BLAS threads, and
    # on a busy machine their start-up cost 40 ms a call where einsum takes 0.2 ms
    return np.einsum("ij,j->i", a, np.asarray(v, dtype=float))


class NgramTable:
    """Per-prompt n-gram states of one system, laid out for vectorised resampling.

    For each order n: ``totals[n]`` (n-gram count per prompt), ``single[n]`` (distinct n-grams
    found in that prompt only, per prompt) and ``shared[n]``, a sparse [keys, prompts] 0/1 matrix
    of the n-grams found in several prompts. A resample with multiplicities M [B, P] has
    ``M @ totals`` n-grams of which ``(M > 0) @ single`` plus the shared keys with a drawn prompt
    are distinct: the counts of the summed states, without building one per resample.
    """

    def __init__(
        self, texts: Sequence[Sequence[str]], orders: Iterable[int], tokenizer: Any
    ) -> None:
        self.n_prompts = len(texts)
        flat = [t for group in texts for t in group]
        self._owner = np.repeat(np.arange(self.n_prompts), [len(g) for g in texts])
        self._tids = encode_texts(flat, tokenizer)
        self._hashes = token_hashes(self._tids.vocab)
        self.totals: dict[int, np.ndarray] = {}
        self.single: dict[int, np.ndarray] = {}
        self.shared: dict[int, Any] = {}
        # (order, name of a weight matrix) -> counts: the metrics of one family share orders
        self._memo: dict[tuple[int, str], tuple[np.ndarray, np.ndarray]] = {}
        self._present: dict[str, np.ndarray] = {}
        for n in orders:
            self._order(n)

    def _order(self, n: int) -> None:
        if n in self.totals:
            return
        from scipy import sparse

        tids = self._tids
        starts = ngram_starts(tids, n)
        keys = ngram_keys(tids.ids, self._hashes, starts, n)
        prompt = self._owner[np.searchsorted(tids.offsets, starts, side="right") - 1]
        self.totals[n] = np.bincount(prompt, minlength=self.n_prompts).astype(float)
        order = np.lexsort((prompt, keys))
        k, p = keys[order], prompt[order]
        first = np.ones(k.size, dtype=bool)  # first of each (key, prompt) run
        first[1:] = (k[1:] != k[:-1]) | (p[1:] != p[:-1])
        k, p = k[first], p[first]
        new_key = np.ones(k.size, dtype=bool)
        new_key[1:] = k[1:] != k[:-1]
        key_id = np.cumsum(new_key) - 1
        prompts_per_key = np.bincount(key_id)
        alone = prompts_per_key[key_id] == 1
        self.single[n] = np.bincount(p[alone], minlength=self.n_prompts).astype(float)
        rows = np.unique(key_id[~alone], return_inverse=True)[1]
        self.shared[n] = sparse.csr_matrix(
            (np.ones(rows.size, dtype=np.float32), (rows, p[~alone])),
            shape=(int(rows.max()) + 1 if rows.size else 0, self.n_prompts),
        )

    def counts(
        self, n: int, weights: np.ndarray, name: str | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(distinct, total) n-grams of order n of each resample; ``weights`` [B, P]; ``name``
        names the weight matrix, so that metrics reading the same order share the counts."""
        if name is not None and (n, name) in self._memo:
            return self._memo[(n, name)]
        self._order(n)
        total = _matvec(weights, self.totals[n])
        present = self._present.get(name) if name is not None else None
        if present is None:
            present = np.ascontiguousarray((weights > 0).T, dtype=np.float32)  # [P, B]
            if name is not None:
                self._present[name] = present
        distinct = _matvec(present.T, self.single[n])
        shared = self.shared[n]
        if shared.shape[0]:
            step = max(1, 20_000_000 // shared.shape[0])  # bounds the dense [keys, step] block
            for start in range(0, present.shape[1], step):
                block = shared @ present[:, start : start + step]
                distinct[start : start + step] += (block > 0).sum(axis=0)
        if name is not None:
            self._memo[(n, name)] = (distinct, total)
        return distinct, total


class WeightedNgramValues:
    """A corpus n-gram metric on weighted sums of units: ``values(weights)`` [B] from
    ``weights`` [B, units], through ``finish``, the metric's formula over group counts."""

    #: Nothing added to a paired test's signature: the n-gram rows were tested this way first.
    tag = None

    def __init__(
        self, table: NgramTable, finish: Callable[[Callable[[int], Any]], np.ndarray]
    ) -> None:
        self.table, self.finish = table, finish

    def values(self, weights: np.ndarray, name: str | None = None) -> np.ndarray:
        """The metric of each row of ``weights``; ``name`` names the weight matrix, so that the
        metrics sharing the table count each order once per matrix."""
        return self.finish(lambda n: self.table.counts(n, weights, name))
