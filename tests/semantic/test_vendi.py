"""Vendi Score: against the formula computed by brute force (a full eigendecomposition with
numpy's general eigensolver, the entropy written out per q), the n x n / d x d equivalence,
identical items -> 1, orthogonal items -> n, and the n-gram kernel against a Counter-based one."""

from __future__ import annotations

import hashlib
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diveval
from diveval.errors import InputError
from diveval.semantic.vendi import vendi, vendi_from_features, vendi_from_kernel

ORDERS = [0.5, 1, 2, math.inf]


def brute_force(kernel, q):
    n = kernel.shape[0]
    lam = np.real(np.linalg.eigvals(kernel / n))  # general solver, not eigvalsh
    lam = lam[lam > 1e-12]
    if q == 1:
        return math.exp(-sum(x * math.log(x) for x in lam))
    if math.isinf(q):
        return 1 / max(lam)
    return (sum(x**q for x in lam)) ** (1 / (1 - q))


def random_unit_rows(rng, n, d):
    x = rng.normal(size=(n, d))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.mark.parametrize("q", ORDERS)
@pytest.mark.parametrize("n, d", [(6, 10), (12, 4), (5, 5), (30, 8)])
def test_equals_brute_force_on_random_kernels(q, n, d):
    rng = np.random.default_rng(n * 100 + d)
    x = random_unit_rows(rng, n, d)
    k = x @ x.T
    want = brute_force(k, q)
    assert vendi_from_kernel(k, q) == pytest.approx(want, rel=1e-9)
    # through the features: n x n kernel when n <= d, the d x d matrix X^T X / n otherwise
    assert vendi_from_features(x, q) == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("q", [0.25, 0.5, 1, 1.5, 2, 3, 10, math.inf])
def test_random_psd_kernels_with_general_entries(q):
    rng = np.random.default_rng(7)
    a = rng.random((8, 8))
    k = a @ a.T
    k = k / np.sqrt(np.outer(np.diag(k), np.diag(k)))  # unit diagonal, positive entries
    assert vendi_from_kernel(k, q) == pytest.approx(brute_force(k, q), rel=1e-9)


def test_order_decreases_with_q():
    rng = np.random.default_rng(3)
    x = random_unit_rows(rng, 9, 5)
    values = [vendi_from_features(x, q) for q in [0.5, 1, 2, 5, math.inf]]
    assert all(a >= b - 1e-12 for a, b in zip(values, values[1:]))  # Rényi entropy is monotone


@pytest.mark.parametrize("q", ORDERS)
@pytest.mark.parametrize("n", [1, 2, 5, 17])
def test_identical_items_one_and_orthogonal_items_n(q, n):
    same = np.tile(random_unit_rows(np.random.default_rng(n), 1, 6), (n, 1))
    assert vendi_from_features(same, q) == pytest.approx(1.0, rel=1e-9)
    assert vendi_from_kernel(np.ones((n, n)), q) == pytest.approx(1.0, rel=1e-9)
    assert vendi_from_features(np.eye(n), q) == pytest.approx(n, rel=1e-9)
    assert vendi_from_features(np.eye(n + 3)[:n] * 2.5, q) == pytest.approx(n, rel=1e-9)


class HashEmbedder:
    name = "hash-emb"
    fingerprint = "c0ffee"

    def encode(self, texts):
        out = []
        for t in texts:
            seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:4], "little")
            out.append(np.random.default_rng(seed).normal(size=5))
        return np.array(out, dtype=np.float32).reshape(-1, 5)


def test_embedding_kernel_corpus_and_sets():
    emb = HashEmbedder()
    corpus = ["a", "b", "c", "a", "d", "e", "f", "g"]  # 8 texts > 5 dims: the d x d route
    got = vendi(corpus, model=emb, q=2)
    x = emb.encode(corpus).astype(np.float64)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    assert got.value == pytest.approx(brute_force(x @ x.T, 2), rel=1e-6)
    assert got.setting == "corpus" and got.items is None
    assert "kernel:embedding" in got.signature and "q:2" in got.signature
    assert "model:hash-emb" in got.signature and "fp:c0ffee" in got.signature
    sets = [["a", "b", "a"], ["x", "y"], ["z"]]
    by_set = vendi(sets, model=emb)
    want = [vendi(s, model=emb).value for s in sets]
    np.testing.assert_allclose(by_set.items, want, rtol=1e-12)
    assert by_set.value == pytest.approx(np.mean(want))
    assert by_set.items[2] == pytest.approx(1.0)


