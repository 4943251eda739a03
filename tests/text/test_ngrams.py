"""The numpy n-gram engine against collections.Counter over Python tuples."""

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from diveval.text.fast_whitespace import whitespace_token_ids
from diveval.text.ngrams import (
    NgramCounts,
    distinct_per_group,
    encode_tokens,
    factorize,
    ngram_codes,
    ngram_starts,
    unique_counts,
)

words = st.sampled_from(["a", "b", "c", "the", "cat", "ünï", "x" * 9, "y" * 20])
token_lists = st.lists(st.lists(words, max_size=8), min_size=1, max_size=8)


def counter(toks, n):
    return Counter(tuple(t[i : i + n]) for t in toks for i in range(len(t) - n + 1))


@given(token_lists, st.integers(1, 5))
def test_counts_equal_counter(toks, n):
    state = NgramCounts.from_tokens(toks, n)
    assert state.as_dict() == dict(counter(toks, n))
    assert state.total == sum(counter(toks, n).values())


@given(token_lists, token_lists, st.integers(1, 4))
def test_merge_of_two_halves_equals_one_pass(left, right, n):
    merged = NgramCounts.from_tokens(left, n).merge(NgramCounts.from_tokens(right, n))
    assert merged.as_dict() == NgramCounts.from_tokens(left + right, n).as_dict()


def test_counts_stay_right_when_base_power_overflows_int64():
    # 20,000 types and n = 5: 20000**5 > 2**62, so codes become hashes; n-grams are found again.
    rng = np.random.default_rng(1)
    vocab = [f"w{i}" for i in range(20000)]
    toks = [[vocab[i] for i in rng.integers(0, 20000, 12)] for _ in range(400)]
    toks += [toks[0], toks[1][:6]]  # repeats, so some 5-grams occur twice
    state = NgramCounts.from_tokens(toks, 5)
    assert state.as_dict() == dict(counter(toks, 5))
    half = NgramCounts.from_tokens(toks[:200], 5).merge(NgramCounts.from_tokens(toks[200:], 5))
    assert half.as_dict() == dict(counter(toks, 5))


def test_distinct_of_hashed_codes_equals_counter_in_both_settings():
    # ~60,000 types: 4- and 5-gram codes leave the exact int64 range and become hashes.
    rng = np.random.default_rng(7)
    vocab = [f"w{i}" for i in range(200000)]
    toks = [[vocab[i] for i in rng.integers(0, 200000, 12)] for _ in range(6000)]
    toks += toks[:50]  # whole repeated responses: repeated n-grams across and inside sets
    groups = np.arange(len(toks)) // 5
    tids = encode_tokens(toks)
    assert [ngram_codes(tids, n)[2] for n in (3, 4, 5)] == [True, False, False]  # exact, hashed
    for n in (3, 4, 5):
        state = NgramCounts.from_token_ids(tids, n)
        ref = counter(toks, n)
        assert (state.distinct, state.total) == (len(ref), sum(ref.values()))
        distinct, totals = distinct_per_group(tids, n, groups, int(groups[-1]) + 1)
        for g in range(int(groups[-1]) + 1):
            ref_g = counter([t for t, o in zip(toks, groups) if o == g], n)
            assert (distinct[g], totals[g]) == (len(ref_g), sum(ref_g.values()))


@given(
    st.lists(
        st.lists(token_lists, min_size=1, max_size=1).map(lambda x: x[0]), min_size=1, max_size=5
    ),
    st.integers(1, 3),
)
def test_distinct_per_group_counts_within_each_group(groups, n):
    flat = [t for g in groups for t in g]
    owner = np.repeat(np.arange(len(groups)), [len(g) for g in groups])
    distinct, totals = distinct_per_group(encode_tokens(flat), n, owner, len(groups))
    for g, toks in enumerate(groups):
        ref = counter(toks, n)
        assert distinct[g] == len(ref)
        assert totals[g] == sum(ref.values())


pieces = st.sampled_from(list("ab é\n\t\x1f\x00") + ["\u00a0", "long" * 5, "medium123"])
texts = st.lists(st.lists(pieces, max_size=12).map("".join), min_size=1, max_size=10)


@settings(max_examples=200)
@given(texts)
def test_vectorised_whitespace_path_equals_str_split(items):
    tids = whitespace_token_ids(items)
    if tids is None:  # non-ASCII white space: the caller takes the str.split path
        assert any("\u00a0" in t for t in items)
        return
    got = [
        [tids.vocab[i] for i in tids.ids[a:b]] for a, b in zip(tids.offsets[:-1], tids.offsets[1:])
    ]
    assert got == [t.split() for t in items]
    assert len(set(tids.vocab)) == len(tids.vocab)  # one id per distinct token


@settings(max_examples=200)
@given(texts, st.integers(1, 60))
def test_whitespace_ids_do_not_depend_on_the_chunking(items, chunk_chars):
    whole = whitespace_token_ids(items)
    chunked = whitespace_token_ids(items, chunk_chars=chunk_chars)
    if whole is None:
        assert chunked is None
        return
    assert chunked is not None
    assert np.array_equal(whole.ids, chunked.ids)
    assert np.array_equal(whole.offsets, chunked.offsets)
    assert whole.vocab == chunked.vocab


@settings(max_examples=100)
@given(st.lists(st.integers(0, 6), max_size=12), st.integers(1, 5))
def test_ngram_starts_are_the_positions_with_n_tokens_left_in_their_text(lengths, n):
    tids = encode_tokens([[f"t{i}"] * m for i, m in enumerate(lengths)])
    want = [a + p for a, m in zip(tids.offsets[:-1].tolist(), lengths) for p in range(m - n + 1)]
    assert ngram_starts(tids, n).tolist() == want
    assert ngram_starts(tids, n).dtype == np.int64


@given(st.lists(st.integers(-5, 5), max_size=40))
def test_factorize_and_unique_counts(values):
    x = np.array(values, dtype=np.int64)
    uniq, inverse = factorize(x)
    assert list(uniq) == sorted(set(values))
    assert np.array_equal(uniq[inverse], x)
    u, c = unique_counts(x)
    assert dict(zip(u.tolist(), c.tolist())) == dict(Counter(values))
