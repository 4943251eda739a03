"""The n-gram engine: tokens -> integer ids -> int64 n-gram codes -> counts, all in numpy.

Python tuples in a Counter cost ~100 bytes and a hash per n-gram; here an n-gram is one int64
code (base-B digits of its token ids, B = vocabulary size), so counting is one ``np.unique``
(a C sort). When B**n would overflow int64 the partial codes are re-numbered densely first, which
keeps codes exact (injective) for any vocabulary size.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Iterable, Sequence

import numpy as np

# Codes stay below 2**62 so that code * B + id never overflows int64.
_CODE_LIMIT = 1 << 62


@dataclass(frozen=True, eq=False)
class TokenIds:
    """Texts as one flat array of token ids plus the offsets where each text starts."""

    ids: np.ndarray  # int64, every token of every text, concatenated
    offsets: np.ndarray  # int64, len(texts) + 1
    vocab: tuple[str, ...]  # id -> token

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def n_texts(self) -> int:
        return len(self.offsets) - 1

    @property
    def n_tokens(self) -> int:
        return int(self.offsets[-1])


def encode_tokens(token_lists: Sequence[Sequence[str]]) -> TokenIds:
    """Map tokens to ids in order of first occurrence."""
    lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    offsets = np.zeros(len(token_lists) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    flat = list(chain.from_iterable(token_lists))
    index: dict[str, int] = {t: i for i, t in enumerate(dict.fromkeys(flat))}
    ids = np.fromiter(map(index.__getitem__, flat), dtype=np.int64, count=len(flat))
    return TokenIds(ids, offsets, tuple(index))


def _valid_starts(tids: TokenIds, n: int) -> np.ndarray:
    """Start positions of the n-grams that lie inside one text."""
    total = tids.n_tokens
    if total < n:
        return np.zeros(0, dtype=np.int64)
    starts = np.arange(total - n + 1, dtype=np.int64)
    ends = np.repeat(tids.offsets[1:], tids.lengths)[: total - n + 1]
    return starts[starts + n <= ends]


def _densify(codes: np.ndarray) -> np.ndarray:
    return np.unique(codes, return_inverse=True)[1].astype(np.int64, copy=False)


def _codes_all_positions(ids: np.ndarray, n: int, base: int) -> tuple[np.ndarray, bool]:
    """Codes of the n-gram starting at every position 0..len-n (across text borders too).

    Returns (codes, exact_base): exact_base is False when a dense re-numbering was needed, in
    which case codes can no longer be decoded into token ids by division.
    """
    length = len(ids) - n + 1
    codes = ids[:length].copy()
    exact_base = True
    for k in range(1, n):
        if codes.size and (int(codes.max()) + 1) * base >= _CODE_LIMIT:
            codes = _densify(codes)
            exact_base = False
        codes *= base
        codes += ids[k : k + length]
    return codes, exact_base


def ngram_codes(tids: TokenIds, n: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """(codes, starts, exact_base) of every n-gram that lies inside one text."""
    if n < 1:
        raise ValueError("n must be at least 1")
    starts = _valid_starts(tids, n)
    if starts.size == 0:
        return np.zeros(0, dtype=np.int64), starts, True
    base = max(len(tids.vocab), 1)
    codes, exact = _codes_all_positions(tids.ids, n, base)
    return codes[starts], starts, exact


def text_of_positions(tids: TokenIds, positions: np.ndarray) -> np.ndarray:
    """Index of the text that holds each token position."""
    return np.searchsorted(tids.offsets, positions, side="right") - 1


@dataclass(frozen=True, eq=False)
class NgramCounts:
    """Counts of the distinct n-grams of some texts: a sufficient statistic that merges.

    grams: (k, n) token ids, one row per distinct n-gram; counts: (k,) occurrences;
    vocab: id -> token, so that two states with different vocabularies can be merged.
    """

    n: int
    vocab: tuple[str, ...]
    grams: np.ndarray
    counts: np.ndarray

    @property
    def distinct(self) -> int:
        return int(self.grams.shape[0])

    @property
    def total(self) -> int:
        return int(self.counts.sum())

    @classmethod
    def from_token_ids(cls, tids: TokenIds, n: int) -> "NgramCounts":
        if n == 1:
            counts = np.bincount(tids.ids, minlength=len(tids.vocab)).astype(np.int64)
            keep = np.flatnonzero(counts)
            return cls(1, tids.vocab, keep[:, None], counts[keep])
        codes, starts, exact = ngram_codes(tids, n)
        if exact:
            uniq, counts = np.unique(codes, return_counts=True)
            grams = _decode(uniq, n, max(len(tids.vocab), 1))
        else:
            uniq, first, counts = np.unique(codes, return_index=True, return_counts=True)
            grams = tids.ids[starts[first][:, None] + np.arange(n)]
        return cls(n, tids.vocab, grams, counts.astype(np.int64))

    @classmethod
    def from_tokens(cls, token_lists: Sequence[Sequence[str]], n: int) -> "NgramCounts":
        return cls.from_token_ids(encode_tokens(token_lists), n)

    def merge(self, other: "NgramCounts") -> "NgramCounts":
        """The state of both inputs together, as if counted in one pass."""
        if other.n != self.n:
            raise ValueError(f"cannot merge {self.n}-gram counts with {other.n}-gram counts")
        index = {t: i for i, t in enumerate(self.vocab)}
        for t in other.vocab:
            index.setdefault(t, len(index))
        remap = np.fromiter((index[t] for t in other.vocab), dtype=np.int64, count=len(other.vocab))
        grams = np.vstack([self.grams, remap[other.grams] if other.grams.size else other.grams])
        counts = np.concatenate([self.counts, other.counts])
        codes, _ = _row_codes(grams, max(len(index), 1))
        uniq, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
        summed = np.bincount(inverse, weights=counts, minlength=len(uniq)).astype(np.int64)
        return NgramCounts(self.n, tuple(index), grams[first], summed)

    def as_dict(self) -> dict[tuple[str, ...], int]:
        """{n-gram tuple: count}; for tests and small inputs."""
        vocab = self.vocab
        return {tuple(vocab[i] for i in row): int(c) for row, c in zip(self.grams, self.counts)}


def _decode(codes: np.ndarray, n: int, base: int) -> np.ndarray:
    grams = np.empty((codes.size, n), dtype=np.int64)
    rest = codes.copy()
    for k in range(n - 1, -1, -1):
        rest, grams[:, k] = np.divmod(rest, base)
    return grams


def _row_codes(grams: np.ndarray, base: int) -> tuple[np.ndarray, bool]:
    """Exact int64 codes of the rows of a (k, n) id matrix (dense re-numbering if needed)."""
    if grams.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), True
    codes = grams[:, 0].astype(np.int64, copy=True)
    exact = True
    for k in range(1, grams.shape[1]):
        if (int(codes.max()) + 1) * base >= _CODE_LIMIT:
            codes = _densify(codes)
            exact = False
        codes = codes * base + grams[:, k]
    return codes, exact


def distinct_per_group(tids: TokenIds, n: int, group_of_text: np.ndarray, n_groups: int):
    """(distinct n-grams, total n-grams) of each group of texts, both int64 arrays of n_groups.

    Distinct is counted within a group (a set of responses), never across groups.
    """
    codes, starts, _ = ngram_codes(tids, n)
    totals = np.zeros(n_groups, dtype=np.int64)
    distinct = np.zeros(n_groups, dtype=np.int64)
    if codes.size == 0:
        return distinct, totals
    group = group_of_text[text_of_positions(tids, starts)]
    totals = np.bincount(group, minlength=n_groups).astype(np.int64)
    dense = _densify(codes)
    keys = np.unique(group * (int(dense.max()) + 1) + dense)
    distinct = np.bincount(keys // (int(dense.max()) + 1), minlength=n_groups).astype(np.int64)
    return distinct, totals


def iter_ngrams(tokens: Sequence[str], n: int) -> Iterable[tuple[str, ...]]:
    """The n-grams of one token list, for small reference computations."""
    return (tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
