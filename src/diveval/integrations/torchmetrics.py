"""A diveval metric as a torchmetrics ``Metric``: the metric's declared state, field by field.

>>> m = DiversityMetric("distinct-2")        # options as diveval.score takes them
>>> m.update(["a b c", "a b d"]); m.update(["a b"])
>>> m.compute()                              # the same float as diveval.score(all texts)
0.6

Each field of the metric's :class:`~diveval.state.DeclaredState` is one ``add_state``, reduced
across processes as its :class:`~diveval.state.Reduction` says (``Reduction.torch``): "sum",
"max" and "min" fields are one tensor per process; "cat" fields (per-item arrays, n-gram keys)
are lists of tensors that torchmetrics gathers and concatenates, and the reduction's ``combine``
finishes them (a union of keys drops the keys two processes share); fields with no torch
reduction are gathered as a list and combined by ``combine``. ``compute()`` rebuilds the merged
state and returns its value as a float (what ``self.log`` and Lightning take); ``result()``
returns the whole diveval Score (signature, details) of the same computation, with the warnings
``diveval.score`` gives the same texts: the registry's script and language checks read a sample
of the texts this process added (it keeps the first 256 characters of at most
``SAMPLE_KEPT`` of them; up to that many, the sample is the one ``diveval.score`` reads).

Empty responses (blank or whitespace only) are skipped, as ``diveval score`` and
``diveval.score`` skip them, and counted across processes (``skipped_empty``): ``compute()``
warns as ``diveval.score`` does, and with no response left it is an InputError, never a value
(an empty state's 0.0 would read as "the most diverse" by Self-BLEU for a model whose every
answer was empty).

Arrays travel as tensors of the same bits (64-bit keys, unsigned in numpy, as int64 views;
structured arrays of keys and counts as uint8 rows of their bytes). Fields that are not numbers
(lists of objects; a Gram matrix or a model's name that only the first update sets) travel
pickled in uint8 tensors, which is what ``torch.distributed.all_gather_object`` does with them.
Each process adds the texts it saw; the value after a sync is the one-process value of all.
"""

from __future__ import annotations

import pickle
import warnings
from typing import Any, Optional

import numpy as np
import torch
from torchmetrics import Metric

from ..data import is_empty, listed, no_responses, skipped_warning
from ..errors import InputError
from ..results import Score
from ..state import DeclaredState
from ..text.language import SAMPLE_CHARS
from .carried import carried_state

#: the texts a DiversityMetric keeps (their first SAMPLE_CHARS characters) for the script and
#: language checks of ``result()``: about 4 MB at most
SAMPLE_KEPT = 16384

# torchmetrics' own keyword arguments; every other keyword is a diveval option
_METRIC_KWARGS = frozenset(
    {
        "compute_on_cpu",
        "dist_sync_on_step",
        "process_group",
        "dist_sync_fn",
        "distributed_available_fn",
        "sync_on_compute",
        "compute_with_cache",
    }
)
_TORCH_ONLY = ("sum", "max", "min")  # reductions torch applies to one tensor per process


def _tensorable(like: Any) -> bool:
    """Whether a field whose empty value is ``like`` is numbers (an array of them, or one);
    any other field (a list of objects, a value that only a first update sets) is pickled."""
    if isinstance(like, np.ndarray):
        return like.dtype.kind != "O"
    return isinstance(like, (int, float, np.generic))


def _encode(value: Any, like: Any, device: torch.device) -> torch.Tensor:
    """``value`` (a field of the same kind as ``like``) as a tensor of the same bits."""
    if not _tensorable(like):
        return torch.frombuffer(bytearray(pickle.dumps(value)), dtype=torch.uint8).to(device)
    array = np.ascontiguousarray(value)
    if array.dtype.kind == "V":  # a structured array (key, counts): one row of bytes per entry
        array = array.view(np.uint8).reshape(*array.shape, array.dtype.itemsize)
    elif array.dtype.kind == "u" and array.dtype.itemsize > 1:  # torch's unsigned types are thin
        array = array.view(f"i{array.dtype.itemsize}")
    return torch.from_numpy(array.copy()).to(device)


def _decode(tensor: torch.Tensor, like: Any) -> Any:
    """The field value ``_encode`` made ``tensor`` from."""
    data = tensor.detach().cpu().numpy()
    if not _tensorable(like):
        return pickle.loads(data.tobytes())
    if isinstance(like, np.ndarray):
        if like.dtype.kind == "V":
            return np.ascontiguousarray(data).view(like.dtype).reshape(data.shape[:-1])
        return data.view(like.dtype)
    return type(like)(data.item())  # int, float, or a numpy scalar


