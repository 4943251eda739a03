"""Mergeable states of the corpus setting of GEM's n-gram measures (entropy-n, cond-entropy-n,
unique-n) and of intra-distinct-n, so that they shard, stream and run on Ray with the numbers of
one process.

The n-gram counts are sufficient statistics: :class:`GemNgramState` keeps, per order it needs,
each distinct n-gram's shard-independent key (:mod:`diveval.text.stable_keys`, the same 64-bit
keys and collision bound as the Distinct-n state) with its count; cond-entropy-n also keeps, for
each n-gram, the key of its first n-1 words (the chained key's previous step, so the same key the
(n-1)-gram has). Merging adds the counts of equal keys (:data:`ADD_COUNTS`).
:class:`IntraDistinctState` keeps the sum of the responses' own Distinct-n, how many had an n-gram
and how many had none. Both are declarations (:class:`~diveval.state.DeclaredState`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from ..constants import DEFAULT_TOKENIZER
from ..errors import InputError
from ..results import CORPUS, Score
from ..state import SUM, DeclaredState, Reduction
from ..text.ngrams import ngram_starts
from ..text.prepared import encode_texts, signature_keys
from ..text.stable_keys import ngram_keys, token_hashes
from ..text.tokenizers import get_tokenizer, state_tokenizer
from .gem import (
    GemCounts,
    drop_punctuation,
    gem_ngram_score,
    intra_distinct_score,
    per_response_distinct,
)
from .ngram_state import BatchedOrders

GEM_NGRAM_METRICS = ("entropy", "cond-entropy", "unique")


#: One row per distinct n-gram: its key and count (and, for cond-entropy-n's order n, the key of
#: its first n-1 words).
GRAMS = np.dtype([("key", np.uint64), ("count", np.int64)])
GRAMS_WITH_PREFIX = np.dtype([("key", np.uint64), ("count", np.int64), ("prefix", np.uint64)])


def _add_counts(parts: list[np.ndarray]) -> np.ndarray:
    """Rows of equal keys made one, their counts summed (keys ascending; a key's prefix is the
    same wherever it occurs, so any copy of it will do)."""
    rows = np.concatenate(parts)
    rows = rows[np.argsort(rows["key"], kind="stable")]
    keys = rows["key"]
    first = np.ones(keys.size, dtype=bool)
    if keys.size:
        np.not_equal(keys[1:], keys[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    out = rows[starts]
    if keys.size:
        out["count"] = np.add.reduceat(rows["count"], starts)
    return out


#: n-gram counts of consecutive parts combine into the counts of their union.
ADD_COUNTS = Reduction("add-counts", _add_counts)


class GemNgramState(BatchedOrders):
    """Corpus entropy-n, cond-entropy-n or unique-n from n-gram counts that merge: a field
    ``grams_{k}`` (:data:`GRAMS` rows, :data:`ADD_COUNTS`) per order k it reads.

    >>> a, b = GemNgramState("entropy", 1), GemNgramState("entropy", 1)
    >>> a.update(["a b"]); b.update(["a c"])
    >>> a.merge(b).result().value
    1.5
    """

    kind: ClassVar[str] = "gem-ngrams"
    SETTINGS = ("metric", "n", "keep_punctuation", "tokenizer", "lowercase")
    FOLDED = "grams_"

    def __init__(
        self,
        metric: str,
        n: int,
        keep_punctuation: bool = True,
        tokenizer: str = DEFAULT_TOKENIZER,
        lowercase: bool = False,
    ):
        if metric not in GEM_NGRAM_METRICS:
            raise InputError(f"GEM n-gram counts give {', '.join(GEM_NGRAM_METRICS)}, not {metric}")
        self.metric, self.n = metric, int(n)
        self.keep_punctuation = bool(keep_punctuation)
        self.tokenizer, self.lowercase = tokenizer, bool(lowercase)
        self._tok = get_tokenizer(tokenizer, lowercase)
        self.orders = [self.n - 1, self.n] if metric == "cond-entropy" else [self.n]
        for k in self.orders:
            setattr(self, f"grams_{k}", np.zeros(0, self._dtype(k)))
        self._pending: dict[int, list[np.ndarray]] = {k: [] for k in self.orders}

    def _dtype(self, k: int) -> np.dtype:
        return GRAMS_WITH_PREFIX if self.metric == "cond-entropy" and k == self.n else GRAMS

    def fields(self) -> Mapping[str, Reduction]:
        return {f"grams_{k}": ADD_COUNTS for k in self.orders}

    def grams(self, k: int) -> np.ndarray:
        """The n-gram counts of order k, by key."""
        self._fold(k)
        return getattr(self, f"grams_{k}")

    def update(self, texts: Sequence[str]) -> None:
        """Add a batch of texts (n-grams never cross texts)."""
        texts = list(texts)
        if not all(isinstance(t, str) for t in texts):
            raise InputError("a corpus state takes a list of texts (str)")
        tids = encode_texts(texts, self._tok)
        if not self.keep_punctuation:
            tids = drop_punctuation(tids)
        hashes = token_hashes(tids.vocab)
        for k in self.orders:
            starts = ngram_starts(tids, k)
            rows = np.empty(starts.size, self._dtype(k))
            rows["key"] = ngram_keys(tids.ids, hashes, starts, k)
            rows["count"] = 1
            if "prefix" in rows.dtype.names:
                rows["prefix"] = ngram_keys(tids.ids, hashes, starts, k - 1)
            self._add(k, rows)

    def _combine(self, parts: list[np.ndarray]) -> np.ndarray:
        return _add_counts(parts)

    def result(self) -> Score:
        """The Score :func:`diveval.lexical.gem.entropy` (``cond_entropy``, ``unique_ngrams``)
        gives on all the texts, in the corpus setting."""
        grams = self.grams(self.n)
        counts = grams["count"]
        stats = GemCounts(np.zeros(counts.size, np.int64), counts, np.array([counts.sum()]))
        if self.metric == "cond-entropy":
            ctx = self.grams(self.n - 1)
            prefix = ctx["count"][np.searchsorted(ctx["key"], grams["prefix"])]
            stats = dataclasses.replace(
                stats, prefix_counts=prefix, prefix_totals=np.array([ctx["count"].sum()])
            )
        keys = signature_keys(self._tok, CORPUS)
        return gem_ngram_score(self.metric, self.n, self.keep_punctuation, stats, CORPUS, keys)


def gem_ngram_state(metric: str, n: int, keep_punctuation: bool):
    """The state factory of a GEM n-gram row: ``options -> GemNgramState``."""

    def make(options: dict[str, Any]) -> GemNgramState:
        return GemNgramState(
            metric,
            n,
            keep_punctuation,
            state_tokenizer(options),
            bool(options.get("lowercase")),
        )

    return make


class IntraDistinctState(DeclaredState):
    """Corpus intra-distinct-n: the sum of the responses' own Distinct-n and their numbers.

    >>> a, b = IntraDistinctState(1), IntraDistinctState(1)
    >>> a.update(["a a"]); b.update(["a b", ""])
    >>> a.merge(b).result().value
    0.75
    """

    kind: ClassVar[str] = "intra-distinct"
    SETTINGS = ("n", "tokenizer", "lowercase")
    # the sum of the responses' Distinct-n, responses with an n-gram, responses without
    FIELDS = {"total": SUM, "counted": SUM, "empty": SUM}

    def __init__(self, n: int, tokenizer: str = DEFAULT_TOKENIZER, lowercase: bool = False):
        self.n, self.tokenizer, self.lowercase = int(n), tokenizer, bool(lowercase)
        self._tok = get_tokenizer(tokenizer, lowercase)
        self.total = 0.0  # sum of the responses' Distinct-n
        self.counted = 0  # responses with an n-gram
        self.empty = 0  # responses without

    def update(self, texts: Sequence[str]) -> None:
        texts = list(texts)
        if not all(isinstance(t, str) for t in texts):
            raise InputError("a corpus state takes a list of texts (str)")
        ratio, has = per_response_distinct(encode_texts(texts, self._tok), self.n)
        self.total += float(np.sum(ratio[has]))
        self.counted += int(has.sum())
        self.empty += int((~has).sum())

    def result(self) -> Score:
        """The Score :func:`diveval.lexical.gem.intra_distinct` gives on all the texts."""
        keys = signature_keys(self._tok, CORPUS)
        counted = np.array([self.counted])
        return intra_distinct_score(
            self.n, np.array([self.total]), counted, self.empty, CORPUS, keys
        )


def intra_distinct_state(n: int):
    """The state factory of an intra-distinct row: ``options -> IntraDistinctState``."""

    def make(options: dict[str, Any]) -> IntraDistinctState:
        return IntraDistinctState(n, state_tokenizer(options), bool(options.get("lowercase")))

    return make
