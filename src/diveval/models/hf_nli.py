"""NLI backend: any Hugging Face sequence-classification model with three NLI labels (transformers).

The model's output columns are mapped to diveval's fixed order (contradiction, neutral, entailment)
from ``config.id2label``, case-insensitively ("CONTRADICTION", "Contradiction", "contradiction" ...).
Generic names ("LABEL_0", ...) say nothing about meaning, so such a model is refused unless the
caller states the order with ``labels=``; so is any model whose labels do not name each of the three
classes exactly once. Pairs are tokenized once, sorted by length and padded per batch (a batch costs
what its longest pair costs), run under ``torch.inference_mode`` on CUDA when present.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

import numpy as np

from ..errors import InputError, MissingDependencyError
from ..progress import track
from .base import NLI_LABELS, BatchedNLI
from .devices import ModelSettings, SettingsKeywords, settings_of
from .fingerprint import state_dict_fingerprint
from .offline import error_line, hub_offline
from .threads import torch_threads

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

DEFAULT_HF_NLI = "roberta-large-mnli"  # the model of Stasaski & Hearst (2022)

_SYNONYMS = {
    "contradiction": "contradiction",
    "contradictory": "contradiction",
    "contradict": "contradiction",
    "neutral": "neutral",
    "entailment": "entailment",
    "entailed": "entailment",
    "entails": "entailment",
}


def map_nli_labels(
    id2label: Mapping[Any, str], labels: Optional[Sequence[str]] = None, model: str = "model"
) -> list[int]:
    """Output column of each of (contradiction, neutral, entailment) for a model's ``id2label``.

    ``labels``: the NLI label of each output column, in column order, for models whose config does
    not name them (e.g. ``("entailment", "neutral", "contradiction")``).
    """
    n = len(id2label)
    if labels is not None:
        names = list(labels)
        if len(names) != n:
            raise InputError(f"{model}: labels= gives {len(names)} names for {n} outputs")
    else:
        names = [str(id2label[k]) for k in sorted(id2label, key=int)]
    found: dict[str, list[int]] = {}
    for col, raw in enumerate(names):
        label = _SYNONYMS.get(str(raw).strip().lower().replace("_", " "))
        if label is not None:
            found.setdefault(label, []).append(col)
    if n != 3 or any(len(found.get(lab, [])) != 1 for lab in NLI_LABELS):
        hint = (
            "generic label names say nothing about their meaning; "
            if all(str(x).upper().startswith("LABEL_") for x in names)
            else ""
        )
        raise InputError(
            f"{model}: cannot map its labels {names} to contradiction/neutral/entailment; {hint}"
            "an NLI model needs exactly one output for each (pass labels=[...] in the model's "
            "output order if you know it)"
        )
    return [found[lab][0] for lab in NLI_LABELS]


def display_name(spec: str) -> str:
    """What a signature calls a model: a hub name as given, a local folder by its last part."""
    p = Path(spec)
    return p.resolve().name if p.exists() else spec


def sequence_classifier(
    spec: str, what: str, backend: str, with_tokenizer: bool = False
) -> tuple[Any, Any]:
    """(``transformers``' sequence-classification model at ``spec``, its tokenizer or None), a hub
    name or folder loaded offline unless the user asked for the network (``models.offline``);
    ``what`` names it in a failed load's error, ``backend`` in a missing extra's."""
    with hub_offline():  # before transformers is imported: it reads the setting then
        try:
            import torch  # noqa: F401
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError:
            raise MissingDependencyError(backend, "models") from None
        try:
            torch_threads()  # before the first model: see models.threads
            tokenizer = AutoTokenizer.from_pretrained(spec) if with_tokenizer else None
            return AutoModelForSequenceClassification.from_pretrained(spec), tokenizer
        except (OSError, ValueError) as err:
            raise InputError(f"cannot load the {what} {spec!r}: {error_line(err)}") from err


class HFNLIModel(BatchedNLI):
    """An NLIModel over a transformers sequence-classification checkpoint (hub name or folder).

    batch_size: pairs per forward pass (None: 32, more on a GPU with free memory); precision: fp32
    (default), fp16, bf16 or auto (see ``models.devices``); max_length: tokens per pair (longest-first truncation);
    labels: column meanings when ``config.id2label`` does not name them; progress: a progress bar
    over batches (None: when stderr is a terminal and the run has more than a few batches).
    """

    def __init__(
        self,
        name_or_path: str = DEFAULT_HF_NLI,
        *,
        settings: Optional[ModelSettings] = None,
        max_length: Optional[int] = None,
        labels: Optional[Sequence[str]] = None,
        progress: Optional[bool] = None,
        **keywords: Unpack[SettingsKeywords],
    ):
        # the run's settings (checked where the run started), or this call's keywords, checked here
        settings = settings_of(settings, **keywords)
        spec = str(name_or_path)
        self.model, self.tokenizer = sequence_classifier(
            spec, "NLI model", "the Hugging Face NLI backend", with_tokenizer=True
        )
        self.columns = map_nli_labels(self.model.config.id2label, labels, spec)
        self.device, self.precision, self.batch_size = settings.place(self.model, 32)
        self.max_length = int(max_length or self._default_max_length())
        # what _fill's truncation=True does to a pair: see ShippedNLIModel.truncation
        self.truncation = f"pair{self.max_length}-longest-first"
        self.progress = progress
        self.name = display_name(spec)
        self.fingerprint = state_dict_fingerprint(
            self.model,
            "columns:" + ",".join(map(str, self.columns)),
            f"max_length:{self.max_length}",
        )

    def _default_max_length(self) -> int:
        limit = getattr(self.tokenizer, "model_max_length", None)
        if isinstance(limit, int) and 0 < limit < 100_000:
            return limit
        return min(512, int(getattr(self.model.config, "max_position_embeddings", 512)))

    def __repr__(self) -> str:
        return f"HFNLIModel(name={self.name!r}, fingerprint={self.fingerprint!r}, device={self.device!r})"

    def _batch_tensors(self, encoded: list[dict[str, list[int]]]):
        import torch

        width = max(len(e["input_ids"]) for e in encoded)
        pad_id = self.tokenizer.pad_token_id or 0
        left = getattr(self.tokenizer, "padding_side", "right") == "left"
        feeds = {}
        for field in encoded[0]:
            fill = pad_id if field == "input_ids" else 0
            arr = np.full((len(encoded), width), fill, dtype=np.int64)
            for i, e in enumerate(encoded):
                row = e[field]
                if left:
                    arr[i, width - len(row) :] = row
                else:
                    arr[i, : len(row)] = row
            feeds[field] = torch.from_numpy(arr).to(self.device)
        return feeds

    def _fill(
        self, out: np.ndarray, premises: Sequence[str], hypotheses: Sequence[str], batch_size: int
    ) -> None:
        import torch

        enc = self.tokenizer(
            list(premises), list(hypotheses), truncation=True, max_length=self.max_length
        )
        fields = [f for f in ("input_ids", "attention_mask", "token_type_ids") if f in enc]
        rows = [{f: enc[f][i] for f in fields} for i in range(len(premises))]
        # Longest first: an out-of-memory batch fails at once, and similar lengths share a batch.
        order = np.argsort([-len(r["input_ids"]) for r in rows], kind="stable")
        starts = range(0, len(order), batch_size)
        show = self.progress
        if show is None:
            import sys

            show = sys.stderr.isatty() and len(starts) > 4
        cols = torch.tensor(self.columns, device=self.device)
        with torch.inference_mode():
            for s in track(starts, f"NLI {self.name}", total=len(starts), enabled=bool(show)):
                b = order[s : s + batch_size]
                logits = self.model(**self._batch_tensors([rows[i] for i in b])).logits
                probs = torch.softmax(logits.float(), dim=-1).index_select(1, cols)
                out[b] = probs.double().cpu().numpy()
