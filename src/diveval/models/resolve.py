"""From what a user says (nothing, a name or path, a model object) to a model backend.

- ``resolve_nli_model(None)``: the NLI model shipped with diveval (``shipped_nli.default_nli_model``);
  a string: a Hugging Face sequence-classification model by hub name or folder (``HFNLIModel``),
  except the shipped model's own name ("default" too) and a folder in the shipped model's layout
  (``*.onnx`` beside ``vocab.txt``: ``ShippedNLIModel``); an object with ``predict``: itself.
- ``resolve_embedder(None)``: the offline all-MiniLM-L6-v2; a string: a sentence-transformers
  model by name or folder; an object with ``encode``: itself.

Backends built from a name are loaded once per process and (name, device, batch size).
"""

from __future__ import annotations

import threading
from typing import Any, Optional

from ..errors import InputError
from .base import Embedder, NLIModel

_loaded: dict[tuple, Any] = {}
_lock = threading.Lock()


def _once(key: tuple, build):
    with _lock:
        if key not in _loaded:
            _loaded[key] = build()
        return _loaded[key]


def _shipped_nli(batch_size: Optional[int]):
    try:
        from . import shipped_nli
    except ImportError:
        shipped_nli = None
    if shipped_nli is None or not shipped_nli.shipped_model_available():
        raise InputError(
            "no default NLI model is installed (pip install 'diveval[nli]'); "
            "name one with --nli-model / model=, e.g. roberta-large-mnli"
        )
    if batch_size is None:
        return shipped_nli.default_nli_model()
    return _once(
        ("nli", "shipped", None, batch_size),
        lambda: shipped_nli.ShippedNLIModel(batch_size=batch_size),
    )


def _onnx_folder(spec: str) -> bool:
    from pathlib import Path

    p = Path(spec)
    return p.is_dir() and (p / "vocab.txt").exists() and any(p.glob("*.onnx"))


def resolve_nli_model(
    spec: Any = None, *, device: Optional[str] = None, batch_size: Optional[int] = None
) -> NLIModel:
    """An NLIModel for ``spec``: None (the shipped model), a hub name or folder, or a model."""
    if spec is None:
        return _shipped_nli(batch_size)
    if isinstance(spec, str):
        try:
            from .shipped_nli import MODEL_NAME
        except ImportError:
            MODEL_NAME = None
        if spec in ("default", "shipped") or spec == MODEL_NAME:
            return _shipped_nli(batch_size)
        if _onnx_folder(spec):  # a folder in the shipped model's layout (ONNX + vocab.txt)
            from .shipped_nli import ShippedNLIModel

            kwargs = {} if batch_size is None else {"batch_size": batch_size}
            return _once(
                ("nli-onnx", spec, None, batch_size), lambda: ShippedNLIModel(spec, **kwargs)
            )
        from .hf_nli import HFNLIModel

        kwargs = (
            {"device": device}
            if batch_size is None
            else {"device": device, "batch_size": batch_size}
        )
        return _once(("nli", spec, device, batch_size), lambda: HFNLIModel(spec, **kwargs))
    if isinstance(spec, NLIModel):
        return spec
    raise InputError(
        f"an NLI model must be a name, a folder or an object with name, fingerprint "
        f"and predict(premises, hypotheses); got {type(spec).__name__}"
    )


def resolve_embedder(
    spec: Any = None, *, device: Optional[str] = None, batch_size: Optional[int] = None
) -> Embedder:
    """An Embedder for ``spec``: None (offline all-MiniLM-L6-v2), a name or folder, or a model."""
    if spec is None or isinstance(spec, str):
        from .embedders import SentenceTransformerEmbedder, default_embedder

        if spec is None and device is None and batch_size is None:
            return default_embedder()
        kwargs: dict[str, Any] = {"device": device}
        if batch_size is not None:
            kwargs["batch_size"] = batch_size
        return _once(
            ("emb", spec, device, batch_size), lambda: SentenceTransformerEmbedder(spec, **kwargs)
        )
    if isinstance(spec, Embedder):
        return spec
    raise InputError(
        f"an embedder must be a name, a folder or an object with name, fingerprint "
        f"and encode(texts); got {type(spec).__name__}"
    )
