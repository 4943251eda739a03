"""Streaming corpus counts in bounded memory equal the in-memory metric; HLL states its error."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import diveval
from diveval.errors import InputError
from diveval.scale.streaming import parse_memory, stream_counts, stream_score


def write_corpus(path, n_lines=6000, seed=0):
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(400)]
    weights = [1 / (i + 1) for i in range(400)]
    lines = [" ".join(rng.choices(words, weights, k=rng.randint(0, 20))) for _ in range(n_lines)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lines


def counter_counts(lines, n):
    grams = Counter(
        tuple(t[i : i + n]) for t in (line.split() for line in lines) for i in range(len(t) - n + 1)
    )
    return len(grams), sum(grams.values())


def test_many_chunks_and_partitions_count_exactly(tmp_path):
    lines = write_corpus(tmp_path / "c.txt")
    with open(tmp_path / "c.txt", encoding="utf-8") as fh:
        # a tiny budget and a huge size hint: many chunks, 2**k spill partitions
        counts = stream_counts(fh, [1, 2, 3, 4], memory=1 << 20, size_hint=1 << 30)
    for n in (1, 2, 3, 4):
        assert counts[n][:2] == counter_counts(lines, n)


def test_stream_score_equals_the_in_memory_scores(tmp_path):
    lines = write_corpus(tmp_path / "c.txt", seed=1)
    names = ["distinct-1", "distinct-4", "ead", "ead-2", "avg-distinct"]
    local = diveval.score(lines, names, lowercase=True)
    streamed = stream_score(tmp_path / "c.txt", names, lowercase=True, memory="64M")
    for name in names:
        assert streamed[name].signature == local[name].signature
        assert streamed[name].value == pytest.approx(local[name].value, rel=1e-12)
    assert dict(streamed["distinct-4"].details) == dict(local["distinct-4"].details)


def test_hll_is_approximate_and_says_so(tmp_path):
    pytest.importorskip("datasketches")
    lines = write_corpus(tmp_path / "c.txt", n_lines=20000, seed=2)
    exact, _ = counter_counts(lines, 3)
    got = stream_score(tmp_path / "c.txt", ["distinct-3"], approx="hll", lg_k=14)["distinct-3"]
    d = got.details
    assert "approx:hll-14" in got.signature
    assert d["distinct_lower_95"] <= exact <= d["distinct_upper_95"]
    assert abs(d["distinct_ngrams"] - exact) / exact < 4 * d["relative_standard_error"]


def test_bad_arguments_are_input_errors(tmp_path):
    assert parse_memory("2G") == 2 << 30 and parse_memory("500M") == 500 << 20
    for bad in ("lots", "1K", "-2G"):
        with pytest.raises(InputError, match="--stream-memory"):
            parse_memory(bad)
    with pytest.raises(InputError, match="streaming in bounded memory covers"):
        stream_score(tmp_path / "x.txt", ["self-bleu"])
    with pytest.raises(InputError, match="missing.txt"):
        stream_score(tmp_path / "missing.txt", ["distinct-1"])
    (tmp_path / "latin.txt").write_bytes(b"caf\xe9 au lait\n")
    with pytest.raises(InputError, match="latin.txt: not UTF-8"):
        stream_score(tmp_path / "latin.txt", ["distinct-1"])
