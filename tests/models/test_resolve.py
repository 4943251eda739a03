"""resolve_nli_model / resolve_embedder: None, names and model objects."""

from __future__ import annotations

import numpy as np
import pytest

from diveval.errors import InputError
from diveval.models import loaded, resolve
from diveval.models.devices import ModelSettings


class StubNLI:
    name = "stub"
    fingerprint = "1"

    def predict(self, premises, hypotheses):
        return np.full((len(premises), 3), 1 / 3)


class StubEmbedder:
    name = "stub-emb"
    fingerprint = "2"

    def encode(self, texts):
        return np.ones((len(texts), 2))


def test_model_objects_are_returned_as_they_are():
    m, e = StubNLI(), StubEmbedder()
    assert resolve.resolve_nli_model(m) is m
    assert resolve.resolve_embedder(e) is e


def test_wrong_types_are_refused():
    with pytest.raises(InputError, match="NLI model"):
        resolve.resolve_nli_model(42)
    with pytest.raises(InputError, match="embedder"):
        resolve.resolve_embedder(StubNLI())  # has predict, not encode


def test_no_shipped_model_says_what_to_do(monkeypatch):
    from diveval.models import shipped_nli

    monkeypatch.setattr(shipped_nli, "shipped_model_available", lambda: False)
    for spec in (None, "default", shipped_nli.MODEL_NAME):
        with pytest.raises(InputError, match="no default NLI model is installed"):
            resolve.resolve_nli_model(spec)


def test_shipped_model_is_the_default_when_installed():
    from diveval.models import shipped_nli

    if not shipped_nli.shipped_model_available():
        pytest.skip("the shipped NLI model is not installed")
    model = resolve.resolve_nli_model(None)
    assert model is shipped_nli.default_nli_model()
    assert model.predict(["a"], ["b"]).shape == (1, 3)


def test_named_models_are_loaded_once(monkeypatch):
    built = []

    class FakeHF:
        def __init__(self, spec, **kwargs):
            built.append((spec, kwargs))
            self.name, self.fingerprint = spec, "f"

    monkeypatch.setattr(resolve, "HFNLIModel", FakeHF)
    monkeypatch.setattr(loaded, "_backends", {})
    monkeypatch.setattr(resolve, "check_model_spec", lambda spec, what: None)  # not on the hub
    a = resolve.resolve_nli_model("some/model", device="cpu", batch_size=8)
    b = resolve.resolve_nli_model("some/model", device="cpu", batch_size=8)
    loaded_with = ModelSettings(device="cpu", batch_size=8)
    assert a is b and built == [("some/model", {"settings": loaded_with})]
    resolve.resolve_nli_model("some/model", device="cpu")
    assert len(built) == 2
    # the score cache wraps a loaded model and does not change it: no second load for it
    resolve.nli_for("some/model", ModelSettings(device="cpu", batch_size=8, cache_dir="/tmp/c"))
    assert len(built) == 2


def test_a_folder_in_the_shipped_layout_goes_to_the_onnx_backend(tmp_path, monkeypatch):
    from diveval.models import shipped_nli

    built = []

    class FakeShipped:
        def __init__(self, folder, **kwargs):
            built.append((folder, kwargs))
            self.name, self.fingerprint = "onnx", "f"

    monkeypatch.setattr(shipped_nli, "ShippedNLIModel", FakeShipped)
    monkeypatch.setattr(loaded, "_backends", {})
    (tmp_path / "vocab.txt").write_text("[PAD]\n")
    (tmp_path / "model.int8.onnx").write_bytes(b"")
    model = resolve.resolve_nli_model(str(tmp_path), batch_size=4)
    assert isinstance(model, FakeShipped) and built == [(str(tmp_path), {"batch_size": 4})]
