"""CachedNLI / CachedEmbedder: each pair or text reaches the model once; the disk cache lets a new
wrapper (a second run) skip the model entirely and return identical values."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diveval.models.base import Embedder, NLIModel
from diveval.models.cache import CachedEmbedder, CachedNLI, cached_embedder, cached_nli


def _pseudo(text: str, d: int) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
    return np.random.default_rng(seed).random(d)


class CountingNLI:
    name = "counting-nli"
    fingerprint = "f00d"

    def __init__(self):
        self.seen: list[tuple[str, str]] = []
        self.calls = 0

    def predict(self, premises, hypotheses):
        self.calls += 1
        self.seen += list(zip(premises, hypotheses))
        rows = np.array([_pseudo(p + "\x00" + h, 3) for p, h in zip(premises, hypotheses)])
        return rows / rows.sum(axis=1, keepdims=True)


class CountingEmbedder:
    name = "counting-emb"
    fingerprint = "beef"

    def __init__(self):
        self.seen: list[str] = []
        self.calls = 0

    def encode(self, texts):
        self.calls += 1
        self.seen += list(texts)
        return np.array([_pseudo(t, 4) for t in texts], dtype=np.float32)


def test_wrappers_satisfy_the_protocols():
    assert isinstance(CachedNLI(CountingNLI()), NLIModel)
    assert isinstance(CachedEmbedder(CountingEmbedder()), Embedder)


def test_nli_pairs_computed_once_and_in_one_call():
    model = CountingNLI()
    nli = CachedNLI(model)
    p = nli.predict(["a", "b", "a"], ["b", "a", "b"])
    assert model.calls == 1 and sorted(model.seen) == [("a", "b"), ("b", "a")]
    np.testing.assert_array_equal(p[0], p[2])
    direct = CountingNLI().predict(["a", "b"], ["b", "a"])
    np.testing.assert_allclose(p[:2], direct, rtol=0, atol=0)
    q = nli.predict(["a", "c"], ["b", "a"])
    assert model.calls == 2 and model.seen[-1] == ("c", "a") and len(model.seen) == 3
    np.testing.assert_array_equal(q[0], p[0])
    assert nli.stats() == {
        "calls": 2,
        "requested": 5,
        "computed": 3,
        "memory_hits": 2,
        "disk_hits": 0,
    }
    nli.predict(["a"], ["b"])
    assert model.calls == 2  # nothing new: no call at all
    assert nli.name == "counting-nli" and nli.fingerprint == "f00d"


def test_order_of_pair_matters():
    model = CountingNLI()
    p = CachedNLI(model).predict(["x", "y"], ["y", "x"])
    assert not np.array_equal(p[0], p[1])


def test_empty_and_mismatched():
    nli = CachedNLI(CountingNLI())
    assert nli.predict([], []).shape == (0, 3)
    with pytest.raises(ValueError):
        nli.predict(["a"], [])


def test_disk_cache_second_run_skips_the_model(tmp_path):
    first_model = CountingNLI()
    first = CachedNLI(first_model, cache_dir=tmp_path).predict(["a", "b"], ["b", "c"])
    second_model = CountingNLI()
    second_wrapper = CachedNLI(second_model, cache_dir=tmp_path)
    second = second_wrapper.predict(["b", "a"], ["c", "b"])
    assert second_model.calls == 0
    assert second_wrapper.stats()["disk_hits"] == 2
    np.testing.assert_array_equal(second, first[::-1])
    # a different fingerprint is a different model: no hit
    other = CountingNLI()
    other.fingerprint = "0ther"
    CachedNLI(other, cache_dir=tmp_path).predict(["a"], ["b"])
    assert other.calls == 1


def test_embedder_cache(tmp_path):
    model = CountingEmbedder()
    emb = CachedEmbedder(model, cache_dir=tmp_path)
    x = emb.encode(["u", "v", "u", "w"])
    assert model.calls == 1 and model.seen == ["u", "v", "w"]
    assert x.dtype == np.float32 and x.shape == (4, 4)
    np.testing.assert_array_equal(x[0], x[2])
    again = CountingEmbedder()
    y = CachedEmbedder(again, cache_dir=tmp_path).encode(["w", "u"])
    assert again.calls == 0
    np.testing.assert_array_equal(y, x[[3, 0]])


def test_shared_wrappers_per_model():
    model = CountingNLI()
    assert cached_nli(model) is cached_nli(model)
    wrapped = cached_nli(model)
    assert cached_nli(wrapped) is wrapped
    emb = CountingEmbedder()
    assert cached_embedder(emb) is cached_embedder(emb)


def test_disk_cache_needs_a_fingerprint(tmp_path):
    model = CountingNLI()
    model.fingerprint = ""
    with pytest.raises(ValueError, match="fingerprint"):
        CachedNLI(model, cache_dir=tmp_path)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from("abcd"), st.sampled_from("abcd")), max_size=12),
    st.lists(st.tuples(st.sampled_from("abcde"), st.sampled_from("abcde")), max_size=12),
)
def test_cached_equals_uncached_and_counts_unique(first, second):
    model = CountingNLI()
    nli = CachedNLI(model)
    for batch in (first, second):
        got = nli.predict([p for p, _ in batch], [h for _, h in batch])
        want = (
            CountingNLI().predict([p for p, _ in batch], [h for _, h in batch])
            if batch
            else np.zeros((0, 3))
        )
        np.testing.assert_allclose(got, want, rtol=0, atol=0)
    assert sorted(model.seen) == sorted(set(first) | set(second))
    assert nli.computed == len(set(first) | set(second))
