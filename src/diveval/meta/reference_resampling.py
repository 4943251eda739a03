"""Corpus metrics that read each response's references, on resampled corpora: what a paired
bootstrap over prompts needs of ``ref-*`` and MAUVE (see :mod:`diveval.meta.compare`).

A resample or a swap of prompts is a weight vector over *units* (one response with its own
references; a prompt drawn twice is a unit held twice, in unit order), and a resampler gives the
metric of every row of a weight matrix ``[rows, units]``, equal to the registry metric on the
corpus those weights build (responses and their references repeated together). Three kinds:

- **per-item means** (ref-rouge-l, ref-meteor, ref-embedding-average, ref-bertscore-*, and
  ref-bleu-n with reduction max or mean): the value is the mean of per-item values, and each
  item's value reads only its response and its references (their states join parts by
  concatenating items, :class:`~diveval.reference.item_state.ItemScoresState`; BERTScore without
  idf weighting, the only way diveval computes it). Their per-prompt values are used as a per-set
  metric's are, with no resampler (:func:`per_item_mean`).
- **summed statistics** (pooled ref-bleu-n, reduction multi, its default; ref-local-recall):
  the value is a function of sums over items, so a resample's sums are its weights times the
  units' statistics (:class:`SummedStats`). Pooled BLEU with nltk's method5/method7 also reads
  the 5-gram precision of the corpus's last item: the last unit the row holds.
- **refitted** (MAUVE): the features of each unique text are computed once; each row refits the
  quantisation and the divergence curve (:class:`MauveResampler`), the costly kind, which is why
  compare gives it its own number of resamples.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..errors import InputError
from ..reference.item_state import ItemScoresState, PooledBleuState
from ..reference.local_recall import LocalRecallState, level_counts
from ..reference.mauve import MauveRefit
from ..reference.multiref import pooled_bleu_value
from ..text.bleu import BleuStats, last_segment_p5, segment_stats
from ..text.tokenizers import options_tokenizer

Units = Sequence[str]
References = Sequence[Sequence[str]]


def per_item_mean(metric: Any, options: Mapping[str, Any]) -> bool:
    """Whether a corpus metric's value is the mean of independent per-item values, so that its
    per-prompt values may be differenced prompt by prompt: its state joins items (pooled BLEU's
    headline, from summed statistics, excepted)."""
    try:
        state = metric.make_state(options)
    except InputError:
        return False
    return isinstance(state, ItemScoresState) and not _pooled_bleu(state)


def _pooled_bleu(state: Any) -> bool:
    return isinstance(state, PooledBleuState) and state.options.get("reduction", "multi") == "multi"


class SummedStats:
    """A metric finished from sums over items: ``stats`` [units, fields], one row per unit;
    ``finish(sums [rows, fields], held [rows, units] bool) -> values [rows]``."""

    def __init__(self, stats: np.ndarray, finish: Callable[[np.ndarray, np.ndarray], np.ndarray]):
        self.stats = np.asarray(stats, dtype=float)
        self.finish = finish

    def values(self, weights: np.ndarray) -> np.ndarray:
        w = np.asarray(weights, dtype=float)
        # sums of integer counts below 2**53: exact in float64, whatever the order of the sum
        return self.finish(np.einsum("ru,uf->rf", w, self.stats), w > 0)


def _fields(signature: str) -> dict[str, str]:
    return dict(f.split(":", 1) for f in signature.split("|")[1:] if ":" in f)


def pooled_bleu(
    units: Units, refs: References, options: Mapping[str, Any], signature: str
) -> SummedStats:
    """Pooled (corpus) multi-reference BLEU-n: matches, n-gram totals, empty orders, hypothesis
    and closest reference lengths add over items; the order and the smoothing are the scored
    run's, read from its signature as the metric's state does."""
    fields = _fields(signature)
    n, smoothing = int(fields["n"]), fields["smooth"]
    tok = options_tokenizer(options)
    hyps = tok.tokenize_many(list(units))
    r_toks = [tok.tokenize_many(list(r)) for r in refs]
    need5 = smoothing in ("method5", "method7")
    rows = []
    for h, rs in zip(hyps, r_toks):
        st = segment_stats(h, rs, n)
        p5 = last_segment_p5([h], [rs]) if need5 else (0, 0)
        rows.append([*st.matches, *st.totals, *st.empty, st.hyp_len, st.ref_len, *p5])
    stats = np.array(rows, dtype=float).reshape(len(units), 3 * n + 4)

    def finish(sums: np.ndarray, held: np.ndarray) -> np.ndarray:
        last = held.shape[1] - 1 - np.argmax(held[:, ::-1], axis=1)  # the row's last unit
        out = np.empty(sums.shape[0])
        for r, s in enumerate(sums.astype(np.int64)):
            total = BleuStats(
                tuple(s[:n]), tuple(s[n : 2 * n]), tuple(s[2 * n : 3 * n]), s[3 * n], s[3 * n + 1]
            )
            p5 = (int(stats[last[r], 3 * n + 2]), int(stats[last[r], 3 * n + 3])) if need5 else None
            out[r] = pooled_bleu_value(total, p5, n, smoothing)
        return out

    return SummedStats(stats, finish)


def local_recall(units: Units, refs: References, options: Mapping[str, Any]) -> SummedStats:
    """ref-local-recall: the words recalled and to recall at each importance level add over
    items; the level reported is the most references of any item the row holds."""
    tok = options_tokenizer(options)
    hyps = tok.tokenize_many(list(units))
    top = max(len(r) for r in refs)
    stats = np.zeros((len(units), 2 * (top + 1)))
    for u, (h, rs) in enumerate(zip(hyps, refs)):
        recalled, to_recall = level_counts([h], [list(rs)], tok)
        stats[u, : recalled.size] = recalled
        stats[u, top + 1 : top + 1 + to_recall.size] = to_recall
    levels = np.array([len(r) for r in refs])

    def finish(sums: np.ndarray, held: np.ndarray) -> np.ndarray:
        level = np.where(held, levels[None, :], 0).max(axis=1)
        rows = np.arange(sums.shape[0])
        recalled, to_recall = sums[rows, level], sums[rows, top + 1 + level]
        return np.divide(recalled, to_recall, out=np.zeros_like(recalled), where=to_recall > 0)

    return SummedStats(stats, finish)


class MauveResampler:
    """MAUVE of each weighted corpus: the units' responses as the model texts, their references
    (pooled, repeats kept) as the human texts; features once per unique text."""

    def __init__(self, units: Units, refs: References, options: Mapping[str, Any]):
        refit_options = ("batch_size", "device", "cache_dir", "precision")
        self.refit = MauveRefit(
            [*units, *(r for rs in refs for r in rs)],
            options.get("embedding_model"),
            **{k: options[k] for k in refit_options if options.get(k) is not None},
        )
        self.model_rows = self.refit.rows(units)
        self.human_rows = [self.refit.rows(list(rs)) for rs in refs]

    def values(self, weights: np.ndarray) -> np.ndarray:
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


def reference_resampler(
    metric: Any, options: Mapping[str, Any], units: Units, refs: Sequence[Any], signature: str
) -> tuple[Any, str] | None:
    """(a resampler with ``values(weights)``, its signature tag) for a corpus metric that reads
    references, or None when the metric is not one of them."""
    if "references" not in metric.options:
        return None
    missing = [i for i, r in enumerate(refs) if not r]
    if missing:
        raise InputError(
            f"{metric.name} needs references for every compared response; {len(missing)} have none"
        )
    if refitted(metric):
        return MauveResampler(units, refs, options), "corpus:refit"
    try:
        state = metric.make_state(options)
    except InputError:
        return None
    if _pooled_bleu(state):
        return pooled_bleu(units, refs, options, signature), "corpus:summed-stats"
    if isinstance(state, LocalRecallState):
        return local_recall(units, refs, options), "corpus:summed-stats"
    return None
