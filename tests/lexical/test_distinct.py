"""Distinct-n, averaged distinct and n-gram cosine diversity: reference values, properties."""

from collections import Counter

import numpy as np
import pytest
from conftest import read_tevet_csv, shared_path
from hypothesis import given
from hypothesis import strategies as st

import diveval
from diveval.errors import InputError

TEVET_FILES = [
    ("conTest", "con_test_200_with_hds_resp_gen.csv"),
    ("decTest", "dec_test_200_with_hds_resp_gen.csv"),
    ("decTest", "dec_test_1000_no_hds_resp_gen.csv"),
]


def read_tevet(folder, name):
    return read_tevet_csv(shared_path("diversity-eval", folder, name))


@pytest.mark.parametrize("folder,name", TEVET_FILES)
def test_reproduces_tevet_and_berants_published_values(folder, name):
    rows, sets = read_tevet(folder, name)
    avg = diveval.avg_distinct(sets, tokenizer="tevet")
    cos = diveval.cosine_diversity(sets, tokenizer="tevet")
    want_avg = np.array([float(r["metric_AveragedDistinctNgrams"]) for r in rows])
    want_cos = np.array([float(r["metric_AveragedCosineSimilarity"]) for r in rows])
    # The published columns are rounded to 3 decimals: every row must agree to that rounding.
    assert np.all(np.abs(avg.items - want_avg) <= 0.0005 + 1e-12)
    assert np.all(np.abs(cos.items - want_cos) <= 0.0005 + 1e-12)
    assert len(avg.items) == len(rows)


def reference_distinct(texts, n):
    grams = [tuple(t.split()[i : i + n]) for t in texts for i in range(len(t.split()) - n + 1)]
    return len(set(grams)) / len(grams) if grams else 0.0


sentences = st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=7).map(" ".join)
corpora = st.lists(sentences, min_size=1, max_size=10)


@given(corpora, st.integers(1, 4))
def test_corpus_distinct_equals_set_of_tuples(texts, n):
    assert diveval.distinct(texts, n=n).value == pytest.approx(
        reference_distinct(texts, n), abs=1e-12
    )


@given(st.lists(corpora, min_size=1, max_size=5), st.integers(1, 3), st.randoms())
def test_sets_distinct_bounds_and_order_invariance(sets, n, rnd):
    score = diveval.distinct(sets, n=n)
    assert np.all((score.items >= 0) & (score.items <= 1))
    for s, v in zip(sets, score.items):
        assert v == pytest.approx(reference_distinct(s, n))
    shuffled = [rnd.sample(s, len(s)) for s in sets]
    order = list(range(len(sets)))
    rnd.shuffle(order)
    again = diveval.distinct([shuffled[i] for i in order], n=n)
    assert again.value == pytest.approx(score.value)
    assert np.allclose(again.items, score.items[order])


# At least 5 tokens: with fewer, the 5-grams are empty and Tevet's rule scores their cosine 0.
@given(
    st.lists(st.sampled_from(["a", "b", "c"]), min_size=5, max_size=8).map(" ".join),
    st.integers(2, 6),
)
def test_identical_responses_give_the_minimum(text, m):
    one = diveval.distinct([[text]], n=1).value
    assert diveval.distinct([[text] * m], n=1).value == pytest.approx(one / m)
    assert diveval.cosine_diversity([[text] * m]).value == pytest.approx(-1.0)


@given(st.lists(sentences, min_size=2, max_size=6))
def test_cosine_diversity_bounds_and_pairwise_definition(texts):
    score = diveval.cosine_diversity([texts], n_max=2)
    assert -1 - 1e-12 <= score.value <= 0
    per_n = []
    for n in (1, 2):
        sims = []
        for i in range(len(texts)):
            for j in range(i):
                a = Counter(
                    tuple(texts[i].split()[k : k + n]) for k in range(len(texts[i].split()) - n + 1)
                )
                b = Counter(
                    tuple(texts[j].split()[k : k + n]) for k in range(len(texts[j].split()) - n + 1)
                )
                dot = sum(a[g] * b[g] for g in a)
                sims.append(
                    dot / np.sqrt(sum(v * v for v in a.values()) * sum(v * v for v in b.values()))
                    if dot
                    else 0.0
                )
        per_n.append(-np.mean(sims))
    assert score.value == pytest.approx(np.mean(per_n))


def test_empty_input_rules():
    assert diveval.distinct(["", ""], n=2).value == 0.0
    assert diveval.distinct([["a"], [""]], n=2).details["empty_sets"] == 2
    assert diveval.ead([""]).value == 0.0
    with pytest.raises(InputError, match="at least 2"):
        diveval.cosine_diversity([["only one"]])
    with pytest.raises(InputError, match="no responses"):
        diveval.distinct([])
    with pytest.raises(InputError, match="mix"):
        diveval.distinct(["a", ["b"]])


def test_signature_and_immutability():
    s = diveval.distinct(["a b", "a c"], n=2, tokenizer="13a", lowercase=True)
    assert s.signature.startswith("distinct|n:2|tok:13a|lc:yes|setting:corpus|diveval:")
    with pytest.raises(AttributeError):  # dataclasses.FrozenInstanceError
        s.value = 3
    sets = diveval.distinct([["a b"], ["a a"]], n=1)
    with pytest.raises(ValueError):
        sets.items[0] = 1.0


def test_score_tokenizes_once_and_matches_single_metric_calls():
    data = [["a b c", "a b d"], ["x y", "x y"]]
    many = diveval.score(data, ["distinct-1", "distinct-2", "avg-distinct", "ead", "cos-diversity"])
    assert many["distinct-2"].value == diveval.distinct(data, n=2).value
    assert many["ead"].value == diveval.ead(data).value
    with pytest.raises(InputError, match="supports the sets"):
        diveval.score(["a", "b"], ["cos-diversity"])
