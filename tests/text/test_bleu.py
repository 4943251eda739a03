"""diveval.text.bleu against nltk (sentence and corpus BLEU) and sacrebleu (corpus BLEU)."""

from __future__ import annotations

import inspect
import random
import warnings

import pytest
from conftest import diversity_eval_sets
from hypothesis import given, settings
from hypothesis import strategies as st

from diveval.text.bleu import (
    SMOOTHING_METHODS,
    BleuStats,
    closest_ref_length,
    corpus_bleu,
    corpus_stats,
    sacrebleu_corpus_bleu,
    segment_stats,
    sentence_bleu,
)

nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")
SF = nltk_bleu.SmoothingFunction()
TOL = 1e-9


def _nltk_sentence(hyp, refs, max_n, method, weights=None, **kw):
    weights = weights or tuple(1 / max_n for _ in range(max_n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(nltk_bleu.sentence_bleu(refs, hyp, weights, getattr(SF, method), **kw))


def _nltk_corpus(hyps, refs, max_n, method, weights=None, **kw):
    weights = weights or tuple(1 / max_n for _ in range(max_n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(nltk_bleu.corpus_bleu(refs, hyps, weights, getattr(SF, method), **kw))


def _rand_sentence(rng, vocab, max_len=8):
    return [rng.choice(vocab) for _ in range(rng.randint(0, max_len))]


@pytest.mark.parametrize("method", SMOOTHING_METHODS)
@pytest.mark.parametrize("max_n", [1, 2, 3, 4, 5])
def test_sentence_bleu_equals_nltk(method, max_n):
    # tiny vocabularies: many repeated n-grams inside a sentence, short sentences, empty ones
    rng = random.Random(1000 * max_n + SMOOTHING_METHODS.index(method))
    for _ in range(120):
        vocab = rng.choice(["ab", "abc", "abcdefg"])
        hyp = _rand_sentence(rng, vocab)
        refs = [_rand_sentence(rng, vocab) for _ in range(rng.randint(1, 4))]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = sentence_bleu(hyp, refs, max_n=max_n, smoothing=method)
        assert got == pytest.approx(_nltk_sentence(hyp, refs, max_n, method), abs=TOL), (hyp, refs)


@pytest.mark.parametrize("method", SMOOTHING_METHODS)
@pytest.mark.parametrize("max_n", [1, 2, 4, 5])
def test_corpus_bleu_equals_nltk(method, max_n):
    rng = random.Random(7 + max_n + 31 * SMOOTHING_METHODS.index(method))
    for _ in range(60):
        vocab = rng.choice(["ab", "abcd", "abcdefgh"])
        hyps = [_rand_sentence(rng, vocab) for _ in range(rng.randint(1, 5))]
        refs = [[_rand_sentence(rng, vocab) for _ in range(rng.randint(1, 3))] for _ in hyps]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = corpus_bleu(hyps, refs, max_n=max_n, smoothing=method)
        assert got == pytest.approx(_nltk_corpus(hyps, refs, max_n, method), abs=TOL), (hyps, refs)


def test_custom_weights_and_auto_reweigh():
    rng = random.Random(3)
    for _ in range(200):
        hyp = _rand_sentence(rng, "abc", 5)
        refs = [_rand_sentence(rng, "abc", 6) for _ in range(2)]
        w = (0.5, 0.3, 0.2)
        assert sentence_bleu(hyp, refs, weights=w) == pytest.approx(
            _nltk_sentence(hyp, refs, 3, "method1", w), abs=TOL
        )
        w4 = (0.25, 0.25, 0.25, 0.25)
        assert sentence_bleu(hyp, refs, weights=w4, auto_reweigh=True) == pytest.approx(
            _nltk_sentence(hyp, refs, 4, "method1", w4, auto_reweigh=True), abs=TOL
        )


@settings(max_examples=150, deadline=None)
@given(
    hyp=st.lists(st.sampled_from("abcd"), max_size=9),
    refs=st.lists(st.lists(st.sampled_from("abcd"), max_size=9), min_size=1, max_size=4),
    max_n=st.integers(1, 5),
    method=st.sampled_from(SMOOTHING_METHODS),
)
def test_sentence_bleu_property(hyp, refs, max_n, method):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = sentence_bleu(hyp, refs, max_n=max_n, smoothing=method)
    assert got == pytest.approx(_nltk_sentence(hyp, refs, max_n, method), abs=TOL)


def test_known_values_and_edge_cases():
    hyp = "the cat is on the mat".split()
    ref = "the cat sat on the mat".split()
    assert sentence_bleu(hyp, [ref], smoothing="method1") == pytest.approx(
        _nltk_sentence(hyp, [ref], 4, "method1"), abs=TOL
    )
    # empty hypothesis and no unigram overlap are exactly 0 whatever the smoothing
    for m in SMOOTHING_METHODS:
        assert sentence_bleu([], [ref], smoothing=m) == 0.0
        assert sentence_bleu(["zzz"], [ref], smoothing=m) == 0.0
    # identical sentence of >= max_n tokens: 1
    assert sentence_bleu(ref, [ref]) == pytest.approx(1.0)
    # method0 with a zero order warns and is ~0 (nltk substitutes the smallest float)
    with pytest.warns(UserWarning):
        v = sentence_bleu("a b x".split(), ["a b y".split()], smoothing="method0")
    assert 0 < v < 1e-50


def test_closest_ref_length_tie_goes_to_shorter():
    assert closest_ref_length([4, 6], 5) == 4
    assert closest_ref_length([6, 4], 5) == 4
    assert closest_ref_length([7, 5], 6) == 5
    assert closest_ref_length([9, 2, 5], 5) == 5
    # through BLEU: hypothesis of 5 tokens, references of 4 and 6 (brevity penalty from 4 = 1)
    hyp = list("abcde")
    assert sentence_bleu(hyp, [list("abcdef"), list("abcd")], max_n=2) == pytest.approx(
        _nltk_sentence(hyp, [list("abcdef"), list("abcd")], 2, "method1"), abs=TOL
    )


def test_stats_add_up():
    rng = random.Random(11)
    hyps = [_rand_sentence(rng, "abcde") for _ in range(30)]
    refs = [[_rand_sentence(rng, "abcde") for _ in range(2)] for _ in hyps]
    parts = [segment_stats(h, r, 4) for h, r in zip(hyps, refs)]
    total = sum(parts)
    assert total == corpus_stats(hyps, refs, 4)
    assert total.segments == 30
    assert (sum(parts[:10]) + sum(parts[10:])) == total
    assert total.nltk_score(smoothing="method1") == pytest.approx(
        _nltk_corpus(hyps, refs, 4, "method1"), abs=TOL
    )
    with pytest.raises(ValueError):
        _ = BleuStats.zero(3) + BleuStats.zero(4)


def test_bad_input():
    with pytest.raises(TypeError):
        sentence_bleu("a b c", ["a b c"])  # strings, not token lists
    with pytest.raises(TypeError):
        sentence_bleu(["a"], ["a", "b"])  # references given as one token list
    with pytest.raises(ValueError):
        sentence_bleu(["a"], [])
    with pytest.raises(ValueError):
        sentence_bleu(["a"], [["a"]], smoothing="method6")
    with pytest.raises(ValueError):
        sentence_bleu(["a"], [["a"]], max_n=0)
    with pytest.raises(ValueError):
        corpus_bleu([["a"]], [[["a"]], [["b"]]])


# --------------------------------------------------------------------------------------------
# sacrebleu mode

sacrebleu = pytest.importorskip("sacrebleu")


def _streams(refs_per_hyp):
    """Per-hypothesis references -> sacrebleu reference streams (None where a hypothesis has fewer)."""
    k = max(len(r) for r in refs_per_hyp)
    return [[r[i] if i < len(r) else None for r in refs_per_hyp] for i in range(k)]


@pytest.mark.parametrize("smooth", ["exp", "floor", "add-k", "none"])
@pytest.mark.parametrize("tokenize", ["13a", "none"])
def test_sacrebleu_mode_equals_sacrebleu(smooth, tokenize):
    rng = random.Random(hash((smooth, tokenize)) % 1000)
    words = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran.", "Hello,", "world!", "it's"]
    for trial in range(40):
        hyps = [
            " ".join(rng.choice(words) for _ in range(rng.randint(0, 9)))
            for _ in range(rng.randint(1, 6))
        ]
        k = rng.randint(1, 3)
        refs = [
            [" ".join(rng.choice(words) for _ in range(rng.randint(1, 9))) for _ in range(k)]
            for _ in hyps
        ]
        lc = trial % 2 == 1
        ours = sacrebleu_corpus_bleu(
            hyps, refs, tokenize=tokenize, lowercase=lc, smooth_method=smooth
        )
        theirs = sacrebleu.corpus_bleu(
            hyps, _streams(refs), tokenize=tokenize, lowercase=lc, smooth_method=smooth
        ).score
        assert ours == pytest.approx(theirs, abs=1e-9), (hyps, refs)


def test_sacrebleu_mode_pretokenized_and_effective_order():
    hyps = ["the cat sat", "a dog"]
    refs = [["the cat sat on the mat"], ["a dog ran"]]
    toks = [h.split() for h in hyps]
    rtoks = [[r.split() for r in rs] for rs in refs]
    want = sacrebleu.corpus_bleu(hyps, _streams(refs), tokenize="none").score
    assert sacrebleu_corpus_bleu(toks, rtoks, tokenize=None) == pytest.approx(want, abs=1e-9)
    want_eff = sacrebleu.corpus_bleu(hyps, _streams(refs), use_effective_order=True).score
    assert sacrebleu_corpus_bleu(hyps, refs, use_effective_order=True) == pytest.approx(
        want_eff, abs=1e-9
    )
    with pytest.raises(ValueError):
        sacrebleu_corpus_bleu(toks, rtoks, tokenize="13a")


def _diversity_eval_rows(limit=None):
    rows = diversity_eval_sets()
    return rows[:limit] if limit else rows


def test_on_diversity_eval_responses():
    """resp_0 against resp_1.. of each row: nltk (sentence and corpus) and sacrebleu."""
    rows = _diversity_eval_rows()[::3]  # every third row of every file keeps this fast
    hyps = [r[0] for r in rows]
    refs = [r[1:] for r in rows]
    tok_h = [h.split() for h in hyps]
    tok_r = [[x.split() for x in rs] for rs in refs]
    for h, rs in zip(tok_h, tok_r):
        assert sentence_bleu(h, rs) == pytest.approx(_nltk_sentence(h, rs, 4, "method1"), abs=TOL)
    assert corpus_bleu(tok_h, tok_r, smoothing="method0") == pytest.approx(
        _nltk_corpus(tok_h, tok_r, 4, "method0"), abs=TOL
    )
    assert sacrebleu_corpus_bleu(hyps, refs) == pytest.approx(
        sacrebleu.corpus_bleu(hyps, _streams(refs)).score, abs=1e-9
    )


def test_sentence_bleu_declares_corpus_bleus_options():
    """sentence_bleu is corpus_bleu of one segment (as nltk defines it): its own two first
    parameters, then corpus_bleu's options, visible to help() and inspect."""
    ours = list(inspect.signature(sentence_bleu).parameters.values())
    theirs = list(inspect.signature(corpus_bleu).parameters.values())
    assert [p.name for p in ours[:2]] == ["hypothesis", "references"]
    assert ours[2:] == theirs[2:] and theirs[2].name == "max_n"
    assert inspect.signature(sentence_bleu).parameters["smoothing"].default == "method1"
