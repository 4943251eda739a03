"""The n-gram engine: tokens -> integer ids -> int64 n-gram codes -> counts, all in numpy.

Python tuples in a Counter cost ~100 bytes and a hash per n-gram; here an n-gram is one 64-bit
code, so counting is one C sort. While B**n fits (B = vocabulary size) the code is exact: the
base-B digits of the n-gram's token ids. Past that (e.g. n = 4 over 50k types) the code becomes a
64-bit mixed hash of the n-gram: re-numbering densely instead (a sort plus a search per order) was
measured 70x slower than the sort it replaces, which made distinct-4/5 cost 30 s where distinct-2
costs 0.4 s on 12M tokens.

Collision bound of the hashed codes: each step past the exact range maps (previous code, token)
through a bijective 64-bit mixer (splitmix64's finalizer) and one multiply-add, so two different
n-grams share a code with probability at most (n-1) * 2**-64. For D distinct n-grams the expected
number of merged pairs is below (n-1) * D**2 / 2**65: under 1e-5 for D = 10M, under 0.002 for
D = 1 billion; each merged pair lowers a distinct count by one. Per-set counting keeps the top bits
of the code for the set's index, so inside a set of D_s n-grams the bound is D_s**2 / 2**(65-g),
g = bits of the number of sets.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Callable, Sequence

import numpy as np

from ..sorted_sets import first_of_runs, unique_sorted

# Exact codes stay below 2**62 so that code * B + id never overflows int64.
_CODE_LIMIT = 1 << 62
# Odd multiplier of the hashed steps (2**64 / golden ratio): keeps every bit of the mixed code.
HASH_STEP = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


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


def ngram_starts(tids: TokenIds, n: int) -> np.ndarray:
    """Start positions of the n-grams that lie inside one text."""
    total = tids.n_tokens
    if total < n:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(_inside_mask(tids, n)).astype(np.int64, copy=False)


def _inside_mask(tids: TokenIds, n: int) -> np.ndarray:
    """For each position 0..total-n, whether the n-gram starting there lies inside one text: all
    but the last n-1 positions of every text (one byte per position, where a table of the texts'
    ends would take 8)."""
    total = tids.n_tokens
    inside = np.ones(max(total - n + 1, 0), dtype=bool)
    starts, ends = tids.offsets[:-1], tids.offsets[1:]
    for back in range(1, n):
        pos = ends - back
        pos = pos[(pos >= starts) & (pos < inside.size)]
        inside[pos] = False
    return inside


# np.unique is avoided on large arrays (see diveval.sorted_sets): one np.sort each.


def unique_counts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct values ascending, how often each occurs)."""
    s = np.sort(values)
    keep = first_of_runs(s)
    uniq = s[keep]
    size = s.size
    del s  # the sorted copy goes before the counts are made: peak memory of large inputs
    starts = np.flatnonzero(keep)
    del keep
    counts = np.empty(starts.size, dtype=starts.dtype)
    np.subtract(starts[1:], starts[:-1], out=counts[:-1])
    if starts.size:
        counts[-1] = size - starts[-1]
    return uniq, counts


def factorize(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct values ascending, index of each value among them)."""
    uniq = unique_sorted(values)
    return uniq, np.searchsorted(uniq, values).astype(np.int64, copy=False)


def _one_position_each(inverse: np.ndarray, k: int) -> np.ndarray:
    """For each of k distinct values, one position where it occurs (any will do: equal codes are
    equal n-grams)."""
    where = np.empty(k, dtype=np.int64)
    where[inverse] = np.arange(inverse.size)
    return where


def _densify(codes: np.ndarray) -> np.ndarray:
    return factorize(codes)[1]


def mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64's finalizer, in place on a uint64 array: a bijection that spreads every input
    bit over the whole word."""
    x ^= x >> np.uint64(30)
    x *= _MIX1
    x ^= x >> np.uint64(27)
    x *= _MIX2
    x ^= x >> np.uint64(31)
    return x


