"""Self-repetition and the n-gram diversity score against the ``diversity`` package."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from diversity_reference import diversity_module, generated_documents

from diveval.lexical.distinct import distinct
from diveval.lexical.repetition import ngram_diversity, self_repetition


@pytest.mark.parametrize("seed,n_docs", [(1, 50), (2, 300), (3, 1000)])
def test_self_repetition_equals_the_diversity_package(seed, n_docs):
    ref = diversity_module("self_repetition")
    docs = generated_documents(n_docs, seed, max_len=25)
    assert self_repetition(docs).value == pytest.approx(
        ref.self_repetition_score(docs, verbose=False), rel=1e-12
    )


@pytest.mark.parametrize("n", [1, 2, 3])
def test_self_repetition_other_orders(n):
    ref = diversity_module("self_repetition")
    docs = generated_documents(80, 10 + n)
    assert self_repetition(docs, n=n).value == pytest.approx(
        ref.self_repetition_score(docs, n=n, verbose=False), rel=1e-12
    )


def test_self_repetition_in_sets_counts_only_the_documents_of_the_same_set():
    a, b = generated_documents(30, 20), generated_documents(30, 21)
    got = self_repetition([a, b])
    assert got.items.tolist() == pytest.approx([self_repetition(a).value, self_repetition(b).value])


def test_self_repetition_by_hand():
    # d0 and d1 share the 4-gram "a b c d" once; d2 is shorter than 4 tokens
    docs = ["a b c d e", "x a b c d", "a b"]
    want = (math.log(1 + 1) + math.log(1 + 1) + math.log(1)) / 3
    assert self_repetition(docs).value == pytest.approx(want)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_ngram_diversity_equals_the_diversity_package(seed):
    ref = diversity_module("ngram_diversity")
    docs = generated_documents(200, seed)
    # the package joins the responses as given: diveval's default
    assert round(ngram_diversity(docs).value, 3) == ref.ngram_diversity_score(docs)
    assert round(ngram_diversity(docs, join="sorted").value, 3) == ref.ngram_diversity_score(
        sorted(docs)
    )


def test_ngram_diversity_with_the_space_tokenizer_equals_the_package_on_any_spacing():
    ref = diversity_module("ngram_diversity")
    docs = ["a  b c", "a b c"]
    assert ref.ngram_diversity_score(docs) == 3.405
    assert round(ngram_diversity(docs, tokenizer="space").value, 3) == 3.405
    assert round(ngram_diversity(docs).value, 3) == 2.85  # runs of white space are one break
    assert "tok:space" in ngram_diversity(docs, tokenizer="space").signature
    rng = random.Random(5)
    for _ in range(20):
        messy = [
            "".join(rng.choice(["a", "b", "c", " ", "  ", "\t", "\n", "d."]) for _ in range(12))
            for _ in range(rng.randint(1, 6))
        ]
        if len(" ".join(messy).split(" ")) < 4:
            continue  # the package divides by zero when an order has no n-gram
        want = ref.ngram_diversity_score(messy)
        assert round(ngram_diversity(messy, tokenizer="space").value, 3) == want


def test_ngram_diversity_joins_across_responses_and_sums_orders():
    docs = ["a b", "a b"]
    # joined: a b a b -> 2/4 + 2/3 ("a b", "b a") + 2/2 + 1/1; Distinct-2 sees only "a b" twice
    assert ngram_diversity(docs).value == pytest.approx(0.5 + 2 / 3 + 1 + 1)
    assert distinct(docs, n=2).value == 0.5
    tokens = "a b a b".split()
    grams = Counter(zip(tokens, tokens[1:]))
    assert len(grams) == 2


def test_ngram_diversity_order_with_no_ngram_adds_zero():
    assert ngram_diversity(["a b"]).value == pytest.approx(1 + 1)


def test_ngram_diversity_joins_as_given_unless_sorted():
    docs = ["b c", "a b", "c a"]
    # as given: b c a b c a -> the boundary bigrams "c a", "b c" repeat
    given = ngram_diversity(docs)
    tokens = "b c a b c a".split()
    want = sum(
        len(set(zip(*(tokens[i:] for i in range(n))))) / (len(tokens) - n + 1) for n in (1, 2, 3, 4)
    )
    assert given.value == pytest.approx(want)
    assert "join:given" in given.signature
    # sorted: a b b c c a, whatever the order given
    srt = ngram_diversity(docs, join="sorted")
    assert srt.value == ngram_diversity(docs[::-1], join="sorted").value
    assert srt.value != given.value and "join:sorted" in srt.signature
