"""Mergeable n-gram states: any split, merged in any order, equals the one-process metric."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diveval
from diveval.errors import InputError
from diveval.scale import NgramState


def counter_distinct(texts, n):
    """Independent reference: Python tuples in a Counter."""
    grams = Counter(
        tuple(toks[i : i + n])
        for toks in (t.split() for t in texts)
        for i in range(len(toks) - n + 1)
    )
    return len(grams), sum(grams.values())


def zipf_texts(count, seed, vocab=300):
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(vocab)]
    weights = [1 / (i + 1) for i in range(vocab)]
    return [" ".join(rng.choices(words, weights, k=rng.randint(0, 15))) for _ in range(count)]


texts_strategy = st.lists(
    st.lists(st.sampled_from("a b c d e".split()), max_size=8).map(" ".join), max_size=40
)


@settings(max_examples=60, deadline=None)
@given(texts=texts_strategy, cuts=st.lists(st.integers(0, 40), max_size=4))
def test_any_split_merges_to_the_counter_counts(texts, cuts):
    bounds = sorted({0, len(texts), *(min(c, len(texts)) for c in cuts)})
    parts = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        part = NgramState([1, 2, 3])
        part.update(texts[a:b])
        parts.append(part)
    merged = NgramState([1, 2, 3])
    for part in reversed(parts):  # order and grouping do not matter
        merged = merged.merge(part)
    for n in (1, 2, 3):
        assert merged.counts(n) == counter_distinct(texts, n)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_merged_result_equals_the_one_process_score(n):
    texts = zipf_texts(2000, seed=n)
    shards = []
    for i in range(3):
        shard = NgramState(range(1, 6))
        for batch in range(0, 2000, 250):  # many small updates inside a shard
            shard.update(texts[i::3][batch : batch + 250])
        shards.append(shard)
    merged = shards[0].merge(shards[1]).merge(shards[2])
    for metric, local in (
        ("distinct", diveval.distinct(texts, n=n)),
        ("ead", diveval.ead(texts, n=n)),
    ):
        got = merged.result(metric, n=n)
        assert got.value == pytest.approx(local.value, rel=1e-12)
        assert got.signature == local.signature
    assert merged.counts(n) == counter_distinct(texts, n)
    assert merged.n_texts == 2000


def test_lowercase_and_tokenizer_are_part_of_the_state():
    texts = ["A a b", "B b"]
    lower = NgramState([1], lowercase=True)
    lower.update(texts)
    assert lower.counts(1) == (2, 5)
    assert (
        lower.result("distinct", n=1).signature
        == diveval.distinct(texts, n=1, lowercase=True).signature
    )
    with pytest.raises(InputError, match="different settings"):
        lower.merge(NgramState([1]))


def test_save_and_load_round_trip(tmp_path):
    state = NgramState([1, 2])
    state.update(zipf_texts(500, seed=7))
    path = tmp_path / "part.state"
    state.save(path)
    back = NgramState.load(path)
    assert back.settings() == state.settings()
    for n in (1, 2):
        assert back.counts(n) == state.counts(n)
        assert np.array_equal(back.keys(n), state.keys(n))


def test_a_file_that_is_not_a_state_is_an_input_error(tmp_path):
    junk = tmp_path / "junk.state"
    junk.write_text("not a state\n")
    with pytest.raises(InputError, match="junk.state: not a diveval state file"):
        NgramState.load(junk)


def test_undefined_cases_follow_the_distinct_rule():
    empty = NgramState([2])
    empty.update(["", "one"])
    assert empty.counts(2) == (0, 0)
    assert empty.result("distinct", n=2).value == 0.0
    assert empty.result("ead", n=2).value == 0.0
    with pytest.raises(InputError, match="orders"):
        empty.counts(3)
    with pytest.raises(InputError, match="integer vocabulary"):
        empty.result("ead", n=2, vocab="tokenizer")
    with pytest.raises(InputError, match="list of texts"):
        empty.update([["a", "b"]])
