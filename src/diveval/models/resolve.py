"""From what a user says (nothing, a name or path, a model object) to a model backend.

- ``resolve_nli_model(None)``: the NLI model shipped with diveval (``shipped_nli.default_nli_model``);
  a string: a Hugging Face sequence-classification model by hub name or folder (``HFNLIModel``),
  except the shipped model's own name ("default" too) and a folder in the shipped model's layout
  (``*.onnx`` beside ``vocab.txt``: ``ShippedNLIModel``); an object with ``predict``: itself.
- ``resolve_embedder(None)``: the offline all-MiniLM-L6-v2; ``"mpnet"``: the offline
  all-mpnet-base-v2 of the ``mpnet`` extra (``models.mpnet``); a string: a sentence-transformers
  model by name or folder; an object with ``encode``: itself.

Each takes the run's :class:`~diveval.models.settings.ModelSettings` (resolved once where the run
starts); the loose ``device=`` / ``batch_size=`` / ``precision=`` keywords of a direct call are
resolved into one here. Backends built from a name are loaded once per process and settings
(``models.loaded``). ``embedder_for`` / ``nli_for`` add the run's score cache: what a metric uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from ..errors import InputError
from . import shipped_nli
from .base import Embedder, NLIModel
from .cache import CachedEmbedder, CachedNLI, cached_embedder, cached_nli
from .devices import cpu_only
from .embedders import SentenceTransformerEmbedder, default_embedder
from .hf_nli import HFNLIModel
from .loaded import load_once
from .mpnet import MPNET_NAME, mpnet_folder
from .offline import check_model_spec
from .settings import DEFAULT_PRECISION, ModelSettings, resolve_settings

__all__ = [
    "check_model_spec",
    "embedder_for",
    "nli_for",
    "resolve_embedder",
    "resolve_nli_model",
]


def _settings(settings: Optional[ModelSettings], loose: dict[str, Any]) -> ModelSettings:
    """The run's settings, or those of a direct call's keywords (never both)."""
    if settings is None:
        return resolve_settings(loose)
    if any(v is not None for v in loose.values()):
        raise TypeError("give model settings or their keywords, not both")  # a developer's slip
    return settings


def _shipped_nli(settings: ModelSettings, what: str, folder: Optional[str] = None):
    cpu_only(settings.device, what)
    _as_built(settings.precision, what)
    if folder is None and not shipped_nli.shipped_model_available():
        raise InputError(
            "no default NLI model is installed (pip install 'diveval[nli]'); "
            "name one with --nli-model / model=, e.g. roberta-large-mnli"
        )
    if folder is None and settings.batch_size is None:
        return shipped_nli.default_nli_model()
    size: dict[str, Any] = (
        {} if settings.batch_size is None else {"batch_size": settings.batch_size}
    )
    key = ("nli-onnx", folder, settings.batch_size)
    return load_once(key, lambda: shipped_nli.ShippedNLIModel(folder, **size))


def _onnx_folder(spec: str) -> bool:
    p = Path(spec)
    return p.is_dir() and (p / "vocab.txt").exists() and any(p.glob("*.onnx"))


def _as_built(precision: str, what: str) -> None:
    """``auto`` leaves a model that cannot be cast as it is; an explicit half precision is an
    error, not a silent fp32 run."""
    if precision not in (DEFAULT_PRECISION, "auto"):
        raise InputError(
            f"precision {precision} applies to Hugging Face models (name one with --nli-model); "
            f"{what} runs as it was built"
        )


def _torch_keywords(settings: ModelSettings) -> dict[str, Any]:
    """A torch backend's constructor keywords: the device as asked, the rest where set."""
    return {"device": settings.device, **settings.asked(exclude=("device", "cache_dir"))}


def resolve_nli_model(
    spec: Any = None,
    settings: Optional[ModelSettings] = None,
    *,
    device: Optional[str] = None,
    batch_size: Optional[int] = None,
    precision: Optional[str] = None,
) -> NLIModel:
    """An NLIModel for ``spec``: None (the shipped model), a hub name or folder, or a model."""
    settings = _settings(
        settings, {"device": device, "batch_size": batch_size, "precision": precision}
    )
    if spec is None or spec in ("default", "shipped", shipped_nli.MODEL_NAME):
        return _shipped_nli(settings, "the shipped NLI model")
    if isinstance(spec, str):
        if _onnx_folder(spec):  # a folder in the shipped model's layout (ONNX + vocab.txt)
            return _shipped_nli(settings, "an ONNX NLI model", spec)
        check_model_spec(spec, "NLI model")
        kwargs = _torch_keywords(settings)
        return load_once(("nli", spec, settings), lambda: HFNLIModel(spec, **kwargs))
    if isinstance(spec, NLIModel):
        _as_built(settings.precision, "an NLI model object")
        return spec
    raise InputError(
        f"an NLI model must be a name, a folder or an object with name, fingerprint "
        f"and predict(premises, hypotheses); got {type(spec).__name__}"
    )


def resolve_embedder(
    spec: Any = None,
    settings: Optional[ModelSettings] = None,
    *,
    device: Optional[str] = None,
    batch_size: Optional[int] = None,
    precision: Optional[str] = None,
) -> Embedder:
    """An Embedder for ``spec``: None (offline all-MiniLM-L6-v2), a name or folder, or a model."""
    settings = _settings(
        settings, {"device": device, "batch_size": batch_size, "precision": precision}
    )
    if isinstance(spec, Embedder) and not isinstance(spec, str):
        if settings.precision not in (DEFAULT_PRECISION, "auto"):
            raise InputError(
                f"precision {settings.precision} applies to embedders named by model; an "
                "embedder object runs as it was built"
            )
        return spec
    if spec is not None and not isinstance(spec, str):
        raise InputError(
            f"an embedder must be a name, a folder or an object with name, fingerprint "
            f"and encode(texts); got {type(spec).__name__}"
        )
    kwargs = _torch_keywords(settings)
    if spec == "mpnet":  # the offline all-mpnet-base-v2 of the mpnet extra
        return load_once(
            ("embedder", "mpnet", settings),
            lambda: SentenceTransformerEmbedder(str(mpnet_folder()), name=MPNET_NAME, **kwargs),
        )
    if spec is None and not settings.asked(exclude=("cache_dir",)):
        return default_embedder()
    if spec is not None:
        check_model_spec(spec, "embedding model")
    return load_once(
        ("embedder", spec, settings), lambda: SentenceTransformerEmbedder(spec, **kwargs)
    )


def _cache_free(settings: ModelSettings) -> ModelSettings:
    """``settings`` less the score cache, which wraps a backend and does not change it (so a
    backend is loaded once whatever cache a run names)."""
    return ModelSettings(settings.device, settings.precision, settings.batch_size)


def embedder_for(spec: Any, settings: ModelSettings) -> CachedEmbedder:
    """The embedder a metric of this run uses: loaded once, its texts' embeddings cached (in
    ``settings.cache_dir`` too, when the run names one)."""
    return cached_embedder(resolve_embedder(spec, _cache_free(settings)), settings.cache_dir)


def nli_for(spec: Any, settings: ModelSettings) -> CachedNLI:
    """The NLI model a metric of this run uses: loaded once, its pairs' predictions cached."""
    return cached_nli(resolve_nli_model(spec, _cache_free(settings)), settings.cache_dir)
