"""Seeded synthetic corpora shared by the benchmarks: Zipf-distributed words, 10-20 tokens a line."""

from __future__ import annotations

import numpy as np


def zipf_sentences(
    n_tokens: int | None = None,
    n_sentences: int | None = None,
    vocab: int = 30000,
    min_len: int = 10,
    max_len: int = 20,
    seed: int = 0,
) -> list[str]:
    """Sentences of min_len..max_len words drawn from a Zipf(1) law over ``vocab`` words."""
    rng = np.random.default_rng(seed)
    if n_sentences is None:
        n_sentences = int(n_tokens / ((min_len + max_len) / 2))
    lengths = rng.integers(min_len, max_len + 1, size=n_sentences)
    ranks = np.arange(1, vocab + 1)
    p = 1.0 / ranks
    p /= p.sum()
    words = np.array([f"w{i}" for i in range(vocab)])
    ids = rng.choice(vocab, size=int(lengths.sum()), p=p)
    tokens = words[ids]
    out, start = [], 0
    for n in lengths:
        out.append(" ".join(tokens[start : start + n]))
        start += n
    return out