def counter_ngram_kernel(texts, n_max=2):
    vecs = []
    for t in texts:
        toks = t.split()
        c = Counter(
            tuple(toks[i : i + n]) for n in range(1, n_max + 1) for i in range(len(toks) - n + 1)
        )
        vecs.append(c)
    keys = sorted(set().union(*vecs))
    x = np.array([[v[k] for k in keys] for v in vecs], dtype=float).reshape(len(texts), len(keys))
    norms = np.linalg.norm(x, axis=1)
    return (x @ x.T) / np.outer(norms, norms)


def test_ngram_kernel_against_counters():
    texts = [
        "the cat sat on the mat",
        "the cat sat",
        "a dog ran on the mat",
        "the the the",
        "cat sat on the mat the",
    ]
    for q in ORDERS:
        got = vendi(texts, "ngram", q=q)
        assert got.value == pytest.approx(brute_force(counter_ngram_kernel(texts), q), rel=1e-9)
    assert (
        "kernel:ngram" in got.signature
        and "n:1-2" in got.signature
        and "tok:whitespace" in got.signature
    )
    three = vendi(texts, "ngram", n_max=3)
    assert three.value == pytest.approx(brute_force(counter_ngram_kernel(texts, 3), 1), rel=1e-9)


def test_empty_texts_share_one_private_feature():
    assert vendi(["", "", "a b"], "ngram").value == pytest.approx(
        brute_force(np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1.0]]), 1), rel=1e-9
    )
    assert vendi(["", ""], "ngram").value == pytest.approx(1.0)


def test_registered_metrics_and_errors():
    out = diveval.score([["a b", "a b"], ["a", "b c"]], metrics=["vendi-ngram"])
    np.testing.assert_allclose(out["vendi-ngram"].items, [1.0, 2.0], rtol=1e-12)
    out = diveval.score(["x", "y"], metrics=["vendi"], embedding_model=HashEmbedder())
    assert out["vendi"].setting == "corpus"
    with pytest.raises(InputError, match="kernel"):
        vendi(["a"], "bogus")
    for bad in (0, -1, "x", float("nan")):
        with pytest.raises(InputError, match="order q"):
            vendi(["a"], "ngram", q=bad)
    with pytest.raises(InputError, match="set 1 is empty"):
        vendi([["a"], []], "ngram")


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.text(alphabet="ab ", max_size=6), min_size=1, max_size=8),
    st.sampled_from(ORDERS),
    st.randoms(use_true_random=False),
)
def test_bounds_and_order_invariance(texts, q, rnd):
    got = vendi(texts, "ngram", q=q).value
    assert 1 - 1e-9 <= got <= len(texts) + 1e-9
    assert vendi(rnd.sample(texts, len(texts)), "ngram", q=q).value == pytest.approx(got, rel=1e-9)


@pytest.mark.parametrize("q", [0.5, 1.0, 2.0, "inf"])
def test_repeated_texts_count_once_with_their_weight(q):
    # the distinct-row form (min(u, d) square) equals the brute-force n x n kernel
    from diveval.semantic.vendi import ngram_features
    from diveval.text.prepared import prepare

    rng = np.random.default_rng(3)
    pool = ["a b", "a c d", "b b", "e f g h", "a", "c d e", "f"]
    texts = [pool[i] for i in rng.integers(0, len(pool), size=40)]
    feats = ngram_features(prepare(texts, "whitespace", False), 2).toarray()
    unit = feats / np.linalg.norm(feats, axis=1, keepdims=True)
    want = vendi_from_kernel(unit @ unit.T, q)
    got = diveval.vendi(texts, "ngram", q=q).value
    assert got == pytest.approx(want, rel=1e-9)
    sets = [texts[:20], texts[20:]]
    per_set = diveval.vendi(sets, "ngram", q=q).items
    for s, value in zip(sets, per_set):
        f = ngram_features(prepare(s, "whitespace", False), 2).toarray()
        f = f / np.linalg.norm(f, axis=1, keepdims=True)
        assert value == pytest.approx(vendi_from_kernel(f @ f.T, q), rel=1e-9)
