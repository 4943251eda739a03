"""Linear-time Self-BLEU equals the O(N^2) nltk loop (per sentence and mean) to 1e-9."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from conftest import diversity_eval_sets
from hypothesis import given, settings
from hypothesis import strategies as st

from diveval.lexical.self_bleu import sample_indices, self_bleu, self_bleu_ids, self_bleu_tokens
from diveval.text.bleu import SMOOTHING_METHODS

nltk_bleu = pytest.importorskip("nltk.translate.bleu_score")
SF = nltk_bleu.SmoothingFunction()
TOL = 1e-9


def nltk_self_bleu(corpus, max_n=4, method="method1", include_self=False, hyps=None):
    """The definition, literally: each sentence against all others with nltk sentence_bleu."""
    weights = tuple(1 / max_n for _ in range(max_n))
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(len(corpus)) if hyps is None else hyps:
            refs = corpus if include_self else corpus[:i] + corpus[i + 1 :]
            out.append(
                float(nltk_bleu.sentence_bleu(refs, corpus[i], weights, getattr(SF, method)))
            )
    return np.array(out)


def check(corpus, max_n=4, method="method1", include_self=False):
    want = nltk_self_bleu(corpus, max_n, method, include_self)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mean, per = self_bleu_tokens(
            corpus, max_n=max_n, smoothing=method, include_self=include_self
        )
    np.testing.assert_allclose(per, want, rtol=0, atol=TOL, err_msg=repr(corpus))
    assert mean == pytest.approx(want.mean(), abs=TOL)


def random_corpus(rng, n_min=2, n_max=9, max_len=8):
    vocab = rng.choice(["ab", "abc", "abcdef", "abcdefghijkl"])
    corpus = [
        [rng.choice(vocab) for _ in range(rng.randint(0, max_len))]
        for _ in range(rng.randint(n_min, n_max))
    ]
    if rng.random() < 0.4:  # duplicate sentences
        corpus.append(list(rng.choice(corpus)))
        rng.shuffle(corpus)
    return corpus


@pytest.mark.parametrize("method", SMOOTHING_METHODS)
@pytest.mark.parametrize("max_n", [1, 2, 3, 4, 5])
def test_equals_nltk_on_random_corpora(method, max_n):
    rng = random.Random(97 * max_n + SMOOTHING_METHODS.index(method))
    for _ in range(25):
        check(random_corpus(rng), max_n, method)


@pytest.mark.parametrize("method", SMOOTHING_METHODS)
def test_include_self_equals_texygen_variant(method):
    rng = random.Random(5 + SMOOTHING_METHODS.index(method))
    for _ in range(25):
        check(random_corpus(rng, n_min=1), rng.randint(1, 5), method, include_self=True)


@pytest.mark.parametrize("method", SMOOTHING_METHODS)
def test_hard_cases(method):
    cases = [
        [["a"], ["a"]],  # corpus of 2, identical, shorter than n
        [["a", "b"], ["c"]],  # corpus of 2, no overlap
        [[], ["a", "b", "c"]],  # empty sentence
        [[], [], ["a"]],  # several empty sentences
        [list("aaaa"), list("aaaaaa"), list("aa")],  # repeated n-grams inside sentences
        [list("abab"), list("abab"), list("abab")],  # three duplicates share the max count
        [list("abcde"), list("abcd"), list("abcdef")],  # hypothesis length 5, refs 4 and 6: tie
        [list("abc"), list("ab"), list("abcd"), list("abc")],  # own length also held by another
        [list("abcab"), list("cabca"), list("bcabc"), list("xy")],
        [list("aab"), list("aab"), list("ab"), list("b")],
    ]
    for corpus in cases:
        for n in range(1, 6):
            check(corpus, n, method)
            check(corpus, n, method, include_self=True)


@settings(max_examples=120, deadline=None)
@given(
    corpus=st.lists(st.lists(st.sampled_from("abc"), max_size=7), min_size=2, max_size=7),
    max_n=st.integers(1, 5),
    method=st.sampled_from(SMOOTHING_METHODS),
    include_self=st.booleans(),
)
def test_property_equals_nltk(corpus, max_n, method, include_self):
    check(corpus, max_n, method, include_self)


@settings(max_examples=40, deadline=None)
@given(
    corpus=st.lists(st.lists(st.sampled_from("abcd"), max_size=6), min_size=2, max_size=8),
    seed=st.integers(0, 2**16),
)
def test_order_invariance(corpus, seed):
    perm = np.random.default_rng(seed).permutation(len(corpus))
    m1, p1 = self_bleu_tokens(corpus)
    m2, p2 = self_bleu_tokens([corpus[i] for i in perm])
    assert m2 == pytest.approx(m1, abs=1e-12)
    np.testing.assert_allclose(p2, p1[perm], atol=1e-12)


@pytest.mark.parametrize("chunk,pack_bits", [(1, 62), (3, 62), (7, 62), (1 << 19, 8), (2, 8)])
def test_slices_and_unpacked_sort(monkeypatch, chunk, pack_bits):
    """Tiny slices (runs of one n-gram longer than a slice) and the argsort path for keys too
    large to pack give the nltk values too."""
    import diveval.lexical.self_bleu as sb

    monkeypatch.setattr(sb, "_CHUNK", chunk)
    monkeypatch.setattr(sb, "_PACK_BITS", pack_bits)
    rng = random.Random(chunk + pack_bits)
    for _ in range(15):
        check(random_corpus(rng, 2, 12), rng.randint(1, 5), rng.choice(["method1", "method7"]))


def test_larger_corpus_with_string_tokens():
    rng = random.Random(2024)
    words = [f"w{i}" for i in range(40)]
    weights = [1 / (i + 1) for i in range(40)]  # Zipf-like: frequent n-gram repeats
    corpus = [rng.choices(words, weights, k=rng.randint(0, 14)) for _ in range(100)]
    check(corpus, 4, "method1")
    check(corpus, 2, "method4")


def test_identical_sentences_give_one_and_disjoint_give_zero():
    mean, per = self_bleu_tokens([list("abcdef")] * 4)
    assert mean == pytest.approx(1.0) and np.allclose(per, 1.0)
    mean, _ = self_bleu_tokens([["a", "b"], ["c", "d"], ["e"]])
    assert mean == 0.0


def test_sample():
    rng = random.Random(8)
    corpus = random_corpus(rng, 30, 30)
    idx = sample_indices(len(corpus), 7, seed=3)
    assert len(idx) == 7 and np.all(np.diff(idx) > 0)
    mean, per = self_bleu_tokens(corpus, sample=7, seed=3)
    want = nltk_self_bleu(corpus, hyps=idx)
    np.testing.assert_allclose(per, want, atol=TOL)
    assert mean == pytest.approx(want.mean(), abs=TOL)
    assert self_bleu_tokens(corpus, sample=7, seed=3)[0] == mean  # seeded
    assert np.array_equal(sample_indices(len(corpus), 7, seed=4), idx) is False
    assert np.array_equal(sample_indices(5, 50), np.arange(5))  # sample >= N: every sentence
    with pytest.raises(ValueError):
        sample_indices(5, 0)


def test_errors():
    with pytest.raises(ValueError, match="at least 2"):
        self_bleu_tokens([["a", "b"]])
    with pytest.raises(ValueError, match="at least 1"):
        self_bleu_tokens([], include_self=True)
    assert self_bleu_tokens([["a", "b"]], include_self=True, max_n=2)[0] == pytest.approx(1.0)
    with pytest.raises(TypeError):
        self_bleu_tokens(["a b", "c d"])  # strings must be tokenized first
    with pytest.raises(ValueError):
        self_bleu_tokens([["a"], ["b"]], smoothing="method6")


def test_groups_equal_separate_runs():
    rng = random.Random(13)
    sets = [random_corpus(rng, 2, 6) for _ in range(12)]
    flat = [s for group in sets for s in group]
    lengths = np.array([len(s) for s in flat])
    vocab = {}
    ids = np.array([vocab.setdefault(t, len(vocab)) for s in flat for t in s], dtype=np.int64)
    group = np.repeat(np.arange(len(sets)), [len(g) for g in sets])
    per = self_bleu_ids(ids, lengths, group, max_n=4)
    want = np.concatenate([self_bleu_tokens(g)[1] for g in sets])
    np.testing.assert_allclose(per, want, atol=1e-12)


# --------------------------------------------------------------------------------------------
# the user-facing metric


def test_self_bleu_metric_corpus_and_sets():
    texts = ["the cat sat on the mat", "the cat sat on a mat", "a dog ran in the park", "hello"]
    s = self_bleu(texts)
    toks = [t.split() for t in texts]
    want = nltk_self_bleu(toks)
    assert s.value == pytest.approx(want.mean(), abs=TOL)
    np.testing.assert_allclose(s.items, want, atol=TOL)
    assert s.signature.startswith(
        "self-bleu|n:4|smooth:method1|tok:whitespace|lc:no|setting:corpus|diveval:"
    )

    s2 = self_bleu(texts, max_n=2, sample=2, seed=1, include_self=True, lowercase=True)
    assert "|n:2|smooth:method1|sample:2|seed:1|self:yes|" in s2.signature
    assert len(s2.items) == 2 and len(s2.details["hypotheses"]) == 2

    sets = [texts[:2], texts[2:], ["x y z", "x y", "y z"]]
    s3 = self_bleu(sets)
    per_set = [nltk_self_bleu([t.split() for t in st_]).mean() for st_ in sets]
    np.testing.assert_allclose(s3.items, per_set, atol=TOL)
    assert s3.value == pytest.approx(np.mean(per_set), abs=TOL)
    assert "setting:sets" in s3.signature


def test_self_bleu_metric_bad_input():
    from diveval.errors import InputError

    with pytest.raises(InputError, match="at least 2"):
        self_bleu(["only one"])
    with pytest.raises(InputError, match="set 1"):
        self_bleu([["a b", "c d"], ["e f"]])
    with pytest.raises(InputError):
        self_bleu([["a b", "c d"]], sample=1)
    with pytest.raises(InputError):
        self_bleu(["a b", "c d"], max_n=0)


# --------------------------------------------------------------------------------------------
# the authors' data: every set of responses of ../shared/data/diversity-eval


def test_ondiversity_eval_sets():
    sets = diversity_eval_sets()
    score = self_bleu(sets)  # all sets in one pass
    per_sentence = np.split(score.details["per_sentence"], np.cumsum([len(s) for s in sets])[:-1])
    for i in range(0, len(sets), 4):  # the nltk loop on every 4th set keeps the test fast
        want = nltk_self_bleu([t.split() for t in sets[i]])
        np.testing.assert_allclose(per_sentence[i], want, atol=TOL)
        assert score.items[i] == pytest.approx(want.mean(), abs=TOL)


def test_on_diversity_eval_corpus():
    sets = diversity_eval_sets()
    corpus = [s[0].split() for s in sets[::14]]  # ~100 first responses as one corpus
    check(corpus, 4, "method1")
    check(corpus, 3, "method7")
