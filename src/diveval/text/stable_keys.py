"""N-gram keys that mean the same n-gram in every process, so that states counted in different
shards, files or Ray workers can be merged.

A key cannot be the per-run token id of :mod:`diveval.text.ngrams` (ids follow the order tokens
first appear in, which differs between shards): each token is hashed from its UTF-8 bytes (64 bits)
and the n token hashes are chained through the same bijective 64-bit mixer as the n-gram engine.
Collision bound: two different n-grams share a key with probability about n * 2**-64 (plus the
tokens' own, L * 2**-64 for tokens of L bytes: see :func:`token_hashes`), so among D distinct
n-grams the expected number of merged pairs is below n * D**2 / 2**65 (under 1e-5 for D = 10M,
about 0.1 for D = 10 billion at n = 4); each merged pair lowers a distinct count by one.
"""

from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np

from .ngrams import HASH_STEP, mix64

# Tokens up to this many UTF-8 bytes are hashed by the vectorised chain below; longer ones (rare)
# by BLAKE2b, one at a time.
_SHORT_TOKEN = 64


def token_hashes(vocab: Sequence[str]) -> np.ndarray:
    """A 64-bit hash of each token's text, the same in every process and on every machine.

    A chain over the token's bytes, column by column for the whole vocabulary at once (a Python
    call per token cost 4 times the n-gram counting of a 2M-token shard): seeded with the byte
    length, each byte steps the state through the bijective mixer, then one final mix. Two
    different tokens of L bytes collide with probability about L * 2**-64.
    """
    data = [t.encode("utf-8", "surrogatepass") for t in vocab]
    lengths = np.fromiter(map(len, data), dtype=np.int64, count=len(data))
    offsets = np.zeros(len(data) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    flat = np.frombuffer(b"".join(data), dtype=np.uint8)
    h = lengths.astype(np.uint64) * HASH_STEP
    short = lengths <= _SHORT_TOKEN
    for col in range(int(lengths[short].max()) if short.any() else 0):
        active = np.flatnonzero(short & (lengths > col))
        x = mix64(h[active])
        x *= HASH_STEP
        x += flat[offsets[active] + col].astype(np.uint64) + np.uint64(1)
        h[active] = x
    mix64(h)
    for i in np.flatnonzero(~short):
        digest = hashlib.blake2b(data[i], digest_size=8).digest()
        h[i] = int.from_bytes(digest, "little")
    return h


def ngram_keys(ids: np.ndarray, hashes: np.ndarray, starts: np.ndarray, n: int) -> np.ndarray:
    """Shard-independent keys (uint64) of the n-grams that start at ``starts``."""
    keys = hashes[ids[starts]]
    for k in range(1, n):
        mix64(keys)
        keys *= HASH_STEP
        keys += hashes[ids[starts + k]]
    return keys
