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
from diveval.lexical.ngram_state import NgramState
from diveval.lexical.self_bleu_state import SelfBleuState


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
    with pytest.raises(InputError, match="no fixed vocabulary"):
        empty.result("ead", n=2, vocab="tokenizer")
    with pytest.raises(InputError, match="list of texts"):
        empty.update([["a", "b"]])


def sharded_self_bleu(texts, n_shards, tmp_path=None, **options):
    """Pass 1 per shard, merge (through files when tmp_path is given), pass 2 per shard."""
    shards = [texts[i::n_shards] for i in range(n_shards)]
    merged = SelfBleuState(**options)
    for i, shard in enumerate(shards):
        state = SelfBleuState(**options)
        state.update(shard)
        if tmp_path is not None:
            state.save(tmp_path / f"pass1.{i}.state")
            state = SelfBleuState.load(tmp_path / f"pass1.{i}.state")
        merged = merged.merge(state)
    per = [merged.score(shard) for shard in shards]
    back = np.empty(len(texts))
    for i, values in enumerate(per):
        back[i::n_shards] = values
    return merged.result(np.concatenate(per)), back


@pytest.mark.parametrize(
    "options",
    [{}, {"smoothing": "method5"}, {"max_n": 2, "include_self": True}, {"lowercase": True}],
)
def test_sharded_self_bleu_equals_the_one_process_score(options, tmp_path):
    texts = (
        zipf_texts(1500, seed=3, vocab=80) + ["", "w0", "W1 w2"] + zipf_texts(40, seed=3, vocab=80)
    )
    got, per = sharded_self_bleu(texts, 4, tmp_path, **options)
    local = diveval.self_bleu(
        texts,
        max_n=options.get("max_n", 4),
        smoothing=options.get("smoothing", "method1"),
        lowercase=options.get("lowercase", False),
        include_self=options.get("include_self", False),
    )
    assert got.signature == local.signature
    assert got.value == pytest.approx(local.value, abs=1e-12)
    assert np.allclose(per, local.items, rtol=0, atol=1e-12)


def test_sharded_self_bleu_matches_nltk_sentence_bleu():
    nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")
    texts = zipf_texts(60, seed=11, vocab=25)
    _, per = sharded_self_bleu(texts, 3)
    smooth = nltk_bleu.SmoothingFunction().method1
    toks = [t.split() for t in texts]
    for i, hyp in enumerate(toks):
        refs = toks[:i] + toks[i + 1 :]
        want = nltk_bleu.sentence_bleu(refs, hyp, smoothing_function=smooth) if hyp else 0.0
        assert per[i] == pytest.approx(want, abs=1e-12)


def test_self_bleu_state_errors():
    one = SelfBleuState()
    one.update(["only one"])
    with pytest.raises(InputError, match="at least 2"):
        one.score(["only one"])
    two = SelfBleuState()
    two.update(["a b", "b c"])
    with pytest.raises(InputError, match="did not count"):
        two.score(["z z z"])
    with pytest.raises(InputError, match="2 sentence scores for a corpus of 3"):
        two.merge(one).result(np.zeros(2))
    with pytest.raises(InputError, match="different settings"):
        two.merge(SelfBleuState(max_n=2))
    with pytest.raises(InputError):
        SelfBleuState(smoothing="method99")


@pytest.mark.parametrize("q", [0.5, 1.0, 2.0, "inf"])
def test_gram_state_equals_the_vendi_of_all_rows(q, tmp_path):
    from diveval.semantic.gram_state import GramState
    from diveval.semantic.vendi import vendi_from_eigenvalues, vendi_from_features

    rng = np.random.default_rng(4)
    for n_rows, dim in ((7, 12), (40, 5)):  # fewer rows than dimensions, and more
        x = rng.normal(size=(n_rows, dim))
        x[[1, 4]] = 0.0  # rows with no direction
        want = vendi_from_features(x, q)
        parts = [GramState(dim).update(x[i : i + 3]) for i in range(0, n_rows, 3)]
        merged = parts[0].merge(*parts[1:])
        assert merged.n_rows == n_rows and merged.n_empty == 2
        assert vendi_from_eigenvalues(merged.eigenvalues(), q) == pytest.approx(want, rel=1e-9)
        merged.save(tmp_path / "g.state")
        again = GramState.load(tmp_path / "g.state")
        assert np.array_equal(again.gram, merged.gram) and again.n_empty == 2
    with pytest.raises(InputError, match="different settings"):
        GramState(3).merge(GramState(4))
    with pytest.raises(InputError, match="at least one item"):
        GramState(3).eigenvalues()
