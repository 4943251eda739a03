"""MAUVE: diveval's value equals the authors' ``mauve.compute_mauve`` called here on the same
features (a stub embedder's exact vectors, and the offline all-MiniLM-L6-v2's vectors computed here
with sentence-transformers); the seed values are compute_mauve's at each seed and their range holds
the default; the value does not depend on the order of the input; too few texts for the clusters
is an InputError; ``import diveval`` imports neither mauve nor faiss."""

from __future__ import annotations

import hashlib
import random
import subprocess
import sys

import numpy as np
import pytest
from diversity_reference import generated_documents

import diveval
from diveval.errors import InputError

mauve_pkg = pytest.importorskip("mauve")


class HashEmbedder:
    """Embedder stub: a text's vector is a function of the text (equal texts, equal vectors)."""

    name = "hash-emb"
    fingerprint = "beef"

    def __init__(self, dim: int = 16):
        self.dim = dim
        self.seen: list[str] = []

    def vector(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
        return np.random.default_rng(seed).normal(size=self.dim).astype(np.float32)

    def encode(self, texts):
        self.seen.extend(texts)
        return np.array([self.vector(t) for t in texts], dtype=np.float32).reshape(-1, self.dim)


def corpus(n_model: int = 40, n_human: int = 40, seed: int = 3):
    """Model texts and, per model text, one human reference (the pairing does not matter)."""
    model = generated_documents(n_model, seed, min_len=4, max_len=16)
    human = generated_documents(n_human, seed + 100, min_len=4, max_len=16)
    refs = [[h] for h in human[:n_model]]
    refs[-1].extend(human[n_model:])  # any spread of the human texts over the responses
    return model, refs, human


def direct(human_feats, model_feats, seed=25, **kw):
    return mauve_pkg.compute_mauve(p_features=human_feats, q_features=model_feats, seed=seed, **kw)


def test_equals_compute_mauve_on_the_same_stub_features():
    model, refs, human = corpus()
    emb = HashEmbedder()
    got = diveval.mauve(model, refs, emb)
    # the same features, built here: each side in code-point order (diveval's documented rows)
    p = np.stack([emb.vector(t) for t in sorted(human)])
    q = np.stack([emb.vector(t) for t in sorted(model)])
    want = direct(p, q)
    assert got.value == pytest.approx(want.mauve, abs=1e-12)
    assert got.details["mauve_star"] == pytest.approx(want.mauve_star, abs=1e-12)
    assert got.details["frontier_integral"] == pytest.approx(want.frontier_integral, abs=1e-12)
    assert got.details["num_buckets"] == want.num_buckets == 4  # round(40 / 10)
    assert (got.details["n_model"], got.details["n_human"]) == (40, 40)
    assert 0 < got.value <= 1


def test_seed_values_are_compute_mauves_and_their_range_holds_the_default():
    model, refs, human = corpus(30, 50, seed=5)
    emb = HashEmbedder()
    got = diveval.mauve(model, refs, emb, seeds=4)
    p = np.stack([emb.vector(t) for t in sorted(human)])
    q = np.stack([emb.vector(t) for t in sorted(model)])
    values = got.details["seed_values"]
    assert sorted(values) == [25, 26, 27, 28]
    for s, v in values.items():
        assert v == pytest.approx(direct(p, q, seed=s).mauve, abs=1e-12)
    assert values[25] == got.value
    assert got.details["seed_min"] <= got.value <= got.details["seed_max"]
    assert got.details["seed_min"] == min(values.values())
    assert got.details["seed_max"] == max(values.values())
    assert "seed:25" in got.signature and "seeds:25-28" in got.signature


def test_settings_reach_compute_mauve_and_the_signature():
    model, refs, human = corpus()
    emb = HashEmbedder()
    got = diveval.mauve(
        model, refs, emb, seed=7, seeds=1, num_buckets=3, scaling_factor=2.0, num_redo=2
    )
    p = np.stack([emb.vector(t) for t in sorted(human)])
    q = np.stack([emb.vector(t) for t in sorted(model)])
    want = direct(p, q, seed=7, num_buckets=3, mauve_scaling_factor=2.0, kmeans_num_redo=2)
    assert got.value == pytest.approx(want.mauve, abs=1e-12)
    for part in ("model:hash-emb", "fp:beef", "buckets:3|", "c:2|", "redo2", "iter500", "seed:7"):
        assert part in got.signature
    assert got.signature.startswith("mauve|") and "setting:corpus" in got.signature


def test_equals_compute_mauve_on_minilm_features_computed_here():
    pytest.importorskip("sentence_transformers")
    from sentence_transformers import SentenceTransformer

    from diveval.models.embedders import default_embedder_path

    model, refs, human = corpus(30, 30, seed=11)
    got = diveval.score(model, ["mauve"], references=refs)["mauve"]
    st = SentenceTransformer(str(default_embedder_path()), device="cpu")
    p = st.encode(sorted(human), convert_to_numpy=True)
    q = st.encode(sorted(model), convert_to_numpy=True)
    want = direct(p, q)
    # float32 embeddings computed twice (other batches): equal to round-off
    assert got.value == pytest.approx(want.mauve, abs=1e-6)
    assert "model:all-MiniLM-L6-v2" in got.signature


def test_the_order_of_the_input_does_not_change_the_value():
    model, refs, _ = corpus()
    emb = HashEmbedder()
    got = diveval.mauve(model, refs, emb, seeds=2)
    order = list(range(len(model)))
    random.Random(0).shuffle(order)
    moved = diveval.mauve([model[i] for i in order], [refs[i] for i in order], emb, seeds=2)
    assert moved.value == got.value
    assert moved.details["seed_values"] == got.details["seed_values"]


def test_each_unique_text_is_embedded_once():
    from diveval.models.cache import cached_embedder

    model, refs, human = corpus()
    emb = HashEmbedder()
    cached_embedder(emb).clear_memory()
    diveval.mauve(model + model, refs + refs, emb, seeds=1)
    assert len(emb.seen) == len(set(model) | set(human))


def test_the_settings_object_or_its_keywords_give_the_runs_value():
    from diveval.models.devices import resolve_settings

    model, refs, _ = corpus()
    emb = HashEmbedder()
    run = diveval.score(model, ["mauve"], references=refs, embedding_model=emb, device="cpu")
    cpu = resolve_settings(device="cpu")
    for got in (
        diveval.mauve(model, refs, emb, device="cpu"),
        diveval.mauve(model, refs, emb, settings=cpu),
    ):
        assert got.value == run["mauve"].value and got.signature == run["mauve"].signature
    with pytest.raises(TypeError, match="not both"):
        diveval.mauve(model, refs, emb, settings=cpu, batch_size=2)


def test_too_few_texts_for_the_clusters_is_an_input_error():
    with pytest.raises(InputError, match=r"too few for 10 clusters"):
        diveval.mauve(["a b", "c d", "e f"], [["g"], ["h"], ["i"]], HashEmbedder(), num_buckets=10)
    with pytest.raises(InputError, match="num_buckets"):
        diveval.mauve(["a b"], [["g"]], HashEmbedder(), num_buckets=1)
    with pytest.raises(InputError, match="seeds"):
        diveval.mauve(["a b"], [["g"]], HashEmbedder(), seeds=0)


def test_missing_or_empty_inputs_are_input_errors():
    with pytest.raises(InputError, match="needs references"):
        diveval.score(["a b", "c d"], ["mauve"])
    with pytest.raises(InputError, match="has no references"):
        diveval.mauve(["a b", "c d"], [["x"], []], HashEmbedder())
    with pytest.raises(InputError):
        diveval.mauve([], [], HashEmbedder())


def test_importing_diveval_imports_neither_mauve_nor_faiss():
    code = (
        "import sys, diveval; diveval.metrics(); "
        "print(sorted(m for m in ('mauve', 'faiss', 'sklearn') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
