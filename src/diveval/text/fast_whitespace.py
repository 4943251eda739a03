"""Whitespace tokenization and token-id mapping in numpy, without a Python object per token.

``str.split()`` plus a dict lookup costs two Python objects and two hash probes per token (about
4 s for 10 million tokens here). This path works on the UTF-8 bytes instead: token borders come
from a whitespace table, and each token becomes an exact integer key built from its bytes
(tokens of up to 7 bytes pack into one uint64 with their length; 8-15 bytes into two words; longer
tokens, which are rare, go through a dict). Keys are exact, not hashes, so ids are exact.

It gives the same tokens as ``str.split()``; when the text holds a non-ASCII whitespace character
(which ``str.split()`` also splits on) the caller falls back to the plain Python path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..sorted_sets import union_sorted
from .ngrams import TokenIds, factorize

# The ASCII characters str.split() treats as white space (str.isspace), incl. \x1c-\x1f.
_WS_TABLE = np.zeros(256, dtype=bool)
_WS_TABLE[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True
_UNICODE_WS = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")


# _KEEP[k]: a big-endian uint64 mask that keeps the first k bytes of a word.
_KEEP = np.array([((1 << (8 * k)) - 1) << (8 * (8 - k)) for k in range(9)], dtype=np.uint64)


def _words(data: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The 8 bytes at each start as one big-endian uint64 (one gather, no Python loop)."""
    windows = np.lib.stride_tricks.sliding_window_view(data, 8)[starts]
    return windows.view(">u8").ravel().astype(np.uint64)


#: Characters of text tokenized at a time: the temporaries of one chunk (a few arrays of one
#: byte and a few of 8 bytes per character) stay near 25 MB whatever the size of the input.
CHUNK_CHARS = 1 << 21


def _chunks(texts: Sequence[str], size: int) -> tuple[list[tuple[int, int]], int]:
    """(first, end) text indices of consecutive chunks of about ``size`` characters, and an upper
    bound on the number of tokens (a text of L characters holds at most (L + 1) // 2)."""
    out, first, total, most = [], 0, 0, 0
    for i, t in enumerate(texts):
        n = len(t)
        total += n + 1
        most += (n + 1) // 2
        if total >= size:
            out.append((first, i + 1))
            first, total = i + 1, 0
    if first < len(texts) or not out:
        out.append((first, len(texts)))
    return out, most


def _borders(texts: Sequence[str], body: np.ndarray, only_joins: bool) -> np.ndarray:
    """Byte positions of the newlines that join the texts of a chunk (``only_joins``: the chunk
    holds no other newline)."""
    if only_joins:
        return np.flatnonzero(body == 10)
    # some text holds a newline itself: find the joining ones by the texts' byte sizes
    sizes = np.fromiter(
        (len(t.encode("utf-8")) + 1 for t in texts), dtype=np.int64, count=len(texts)
    )
    return np.cumsum(sizes)[:-1] - 1


