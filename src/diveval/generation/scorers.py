"""Set scorers: what Diversity Threshold Generation asks of a diversity metric.

A set scorer turns one response set into one number (higher = more diverse) and, in one go, scores
every leave-one-out subset of a set. Two kinds:

- ``MetricScorer(name, **options)``: any registered metric that supports the sets setting. The n
  leave-one-out subsets go to the metric as ONE sets input, so a lexical metric tokenizes once and
  a model-backed metric (``nli-*``, ``sent-bert``) makes at most one model call. Model-backed
  metrics reach their model through the process-wide caches of ``models.cache`` (``CachedNLI``,
  ``CachedEmbedder``): every (premise, hypothesis) pair and every text goes to the model once, so
  a new response costs only its own 2(n-1) NLI pairs (or one embedding) and scoring the
  leave-one-out subsets of a set already scored costs no model call at all.
- any object with ``name``, ``signature``, ``score(responses) -> float`` and
  ``leave_one_out(responses) -> list[float]`` (e.g. a stub in tests); ``FunctionScorer`` wraps a
  plain ``f(responses) -> float``.

The paper's presets (Stasaski & Hearst 2022, section 6) live in ``PRESETS``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Protocol, Sequence, runtime_checkable

import numpy as np

from ..constants import TEVET_TOKENIZER
from ..errors import InputError
from ..models.resolve import resolve_embedder
from ..registry import get_metric
from ..results import SETS


@runtime_checkable
class SetScorer(Protocol):
    name: str
    signature: str

    def score(self, responses: Sequence[str]) -> float:
        """The diversity of one response set."""
        ...

    def leave_one_out(self, responses: Sequence[str]) -> Sequence[float]:
        """Element i: the diversity of ``responses`` without response i."""
        ...


class MetricScorer:
    """A registered sets metric as a set scorer; ``options`` are the metric's run options
    (tokenizer, nli_model, embedding_model, cache_dir, ...)."""

    def __init__(self, metric: str, **options: Any):
        self.metric = get_metric(metric)
        if not self.metric.supports(SETS):
            raise InputError(
                f"metric {metric!r} does not score response sets; threshold "
                f"generation needs a sets metric"
            )
        self.name = metric
        self.options = {k: v for k, v in options.items() if v is not None}
        self.signature = ""  # filled by the first score (it names the model and its weights)

    def _scores(self, sets: list[list[str]]) -> np.ndarray:
        result = self.metric(sets, **self.options)
        self.signature = result.signature
        if result.items is None or len(result.items) != len(sets):
            raise InputError(f"metric {self.name!r} gives no per-set values")
        return np.asarray(result.items, dtype=float)

    def score(self, responses: Sequence[str]) -> float:
        return float(self._scores([list(responses)])[0])

    def score_many(self, sets: Sequence[Sequence[str]]) -> np.ndarray:
        return self._scores([list(s) for s in sets])

    def leave_one_out(self, responses: Sequence[str]) -> list[float]:
        items = list(responses)
        subsets = [items[:i] + items[i + 1 :] for i in range(len(items))]
        return self._scores(subsets).tolist()

    def __repr__(self) -> str:
        return f"MetricScorer({self.name!r}, {self.options!r})"


class FunctionScorer:
    """A plain ``f(responses) -> float`` as a set scorer (leave-one-out by calling f n times)."""

    def __init__(
        self,
        fn: Callable[[list[str]], float],
        name: Optional[str] = None,
        signature: Optional[str] = None,
    ):
        self.fn = fn
        self.name: str = name or str(getattr(fn, "__name__", "function"))
        self.signature: str = signature or f"{self.name}|function"

    def score(self, responses: Sequence[str]) -> float:
        return float(self.fn(list(responses)))

    def leave_one_out(self, responses: Sequence[str]) -> list[float]:
        items = list(responses)
        return [float(self.fn(items[:i] + items[i + 1 :])) for i in range(len(items))]


@dataclass(frozen=True)
class Preset:
    """One of the paper's settings: the metric that decides (drop choice and threshold), its
    threshold (a set must score strictly above it), the metric reported in the paper's tables,
    and fixed metric options."""

    name: str
    metric: str
    threshold: float
    report: Optional[str] = None
    options: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""
    # Set when the threshold is a percentile of a *model's* scores on human sets: it then belongs
    # to that model, and another model's threshold is looked up by fingerprint (MEASURED).
    model_option: Optional[str] = None
    paper_model: str = ""


PRESETS: dict[str, Preset] = {
    # "more than 10 contradictions of the 20 ordered pairs of a set of 5"; the paper's tables
    # report Baseline NLI Diversity of the starting and ending sets.
    "nli": Preset(
        "nli",
        "nli-counts",
        10.0,
        report="nli-baseline",
        note="more than 10 contradictions of 20 ordered pairs; reports nli-baseline",
    ),
    # the 90th percentile of averaged distinct-n over DailyDialog++ dev human sets; Tevet &
    # Berant's tokenizer (`diveval thresholds` reproduces 0.98 with it).
    "avg-distinct": Preset(
        "avg-distinct",
        "avg-distinct",
        0.98,
        options={"tokenizer": TEVET_TOKENIZER},
        note="averaged distinct-1..5 above 0.98, Tevet tokenizer",
    ),
    # Sent-BERT diversity = minus the mean pairwise cosine; the paper's -0.179 is the 90th
    # percentile on DailyDialog++ dev with its BERT-large Sentence-BERT: the threshold of the
    # embedder in use is taken from MEASURED (by fingerprint) instead.
    "sent-bert": Preset(
        "sent-bert",
        "sent-bert",
        -0.179,
        note="minus mean pairwise embedding cosine above the embedder's 90th percentile on "
        "DailyDialog++ dev",
        model_option="embedding_model",
        paper_model="the paper's BERT-large Sentence-BERT",
    ),
}

#: Percentile thresholds measured with diveval on DailyDialog++ dev (1,028 sets of 5 positive
#: responses, 90th percentile, numpy linear), per (preset, model fingerprint):
#:   diveval thresholds dailydialog-plusplus/dev.json -m sent-bert [--embedding-model mpnet]
#: all-mpnet-base-v2 (the mpnet extra, float32 weights) has this weight fingerprint:
MPNET_FINGERPRINT = "9ca137417b5f"
MEASURED: dict[tuple[str, str], float] = {
    # all-MiniLM-L6-v2, the shipped offline embedder (fp:fe70145dbf15): -0.15967038149833315
    ("sent-bert", "fe70145dbf15"): -0.15967038149833315,
    # all-mpnet-base-v2 of the mpnet extra (fp:9ca137417b5f): -0.15884949206966512
    ("sent-bert", MPNET_FINGERPRINT): -0.15884949206966512,
}


def resolve_scorer(metric: Any, threshold: Optional[float] = None, **options: Any):
    """(scorer, threshold, report scorer or None) for a preset name, a registered metric name or a
    scorer object. A preset gives its threshold unless ``threshold`` is passed; a metric name or a
    scorer needs ``threshold``. ``options`` go to registered metrics (the preset's own fixed options
    win unless given here)."""
    scorer, value, report, _ = resolve_preset(metric, threshold, **options)
    return scorer, value, report


def _model_fingerprint(preset: Preset, options: Mapping[str, Any]) -> tuple[str, str]:
    """(name, fingerprint) of the model a model-dependent preset would use."""
    model = resolve_embedder(
        options.get(preset.model_option or ""),
        device=options.get("device"),
        batch_size=options.get("batch_size"),
        precision=options.get("precision"),
    )
    return model.name, model.fingerprint


def resolve_preset(metric: Any, threshold: Optional[float] = None, **options: Any):
    """As :func:`resolve_scorer`, plus a line saying which threshold is used and why."""
    report = None
    if isinstance(metric, str):
        preset = PRESETS.get(metric)
        if preset is not None:
            opts = {**preset.options, **{k: v for k, v in options.items() if v is not None}}
            scorer: SetScorer = MetricScorer(preset.metric, **opts)
            if preset.report:
                report = MetricScorer(preset.report, **opts)
            if threshold is not None:
                return scorer, float(threshold), report, "given (--threshold)"
            if preset.model_option is None:
                return scorer, preset.threshold, report, f"the {preset.name} preset: {preset.note}"
            name, fp = _model_fingerprint(preset, opts)
            measured = MEASURED.get((preset.name, fp))
            if measured is None:
                raise InputError(
                    f"the {preset.name} preset's threshold is a percentile of the embedder's "
                    f"scores on human sets, and none is known for {name} (fp:{fp}); measure it "
                    f"with `diveval thresholds DailyDialog++/dev.json -m {preset.name} "
                    f"--embedding-model {name}` and pass it as --threshold (the paper's "
                    f"{preset.threshold:g} is for {preset.paper_model})"
                )
            why = (
                f"the {preset.name} preset for {name} (fp:{fp}): 90th percentile of DailyDialog++ "
                f"dev measured by diveval (the paper's {preset.threshold:g} is for "
                f"{preset.paper_model})"
            )
            return scorer, measured, report, why
        scorer = MetricScorer(metric, **options)
    elif isinstance(metric, SetScorer):
        scorer = metric
    elif callable(metric):
        scorer = FunctionScorer(metric)
    else:
        raise InputError(
            f"a metric must be a preset ({', '.join(PRESETS)}), a registered metric "
            f"name, a set scorer or a function; got {type(metric).__name__}"
        )
    if threshold is None:
        raise InputError(
            f"metric {getattr(scorer, 'name', metric)!r} is not a preset: "
            f"give a threshold (presets: {', '.join(PRESETS)})"
        )
    return scorer, float(threshold), report, "given"