class DiversityMetric(Metric):
    """A registered diveval metric (its corpus setting) whose state is a declared one; see the
    module docstring. ``metric``: the registry name; keywords: diveval options (tokenizer,
    lowercase, vocab, ...) and torchmetrics' own (``sync_on_compute``, ``process_group``, ...)."""

    is_differentiable = False
    full_state_update = False

    def __init__(self, metric: str, **kwargs: Any):
        super().__init__(**{k: v for k, v in kwargs.items() if k in _METRIC_KWARGS})
        options = {k: v for k, v in kwargs.items() if k not in _METRIC_KWARGS}
        row, state = carried_state(metric, options, declared=True, host="DiversityMetric")
        self.metric = row.name
        # the options the registry's call would hand the row (for its language checks)
        self._row = row
        self._options = {k: v for k, v in options.items() if k in row.options and v is not None}
        self.direction = row.direction  # which way is more diverse (torchmetrics' is a constant)
        self._empty: DeclaredState = state
        # three kinds of field: one tensor that torch reduces; a list of one tensor per update
        # that torch concatenates ("cat"); a list of one tensor (this process's value, combined
        # at each update) that torch gathers and the reduction combines
        self._tensor_fields: set[str] = set()
        self._cat_fields: set[str] = set()
        for name, reduction in state.fields().items():
            like = getattr(state, name)
            if reduction.torch in _TORCH_ONLY and _tensorable(like):
                self._tensor_fields.add(name)
                self.add_state(name, _encode(like, like, self.device), reduction.torch)
            elif reduction.torch == "cat" and _tensorable(like):
                self._cat_fields.add(name)
                self.add_state(name, [], "cat")
            else:
                self.add_state(name, [], None)
        # the responses added and the empty ones skipped, in every process
        for name in ("diveval_responses", "diveval_empty"):
            if name in self._defaults:
                raise ValueError(f"{metric!r}: a state field is named {name!r}")
            self.add_state(name, torch.tensor(0, dtype=torch.int64), "sum")
        self._sample: list[str] = []  # this process's texts for the language checks
        # this process's empty texts: how many, and where in the order it added texts (the
        # first six: the warning lists five)
        self._added, self._empty_here = 0, 0
        self._empty_at: list[int] = []
        self._warned = 0
        self._last: Optional[Score] = None

    def update(self, texts: list[str]) -> None:
        """Add a batch of texts (strings: one response per context); empty ones are skipped."""
        texts = list(texts)
        kept = [t for t in texts if not is_empty(t)]
        if len(self._empty_at) < 6:
            self._empty_at += [self._added + i for i, t in enumerate(texts) if is_empty(t)][:6]
        self._added += len(texts)
        self._empty_here += len(texts) - len(kept)
        self._add("diveval_empty", len(texts) - len(kept))
        self._add("diveval_responses", len(kept))
        room = SAMPLE_KEPT - len(self._sample)
        self._sample.extend(t[:SAMPLE_CHARS] for t in kept[: max(0, room)])
        part = self._empty._like()
        part.update(kept)
        for name, value in part.values().items():
            like = getattr(self._empty, name)
            if name in self._cat_fields:
                getattr(self, name).append(_encode(value, like, self.device))
                continue
            value = self._empty.fields()[name].combine([self._field(name), value])
            encoded = _encode(value, like, self.device)
            setattr(self, name, encoded if name in self._tensor_fields else [encoded])

    def _field(self, name: str) -> Any:
        """A field's value: its tensor, or its parts (what a sync left) combined by its
        reduction; the empty value where there is none."""
        like = getattr(self._empty, name)
        held = getattr(self, name)
        parts = [held] if isinstance(held, torch.Tensor) else list(held)
        if not parts:
            return like
        return self._empty.fields()[name].combine([_decode(t, like) for t in parts])

    def _sync_dist(self, dist_sync_fn: Any = None, process_group: Any = None) -> None:
        # one tensor per process for every gathered field, whatever the number of updates (a
        # process that saw no text sends the empty value, of the field's dtype)
        for name in self._empty.fields():
            if name not in self._tensor_fields:
                like = getattr(self._empty, name)
                setattr(self, name, [_encode(self._field(name), like, self.device)])
        if dist_sync_fn is None:
            super()._sync_dist(process_group=process_group)
        else:
            super()._sync_dist(dist_sync_fn, process_group=process_group)

    def _add(self, name: str, n: int) -> None:
        setattr(self, name, getattr(self, name) + n)

    def _count(self, name: str) -> int:
        """A count state's value (summed over the processes, once synced)."""
        return int(getattr(self, name))

    @property
    def skipped_empty(self) -> int:
        """The empty texts skipped (in every process, once synced)."""
        return self._count("diveval_empty")

    def reset(self) -> None:
        super().reset()
        self._sample, self._added, self._empty_here, self._empty_at = [], 0, 0, []
        self._warned = 0

    def compute(self) -> float:
        """The metric's corpus value over every text added (in every process, once synced); an
        InputError when no response was added."""
        if self._count("diveval_responses") == 0:
            raise InputError(no_responses(self._count("diveval_empty")))
        state = self._empty._like()
        for name in self._empty.fields():
            setattr(state, name, self._field(name))
        state._restored()
        score = state.result().with_metric(self.metric)
        # the registry's warnings on the texts, as its own call adds them
        score = self._row.language_checked(score, self._sample, self._options)
        empty = self._count("diveval_empty")
        if empty and self._warned != empty:  # said once per count, not at every compute
            # which items, where this process added them all (after a sync, each process
            # numbers its own texts: then the count alone)
            where = listed(self._empty_at, "item") if self._empty_here == empty else ""
            note = f"DiversityMetric: {skipped_warning(empty, where)}"
            warnings.warn(note, UserWarning, stacklevel=2)
            self._warned = empty
        self._last = score
        return float(score.value)

    def result(self) -> Score:
        """The diveval Score (value, signature, details) of :meth:`compute`: the merged
        state's, with the warnings ``diveval.score`` gives the same texts (module docstring)."""
        self.compute()
        assert self._last is not None
        return self._last