def whitespace_token_ids(texts: Sequence[str], chunk_chars: int = CHUNK_CHARS) -> TokenIds | None:
    """TokenIds equal to splitting every text with ``str.split()``; None if the fast path can't.

    Texts are read in chunks of about ``chunk_chars`` characters, each chunk's ids written into
    one array sized for the most tokens the texts could hold (pages never written are never
    resident). Ids are the ranks of the tokens' keys among all distinct keys (short tokens first,
    then medium, then long ones in order of first occurrence), so they do not depend on the
    chunking: a chunk writes the ranks among its own short keys, and a last pass maps them to the
    ranks among every chunk's keys."""
    n_texts = len(texts)
    if n_texts == 0:
        return TokenIds(np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64), ())
    chunks, most = _chunks(texts, chunk_chars)
    counts = np.zeros(n_texts, dtype=np.int64)  # tokens per text
    keys = _TokenKeys(most)
    for first, end in chunks:
        tokens = _chunk_tokens(texts[first:end])
        if tokens is None:
            return None
        counts[first:end] = tokens.per_text
        keys.add(tokens)
    offsets = np.zeros(n_texts + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    ids, vocab = keys.ids_and_vocabulary()
    return TokenIds(ids, offsets, tuple(vocab))


@dataclass
class _ChunkTokens:
    """The tokens of one chunk of texts, found in its UTF-8 bytes."""

    raw: bytes
    data: np.ndarray  # the bytes as uint8, padded: gathers may read past the end
    starts: np.ndarray  # each token's first byte
    lengths: np.ndarray  # each token's bytes
    per_text: np.ndarray  # tokens of each text of the chunk


def _chunk_tokens(chunk: Sequence[str]) -> _ChunkTokens | None:
    """The tokens of ``chunk``; None where a text holds a non-ASCII white space character."""
    joined = "\n".join(chunk)
    if not joined.isascii() and _UNICODE_WS.search(joined):
        return None
    only_joins = joined.count("\n") == len(chunk) - 1
    raw = joined.encode("utf-8")
    del joined
    data = np.frombuffer(raw + b"\x00" * 16, dtype=np.uint8)
    body = data[: len(raw)]
    inside = ~_WS_TABLE[body]
    edges = np.diff(inside.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    del inside
    starts = np.flatnonzero(edges == 1)
    lengths = np.flatnonzero(edges == -1) - starts
    del edges
    # tokens per text: how many tokens start before each joining newline
    cuts = np.searchsorted(starts, _borders(chunk, body, only_joins))
    return _ChunkTokens(raw, data, starts, lengths, np.diff(cuts, prepend=0, append=starts.size))


class _TokenKeys:
    """Every chunk's tokens as exact keys: short ones (<= 7 bytes) one uint64 with their length,
    medium ones (8-15 bytes) two, long ones a dict; then the ids, ranks among all the keys."""

    def __init__(self, most: int) -> None:
        self.ids = np.empty(most, dtype=np.int64)  # short: the chunk's rank; medium 0; long: index
        self.kind = np.empty(most, dtype=np.int8)  # 0 short, 1 medium, 2 long
        self.spans: list[tuple[int, int]] = []  # per chunk: its tokens' [first, end) in ids
        self.short_keys: list[np.ndarray] = []  # per chunk: its distinct short keys, ascending
        self.heads: list[np.ndarray] = []
        self.tails: list[np.ndarray] = []
        self.long_index: dict[bytes, int] = {}
        self.at = 0

    def add(self, tokens: _ChunkTokens) -> None:
        """Write the keys of one chunk's tokens: short ranks among the chunk's short keys."""
        data, starts, lengths = tokens.data, tokens.starts, tokens.lengths
        out = self.ids[self.at : self.at + starts.size]
        out_kind = self.kind[self.at : self.at + starts.size]
        self.spans.append((self.at, self.at + starts.size))
        self.at += starts.size
        out_kind[:] = 0
        short = lengths <= 7
        s, ln = starts[short], lengths[short]
        keys = (_words(data, s) & _KEEP[ln]) | ln.astype(np.uint64)
        uniq, out[short] = factorize(keys)
        self.short_keys.append(uniq)
        medium = (lengths > 7) & (lengths <= 15)
        if medium.any():
            out_kind[medium] = 1
            out[medium] = 0
            s, ln = starts[medium], lengths[medium]
            self.heads.append(_words(data, s))
            self.tails.append((_words(data, s + 8) & _KEEP[ln - 8]) | ln.astype(np.uint64))
        long_ = np.flatnonzero(lengths > 15)
        if long_.size:
            out_kind[long_] = 2
            raw = tokens.raw
            for i in long_.tolist():
                tok = raw[starts[i] : starts[i] + lengths[i]]
                out[i] = self.long_index.setdefault(tok, len(self.long_index))

    def ids_and_vocabulary(self) -> tuple[np.ndarray, list[str]]:
        """(every token's id, the vocabulary): the keys' ranks among every chunk's keys."""
        vocab: list[str] = []
        short_keys = self.short_keys
        all_short = union_sorted(short_keys) if short_keys else np.zeros(0, dtype=np.uint64)
        for k in all_short.tolist():
            vocab.append(k.to_bytes(8, "big")[: k & 0xFF].decode("utf-8"))
        medium_ids = self._medium_ids(vocab)
        long_base = len(vocab)
        vocab.extend(t.decode("utf-8") for t in self.long_index)
        ids, kind = self.ids, self.kind
        medium_at = 0
        for (a, b), uniq in zip(self.spans, short_keys):
            out, out_kind = ids[a:b], kind[a:b]
            short = out_kind == 0
            out[short] = np.searchsorted(all_short, uniq)[out[short]]
            medium = out_kind == 1
            n_medium = int(np.count_nonzero(medium))
            out[medium] = medium_ids[medium_at : medium_at + n_medium]
            medium_at += n_medium
            out[out_kind == 2] += long_base
        del self.kind
        # a view of the first tokens: the pages past them were never written, so never resident
        return ids[: self.at], vocab

    def _medium_ids(self, vocab: list[str]) -> np.ndarray:
        """The ids of the medium tokens, in order, after the ``vocab`` so far (extended)."""
        if not self.heads:
            return np.zeros(0, dtype=np.int64)
        head_u, head = factorize(np.concatenate(self.heads))
        tail_u, tail = factorize(np.concatenate(self.tails))
        pair_u, medium_ids = factorize(head * len(tail_u) + tail)
        medium_ids += len(vocab)
        for p in pair_u.tolist():
            h, t = head_u[p // len(tail_u)], tail_u[p % len(tail_u)]
            word = int(h).to_bytes(8, "big") + int(t).to_bytes(8, "big")[: (int(t) & 0xFF) - 8]
            vocab.append(word.decode("utf-8"))
        return medium_ids
