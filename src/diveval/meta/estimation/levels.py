"""Reporting levels (Kirk et al. 2024) for any registered metric, with seeded bootstrap intervals.

- **per-input**: the diversity of the k outputs for one input (prompt), averaged over inputs. The
  metric runs in the sets setting, one set per input. ``k`` subsamples k outputs of every input
  (seeded, without replacement; ``draws`` draws averaged), so inputs with different numbers of
  outputs compare; an input with fewer than k outputs is an InputError. Interval: percentile
  bootstrap of the mean over inputs (inputs drawn with replacement).
- **across-input**: the diversity of one output per input, across inputs. Each draw picks one
  output of every input (seeded) and runs the metric on that list: in the corpus setting when the
  metric has one, else as one set (pairwise metrics such as sent-bert). The value is the mean over
  ``draws`` draws. Interval: ``n_resamples`` draws, each of a resample of the inputs and one output
  of each. By default the inputs are drawn WITHOUT replacement (``replace=False, fraction=1``), so
  the interval is that of the choice of outputs: drawing inputs with replacement repeats outputs,
  and repeated outputs lower every diversity metric (a bias, not noise). ``fraction < 1`` gives a
  subsample interval, at that smaller size.
- **cross-model**: how similar the outputs of different models to the same input are. For every
  input with outputs from at least 2 models, a draw takes one output of each model (seeded) and
  the metric runs on that set (sets setting); per-input values are averaged over ``draws`` and
  then over inputs. The value is the metric's diversity across models: the LESS diverse (by the
  metric's direction), the MORE homogeneous the models. Inputs with fewer than 2 models are
  skipped and counted. Interval: bootstrap of the mean over inputs.

Every result carries the metric's signature plus the level's choices (level, k, draws, seed).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Mapping, Sequence

import numpy as np

from ...context import RunContext
from ...errors import InputError
from ...registry import Metric, get_metric
from ...results import CORPUS, SETS
from ...scale.local import score_metric
from ..defaults import DEFAULT_DRAWS
from ..statistics.bootstrap import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, Interval, bootstrap
from ..statistics.resampling import finite_percentile_interval, resample_indices

LEVELS = ("per-input", "across-input", "cross-model")


# Not kw_only: that is Python 3.10+, and the package supports 3.9.
@dataclass(frozen=True)
class LevelScore:
    """One metric at one reporting level; its fields in the order ``to_dict`` writes them.

    value: the level's number; interval: its bootstrap interval; details: counts and the draws'
    values; per_input: per-input values (per-input and cross-model levels), else None.
    """

    metric: str
    level: str
    value: float
    interval: Interval
    direction: str
    signature: str
    details: Mapping[str, Any] = field(default_factory=dict)
    per_input: np.ndarray | None = None

    def to_dict(self, with_items: bool = False) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "per_input"}
        out["interval"], out["details"] = self.interval.to_dict(), dict(self.details)
        if with_items and self.per_input is not None:
            out["per_input"] = self.per_input.tolist()
        return out


def _metric(metric: str | Metric) -> Metric:
    return get_metric(metric) if isinstance(metric, str) else metric


def _check_sets(sets: Any, level: str) -> list[list[str]]:
    if not isinstance(sets, (list, tuple)) or not sets:
        raise InputError(f"the {level} level needs a non-empty list of inputs' outputs")
    out = []
    for i, s in enumerate(sets):
        if isinstance(s, str) or not isinstance(s, (list, tuple)):
            raise InputError(f"set {i}: the {level} level needs a list of outputs per input")
        if not s:
            raise InputError(f"set {i} has no outputs")
        out.append([str(t) for t in s])
    return out


def _signature(score_signature: str, level: str, **choices: Any) -> str:
    head, _, version = score_signature.rpartition("|")
    parts = [f"level:{level}"] + [f"{k}:{v}" for k, v in choices.items() if v is not None]
    return "|".join([head, *parts, version]) if head else "|".join([score_signature, *parts])


def _interval_of_mean(values: np.ndarray, n_resamples: int, confidence: float, seed: int | None):
    if values.size < 2:  # one input: no spread to resample (the rule: a (nan, nan) interval)
        return Interval(float("nan"), float("nan"), confidence, 0, int(values.size), True, seed)
    return bootstrap(
        lambda x: x.mean(axis=1),
        values.tolist(),
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
        vectorized=True,
    )


def per_input(
    metric: str | Metric,
    sets: Sequence[Sequence[str]],
    *,
    k: int | None = None,
    draws: int = DEFAULT_DRAWS,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int | None = 0,
    context: RunContext | None = None,
    **options: Any,
) -> LevelScore:
    """Diversity of the outputs of each input, averaged over inputs (see the module docstring)."""
    m = _metric(metric)
    if not m.supports(SETS):
        raise InputError(f"the per-input level runs {m.name!r} on sets; it supports corpora only")
    items = _check_sets(sets, "per-input")
    context = context if context is not None else RunContext()
    if k is None:
        score = score_metric(m, items, options, context, shared=False)
        values, used_draws, signature = _per_set(score, len(items)), 1, score.signature
    else:
        _check_k(items, k)
        rng = np.random.default_rng(seed)
        runs = []
        for _ in range(_positive(draws, "draws")):
            picked = [[s[i] for i in sorted(rng.choice(len(s), k, replace=False))] for s in items]
            score = score_metric(m, picked, options, context, shared=False)
            runs.append(_per_set(score, len(items)))
        values, used_draws, signature = np.mean(runs, axis=0), draws, score.signature
    return _mean_over_inputs(
        m,
        "per-input",
        values,
        (n_resamples, confidence, seed),
        _signature(signature, "per-input", k=k, draws=used_draws if k else None, seed=seed),
        {"inputs": len(items)},
    )


def _mean_over_inputs(
    m: Metric,
    level: str,
    values: np.ndarray,
    resampling: tuple[int, float, int | None],
    signature: str,
    details: dict[str, Any],
) -> LevelScore:
    """A level whose value is the mean of per-input ``values``, with the bootstrap interval of
    that mean (``resampling``: resamples, confidence, seed)."""
    return LevelScore(
        metric=m.name,
        level=level,
        value=float(values.mean()),
        interval=_interval_of_mean(values, *resampling),
        direction=m.direction,
        signature=signature,
        details=details,
        per_input=values,
    )


def _per_set(score: Any, n: int) -> np.ndarray:
    if score.items is None or len(score.items) != n:
        raise InputError(f"metric {score.metric!r} gives no per-set values for the per-input level")
    return np.asarray(score.items, dtype=float)


def _check_k(items: list[list[str]], k: int) -> None:
    if k < 1:
        raise InputError(f"k (outputs per input) must be at least 1, got {k}")
    for i, s in enumerate(items):
        if len(s) < k:
            raise InputError(f"set {i} has {len(s)} outputs, fewer than k = {k}")


def _positive(n: int, what: str) -> int:
    if n < 1:
        raise InputError(f"{what} must be at least 1, got {n}")
    return n


def across_input(
    metric: str | Metric,
    sets: Sequence[Sequence[str]],
    *,
    draws: int = DEFAULT_DRAWS,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    fraction: float = 1.0,
    replace: bool = False,
    seed: int | None = 0,
    context: RunContext | None = None,
    **options: Any,
) -> LevelScore:
    """Diversity of one output per input, across inputs (see the module docstring)."""
    m = _metric(metric)
    items = _check_sets(sets, "across-input")
    if len(items) < 2:
        raise InputError("the across-input level needs at least 2 inputs")
    if not 0 < confidence < 1:
        raise InputError(f"confidence must be in (0, 1), got {confidence}")
    context = context if context is not None else RunContext()
    as_corpus = m.supports(CORPUS)
    rng = np.random.default_rng(seed)

    def run(rows: np.ndarray) -> Any:
        chosen = [items[r][int(rng.integers(len(items[r])))] for r in rows]
        return score_metric(m, chosen if as_corpus else [chosen], options, context, shared=False)

    everyone = np.arange(len(items))
    first = [run(everyone) for _ in range(_positive(draws, "draws"))]
    values = np.array([s.value for s in first])
    idx = resample_indices(
        len(items), _positive(n_resamples, "n_resamples"), fraction, replace, seed
    )
    resampled = np.array([run(row).value for row in idx])
    low, high, dropped = finite_percentile_interval(resampled, confidence)
    interval = Interval(
        low,
        high,
        confidence,
        n_resamples,
        idx.shape[1],
        replace,
        seed,
        dropped,
    )
    sig = _signature(
        first[0].signature,
        "across-input",
        unit=CORPUS if as_corpus else "one-set",
        draws=draws,
        seed=seed,
    )
    return LevelScore(
        metric=m.name,
        level="across-input",
        value=float(values.mean()),
        interval=interval,
        direction=m.direction,
        signature=sig,
        details={"inputs": len(items), "draws": values.tolist()},
    )


def cross_model(
    metric: str | Metric,
    outputs: Mapping[Any, Mapping[Any, Sequence[str]]],
    *,
    draws: int = DEFAULT_DRAWS,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int | None = 0,
    context: RunContext | None = None,
    **options: Any,
) -> LevelScore:
    """Diversity across models of their outputs to the same input (low = homogeneous).

    outputs: {input: {model: [outputs]}}; models are taken in sorted order of their names.
    """
    m = _metric(metric)
    if not m.supports(SETS):
        raise InputError(f"the cross-model level runs {m.name!r} on sets; it supports corpora only")
    usable = []
    for by_model in outputs.values():
        models = sorted((str(name), list(texts)) for name, texts in by_model.items() if texts)
        if len(models) >= 2:
            usable.append(models)
    skipped = len(outputs) - len(usable)
    if not usable:
        raise InputError("the cross-model level needs inputs answered by at least 2 models")
    context = context if context is not None else RunContext()
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(_positive(draws, "draws")):
        sets = [[texts[int(rng.integers(len(texts)))] for _, texts in models] for models in usable]
        score = score_metric(m, sets, options, context, shared=False)
        runs.append(_per_set(score, len(sets)))
    values = np.mean(runs, axis=0)
    n_models = sorted({name for models in usable for name, _ in models})
    return _mean_over_inputs(
        m,
        "cross-model",
        values,
        (n_resamples, confidence, seed),
        _signature(score.signature, "cross-model", draws=draws, seed=seed),
        {"inputs": len(usable), "skipped_inputs": skipped, "models": n_models},
    )


def group_by_input(
    records: Sequence[Mapping[str, Any]], sets: Sequence[Sequence[str]], model_field: str = "model"
) -> dict[Any, dict[Any, list[str]]]:
    """{input: {model: outputs}} from records with a ``prompt`` (or ``context``) and a model field,
    parallel to ``sets`` (the outputs of each record). Outputs of repeated (input, model) records
    are pooled."""
    out: dict[Any, dict[Any, list[str]]] = {}
    for rec, texts in zip(records, sets):
        key = rec.get("prompt", rec.get("context"))
        where = f"record at line {rec.get('_line', '?')}"
        if key is None:
            raise InputError(f"{where}: the cross-model level needs a 'prompt' or 'context' field")
        if rec.get(model_field) is None:
            raise InputError(f"{where}: the cross-model level needs a {model_field!r} field")
        hashable = key if isinstance(key, str) else repr(key)
        out.setdefault(hashable, {}).setdefault(str(rec[model_field]), []).extend(texts)
    return out


def score_level(level: str, metric: str | Metric, data: Any, **kwargs: Any) -> LevelScore:
    """Dispatch on ``level``: per-input and across-input take sets; cross-model the mapping of
    :func:`cross_model`."""
    if level == "per-input":
        return per_input(metric, data, **kwargs)
    if level == "across-input":
        kwargs.pop("k", None)
        return across_input(metric, data, **kwargs)
    if level == "cross-model":
        kwargs.pop("k", None)
        return cross_model(metric, data, **kwargs)
    raise InputError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
