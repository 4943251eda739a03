"""From what a user says (nothing, a name or path, a model object) to a model backend.

- ``resolve_nli_model(None)``: the NLI model shipped with diveval (``shipped_nli.default_nli_model``);
  a string: a Hugging Face sequence-classification model by hub name or folder (``HFNLIModel``),
  except the shipped model's own name ("default" too) and a folder in the shipped model's layout
  (``*.onnx`` beside ``vocab.txt``: ``ShippedNLIModel``); an object with ``predict``: itself.
- ``resolve_embedder``, ``embedder_for``: the same for sentence embedders, in
  :mod:`diveval.models.embedders` (named here too, for the callers that look here).

Each takes the run's :class:`~diveval.models.devices.ModelSettings` (resolved once where the run
starts); the loose ``device=`` / ``batch_size=`` / ``precision=`` keywords of a direct call are
resolved into one here. Backends built from a name are loaded once per process and settings
(``models.loaded``). ``nli_for`` adds the run's score cache: what a metric uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from ..errors import InputError
from . import answers_judge, shipped_nli
from .base import NLIModel
from .cache import CachedNLI, cached_nli
from .devices import (
    ModelSettings,
    SettingsKeywords,
    as_built,
    cpu_only,
    settings_of,
    with_settings,
)
from .embedders import embedder_for, resolve_embedder
from .hf_nli import HFNLIModel
from .loaded import load_once
from .offline import check_model_spec

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

__all__ = [
    "check_model_spec",
    "answers_model_for",
    "embedder_for",
    "nli_for",
    "resolve_embedder",
    "resolve_nli_model",
    "with_nli",
]


def _shipped_nli(settings: ModelSettings, what: str, folder: Optional[str] = None):
    cpu_only(settings.device, what)
    as_built(settings.precision, what, _CASTABLE)
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


def answers_model_for(settings: ModelSettings) -> answers_judge.AnswerEquivalenceModel:
    """The shipped answer-equivalence model (``--judge answers``): CPU, as built, loaded once
    per batch size."""
    what = "the answers judge's model"
    cpu_only(settings.device, what)
    as_built(settings.precision, what, _CASTABLE)
    if not answers_judge.shipped_model_available():
        raise InputError(
            "the answers judge needs onnxruntime and tokenizers (pip install 'diveval[nli]')"
        )
    return answers_judge.default_answers_model(
        settings.batch_size or answers_judge.DEFAULT_BATCH_SIZE
    )


def _onnx_folder(spec: str) -> bool:
    p = Path(spec)
    return p.is_dir() and (p / "vocab.txt").exists() and any(p.glob("*.onnx"))


#: what an explicit precision applies to, where the NLI model asked for cannot be cast
_CASTABLE = "Hugging Face models (name one with --nli-model)"


def resolve_nli_model(
    spec: Any = None,
    settings: Optional[ModelSettings] = None,
    **keywords: Unpack[SettingsKeywords],
) -> NLIModel:
    """An NLIModel for ``spec``: None (the shipped model), a hub name or folder, or a model."""
    settings = settings_of(settings, **keywords)
    shipped = ("default", "shipped", shipped_nli.MODEL_NAME)
    if spec is None or isinstance(spec, str) and spec in shipped:
        return _shipped_nli(settings, "the shipped NLI model")
    if isinstance(spec, str):
        if _onnx_folder(spec):  # a folder in the shipped model's layout (ONNX + vocab.txt)
            return _shipped_nli(settings, "an ONNX NLI model", spec)
        check_model_spec(spec, "NLI model")
        loading = settings.for_loading()
        return load_once(("nli", spec, loading), lambda: HFNLIModel(spec, settings=loading))
    if isinstance(spec, NLIModel):
        as_built(settings.precision, "an NLI model object", _CASTABLE)
        return spec
    raise InputError(
        f"an NLI model must be a name, a folder or an object with name, fingerprint "
        f"and predict(premises, hypotheses); got {type(spec).__name__}"
    )


def nli_for(spec: Any, settings: ModelSettings) -> CachedNLI:
    """The NLI model a metric of this run uses: loaded once, its pairs' predictions cached."""
    return cached_nli(resolve_nli_model(spec, settings), settings.cache_dir)


def with_nli(options: dict[str, Any], context: Any) -> dict[str, Any]:
    """A registry row's ``load``: its options with the NLI model ``nli_model`` names, loaded with
    the run's settings, as ``model``, in place of the name and the loose settings."""
    rest = with_settings(options, context)
    rest["model"] = nli_for(rest.pop("nli_model", None), rest.pop("settings"))
    return rest
