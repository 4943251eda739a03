"""Corpus metrics that read each response's references, on resampled corpora: what a paired
bootstrap over prompts needs of ``ref-*`` and MAUVE (see :mod:`diveval.meta.statistics.compare`).

A resample or a swap of prompts is a weight vector over *units* (one response with its own
references; a prompt drawn twice is a unit held twice, in unit order), and a resampler gives the
metric of every row of a weight matrix ``[rows, units]``, equal to the registry metric on the
corpus those weights build (responses and their references repeated together). Three kinds:

- **per-item means** (ref-rouge-l, ref-meteor, ref-embedding-average, ref-bertscore-*, and
  ref-bleu-n with reduction max or mean): the value is the mean of per-item values, and each
  item's value reads only its response and its references (their states say so:
  ``item_mean``; BERTScore without idf weighting, the only way diveval computes it). Their
  per-prompt values are used as a per-set metric's are, with no resampler (:func:`per_item_mean`).
- **summed statistics** (pooled ref-bleu-n, reduction multi, its default; ref-local-recall):
  the value is a function of sums over items; their states build the per-unit statistics and the
  formula (``unit_statistics``, a :class:`~diveval.state.SummedStats`), and
  :mod:`diveval.meta.statistics.paired_corpus` asks for them as it asks the n-gram family's.
- **refitted** (MAUVE): the features of each unique text are computed once; each row refits the
  quantisation and the divergence curve (:class:`MauveResampler`), the costly kind, which is why
  compare gives it its own number of resamples.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ...errors import InputError
from ...reference.mauve import MauveRefit

Texts = Sequence[str]
References = Sequence[Sequence[str]]


def state_or_none(metric: Any, options: Mapping[str, Any]) -> Any | None:
    """The metric's state under ``options``, or None where it has none for them (the paired
    tests then read no capability of it)."""
    try:
        return metric.make_state(options)
    except InputError:
        return None


def per_item_mean(metric: Any, options: Mapping[str, Any]) -> bool:
    """Whether a corpus metric's value is the mean of independent per-item values, so that its
    per-prompt values may be differenced prompt by prompt: its state says so (``item_mean``)."""
    return bool(getattr(state_or_none(metric, options), "item_mean", False))


def check_references_given(metric: Any, refs: Sequence[Any]) -> None:
    """A metric that reads references needs them for every compared response."""
    missing = [i for i, r in enumerate(refs) if not r]
    if missing:
        raise InputError(
            f"{metric.name} needs references for every compared response; {len(missing)} have none"
        )


class MauveResampler:
    """MAUVE of each weighted corpus: the units' responses as the model texts, their references
    (pooled, repeats kept) as the human texts; features once per unique text."""

    #: Named in the signature of a paired test's row.
    tag = "corpus:refit"

    def __init__(self, units: Texts, refs: References, options: Mapping[str, Any]):
        refit_options = ("batch_size", "device", "cache_dir", "precision")
        self.refit = MauveRefit(
            [*units, *(r for rs in refs for r in rs)],
            options.get("embedding_model"),
            **{k: options[k] for k in refit_options if options.get(k) is not None},
        )
        self.model_rows = self.refit.rows(units)
        self.human_rows = [self.refit.rows(list(rs)) for rs in refs]

    def values(self, weights: np.ndarray, name: str | None = None) -> np.ndarray:
        """MAUVE of each row of ``weights`` [rows, units] (``name``: unused, as
        :meth:`diveval.state.SummedStats.values`)."""
        w = np.asarray(weights, dtype=np.int64)
        out = np.empty(w.shape[0])
        with self.refit.quiet():
            for r, times in enumerate(w):
                held = np.flatnonzero(times)
                human = np.concatenate([np.tile(self.human_rows[u], times[u]) for u in held])
                out[r] = self.refit.value(np.repeat(self.model_rows[held], times[held]), human)
        return out


def refitted(metric: Any) -> bool:
    """Whether a metric is refitted on every resample (MAUVE: its clustering reads both sides)."""
    return getattr(metric, "resampling", "") == "refit"


def refit_resampler(
    metric: Any, options: Mapping[str, Any], units: Texts, refs: Sequence[Any]
) -> MauveResampler | None:
    """The resampler of a corpus metric that reads references and is refitted on every resample
    (its row declares ``resampling="refit"``: MAUVE), else None."""
    if "references" not in metric.options or not refitted(metric):
        return None
    return MauveResampler(units, refs, options)