def _codes_all_positions(ids: np.ndarray, n: int, base: int) -> tuple[np.ndarray, bool]:
    """Codes of the n-gram starting at every position 0..len-n (across text borders too).

    Returns (codes, exact_base): exact_base is False when the codes had to become hashes (see
    the module's docstring for the collision bound); they then cannot be decoded into token ids.
    """
    length = len(ids) - n + 1
    codes = ids[:length].copy()
    exact_base = True
    for k in range(1, n):
        nxt = ids[k : k + length]
        if exact_base and codes.size and (int(codes.max()) + 1) * base >= _CODE_LIMIT:
            exact_base = False
            codes = codes.view(np.uint64)
        if exact_base:
            codes *= base
            codes += nxt
        else:  # uint64 arithmetic wraps silently, which is what a hash step wants
            mix64(codes)
            codes *= HASH_STEP
            codes += nxt.view(np.uint64)
    return (codes if exact_base else codes.view(np.int64)), exact_base


def ngram_codes(tids: TokenIds, n: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """(codes, starts, exact_base) of every n-gram that lies inside one text."""
    if n < 1:
        raise ValueError("n must be at least 1")
    starts = ngram_starts(tids, n)
    if starts.size == 0:
        return np.zeros(0, dtype=np.int64), starts, True
    base = max(len(tids.vocab), 1)
    codes, exact = _codes_all_positions(tids.ids, n, base)
    return codes[starts], starts, exact


def text_of_positions(tids: TokenIds, positions: np.ndarray) -> np.ndarray:
    """Index of the text that holds each token position."""
    return np.searchsorted(tids.offsets, positions, side="right") - 1


class NgramCounts:
    """Counts of the distinct n-grams of some texts: a sufficient statistic that merges.

    vocab: id -> token, so that two states with different vocabularies can be merged;
    counts: occurrences of each distinct n-gram; grams: (k, n) token ids, one row per distinct
    n-gram, in the order of ``counts`` (decoded from the codes only when asked for).
    """

    __slots__ = ("n", "vocab", "counts", "_codes", "_base", "_grams", "_find_grams")

    def __init__(
        self,
        n: int,
        vocab: tuple[str, ...],
        counts: np.ndarray,
        grams: np.ndarray | None = None,
        codes: np.ndarray | None = None,
        base: int = 0,
        find_grams: Callable[[], np.ndarray] | None = None,
    ):
        if grams is None and codes is None and find_grams is None:
            raise ValueError("NgramCounts needs grams, base-encoded codes or a way to find them")
        self.n, self.vocab, self.counts = n, vocab, counts
        self._grams, self._codes, self._base = grams, codes, base
        self._find_grams = find_grams

    @property
    def grams(self) -> np.ndarray:
        if self._grams is None:
            if self._codes is not None:
                self._grams = _decode(self._codes, self.n, self._base)
            else:
                assert self._find_grams is not None
                self._grams = self._find_grams()
                self._find_grams = None  # let go of the token ids it held
        return self._grams

    @property
    def distinct(self) -> int:
        return int(self.counts.size)

    @property
    def total(self) -> int:
        return int(self.counts.sum())

    @classmethod
    def from_token_ids(cls, tids: TokenIds, n: int) -> NgramCounts:
        if n == 1:
            counts = np.bincount(tids.ids, minlength=len(tids.vocab)).astype(np.int64)
            keep = np.flatnonzero(counts)
            return cls(1, tids.vocab, counts[keep], grams=keep[:, None])
        codes, starts, exact = ngram_codes(tids, n)
        uniq, counts = unique_counts(codes)
        if exact:
            return cls(
                n, tids.vocab, counts.astype(np.int64), codes=uniq, base=max(len(tids.vocab), 1)
            )

        def find_grams() -> np.ndarray:
            # Hashed codes cannot be decoded: find one position of each code (a search, paid only
            # by the callers that need the n-grams themselves: merge, as_dict).
            where = _one_position_each(np.searchsorted(uniq, codes), uniq.size)
            return tids.ids[starts[where][:, None] + np.arange(n)]

        return cls(n, tids.vocab, counts.astype(np.int64), find_grams=find_grams)

    @classmethod
    def from_tokens(cls, token_lists: Sequence[Sequence[str]], n: int) -> NgramCounts:
        return cls.from_token_ids(encode_tokens(token_lists), n)

    def merge(self, other: NgramCounts) -> NgramCounts:
        """The state of both inputs together, as if counted in one pass."""
        if other.n != self.n:
            raise ValueError(f"cannot merge {self.n}-gram counts with {other.n}-gram counts")
        index = {t: i for i, t in enumerate(self.vocab)}
        for t in other.vocab:
            index.setdefault(t, len(index))
        remap = np.fromiter((index[t] for t in other.vocab), dtype=np.int64, count=len(other.vocab))
        theirs = other.grams
        grams = np.vstack([self.grams, remap[theirs] if theirs.size else theirs])
        counts = np.concatenate([self.counts, other.counts])
        codes, _ = _row_codes(grams, max(len(index), 1))
        uniq, inverse = factorize(codes)
        first = _one_position_each(inverse, uniq.size)
        summed = np.bincount(inverse, weights=counts, minlength=len(uniq)).astype(np.int64)
        return NgramCounts(self.n, tuple(index), summed, grams=grams[first])

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


def distinct_and_total(tids: TokenIds, n: int) -> tuple[int, int]:
    """(distinct n-grams, total n-grams) of all the texts together: what
    ``NgramCounts.from_token_ids(tids, n)`` counts, without keeping the n-grams or their counts
    (one sort in place of the codes: a tenth of the memory on a large corpus)."""
    if n < 1:
        raise ValueError("n must be at least 1")
    if n == 1:
        return int(np.count_nonzero(np.bincount(tids.ids, minlength=len(tids.vocab)))), int(
            tids.ids.size
        )
    inside = _inside_mask(tids, n)
    if not inside.any():
        return 0, 0
    codes, _ = _codes_all_positions(tids.ids, n, max(len(tids.vocab), 1))
    codes = codes[inside]
    del inside
    codes.sort()
    return int(np.count_nonzero(first_of_runs(codes))), int(codes.size)


def distinct_per_group(tids: TokenIds, n: int, group_of_text: np.ndarray, n_groups: int):
    """(distinct n-grams, total n-grams) of each group of texts, both int64 arrays of n_groups.

    Distinct is counted within a group (a set of responses), never across groups.
    """
    codes, starts, exact = ngram_codes(tids, n)
    totals = np.zeros(n_groups, dtype=np.int64)
    distinct = np.zeros(n_groups, dtype=np.int64)
    if codes.size == 0:
        return distinct, totals
    group = group_of_text[text_of_positions(tids, starts)]
    totals = np.bincount(group, minlength=n_groups).astype(np.int64)
    span = int(codes.max()) + 1 if exact else 0
    if exact and span * n_groups < _CODE_LIMIT:  # (group, code) as one exact int64
        keys = unique_sorted(group * span + codes)
        owner = keys // span
    else:  # the group's index in the top bits, the mixed code's top bits below it
        g_bits = max(int(n_groups - 1).bit_length(), 1)
        mixed = mix64(codes.view(np.uint64).copy()) >> np.uint64(g_bits)
        mixed |= group.astype(np.uint64) << np.uint64(64 - g_bits)
        keys = unique_sorted(mixed)
        owner = (keys >> np.uint64(64 - g_bits)).astype(np.int64)
    distinct = np.bincount(owner, minlength=n_groups).astype(np.int64)
    return distinct, totals


def group_code_keys(codes: np.ndarray, exact: bool, group: np.ndarray, n_groups: int) -> np.ndarray:
    """One key per (group, n-gram code), so that equal n-grams of different groups (sets) count
    apart: exact (group * span + code) while that fits in int64, else the group's index in the top
    bits above the top bits of the mixed code (collision bound as in :func:`distinct_per_group`)."""
    if n_groups <= 1 or codes.size == 0:
        return codes
    span = int(codes.max()) + 1 if exact else 0
    if exact and span * n_groups < _CODE_LIMIT:
        return group * span + codes
    g_bits = max(int(n_groups - 1).bit_length(), 1)
    mixed = mix64(codes.view(np.uint64).copy()) >> np.uint64(g_bits)
    mixed |= group.astype(np.uint64) << np.uint64(64 - g_bits)
    return mixed
