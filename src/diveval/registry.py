"""The metric registry: one plain dict from name to metric, shared by the API and the CLI.

A metric module registers its entries when imported; ``catalog.py`` lists those modules, so the
registry is filled on first use and ``import diveval`` stays cheap.

A row's options come from one declaration: the names in its ``options`` (beside the row), each an
:class:`diveval.options.Option` whose ``default`` / ``metric_defaults`` is the only place its
default is written. A row's ``compute`` is the implementation itself (:class:`Implementation`
imports it when first called), or a small wrapper that imports it lazily (marked with
:func:`implemented_by`); a wrapper writes no default of its own: it
passes the options on, so the implementation's keyword defaults apply, or reads
:meth:`Metric.option_default` where it needs the value. ``tests/test_defaults.py`` checks, for
every registered row, that the keyword defaults of its compute, its implementation and its
``at_k`` function agree with the row's option defaults.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, TypeVar

from . import catalog
from .context import RunContext
from .errors import InputError, did_you_mean
from .options import KNOWN_OPTIONS, OPTION, PER_ITEM_OPTIONS
from .results import CORPUS, SETS, Score
from .text.language import language_warnings, sample_texts
from .text.prepared import Prepared
from .text.tokenizers import get_tokenizer

__all__ = [
    "DIRECTIONS",
    "KNOWN_OPTIONS",
    "Implementation",
    "METRICS",
    "PER_ITEM_OPTIONS",
    "Metric",
    "all_metrics",
    "check_options",
    "default_metrics",
    "get_metric",
    "implemented_by",
    "metrics_for",
    "pair_mean_at_k",
    "register",
    "register_all",
    "register_tables",
]

DIRECTIONS = ("higher", "lower")

_Fn = TypeVar("_Fn", bound=Callable[..., Any])


def implemented_by(path: str) -> Callable[[_Fn], _Fn]:
    """Mark a registry wrapper with the function it calls, ``"module:function"`` (imported by the
    wrapper when it runs, so that ``import diveval`` stays cheap): the tests check that function's
    keyword defaults against the row's option defaults too."""

    def mark(fn: _Fn) -> _Fn:
        fn.implementation = path  # type: ignore[attr-defined]
        return fn

    return mark


def import_implementation(path: str) -> Callable[..., Any]:
    """The function ``"module:function"`` names, imported now."""
    module, name = path.split(":")
    found: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return found


class Implementation:
    """A row's ``compute`` that is the implementation ``"module:function"`` itself, imported when
    first called (``import diveval`` stays cheap): no wrapper stands between the row and it."""

    def __init__(self, path: str) -> None:
        self.implementation = path

    def __call__(self, *args: Any, **kwargs: Any) -> Score:
        score: Score = import_implementation(self.implementation)(*args, **kwargs)
        return score


#: The tags a metric row may declare (``Metric.tags``).
TAGS = {
    "quality": "the value says how close responses are to their references, not how diverse "
    "they are: copies of one response are no extreme of it",
    "per-response": "each response is measured on its own and the measures averaged: copies of "
    "one varied response score as high as varied responses",
    "five-token-spans": "it reads spans of 5 tokens (part-of-speech templates): responses shorter "
    "than that give it nothing to count",
}


@dataclass(frozen=True)
class Metric:
    """A registered metric: ``compute(data, **fixed, **options) -> Score``.

    settings: which of corpus / sets it supports; options: which run-wide options it takes
    (anything else the caller passes is ignored for this metric); fixed: its own parameters,
    e.g. ``{"n": 2}`` for distinct-2; extra: the pip extra its backend needs, if any.
    """

    name: str
    description: str
    compute: Callable[..., Score]
    settings: tuple[str, ...] = (CORPUS, SETS)
    options: tuple[str, ...] = ("tokenizer", "lowercase")
    fixed: Mapping[str, Any] = field(default_factory=dict)
    extra: str | None = None
    # The kind of model it loads: "embedder", "nli", "pair-classifier", "generator" (where an
    # option picks the model, the kind of the default), or None. Engines ask this, never option
    # names: a model-backed metric runs where its model is loaded once.
    model: str | None = None
    # How a row with a model gets it: ``load(options, context) -> options``, the options naming
    # the model and its settings turned into the model, loaded once with the run's settings
    # (``context.models``), under the keyword its compute takes. None: the compute loads nothing.
    load: Callable[[dict[str, Any], RunContext], dict[str, Any]] | None = None
    default: bool = False  # part of `diveval score` when no --metric is given
    # Which way is better: for diversity metrics, "higher" or "lower" value = MORE DIVERSE (Self-BLEU
    # is "lower"); for reference-based quality metrics, which way = closer to the references.
    # Meta-evaluation (`meta tevet`) orients every metric by it. Every metric must declare it.
    direction: str = ""
    citation: str = ""  # the paper that defines it (author year), where there is one
    # Whether the value depends on the order the responses are listed in: the metrics that JOIN the
    # responses into one text (compression, n-gram diversity across boundaries, MATTR/MTLD windows,
    # POS templates). They join them as given by default (the published definition) and take the
    # "join" option ("sorted": code-point order, an order-invariant variant); every other metric
    # must not depend on the order (tests/test_common.py checks both).
    order_dependent: bool = False
    # The independent implementation the tests check it against, and how closely (shown in the
    # generated documentation); empty where the tests check the definition alone.
    reference: str = ""
    # The metric's mergeable state, for the engines that split the input (shard files, streaming,
    # Ray): ``state(options) -> MetricState`` (see diveval.state), given the options this metric
    # takes, as the function gets them. None: the corpus setting runs in one piece. ``passes``: 2
    # when the state needs a second pass over the items (corpus Self-BLEU).
    state: Callable[[dict[str, Any]], Any] | None = None
    passes: int = 1
    # Where a warning's text holds figures of the input (EAD's distinct count against V), the
    # warnings of parts joined into one Score (shards, Ray batches), recomputed from the joined
    # details (``joined_warnings(details, count=items joined, **fixed)``): one warning for the
    # whole input, as in one process, not one per part.
    joined_warnings: Callable[..., list[str]] | None = None
    # The exact expectation of the metric over every K-subset of each set's responses, where a
    # closed form exists (Distinct-n: expected counts), for ``at_k`` runs
    # (:mod:`diveval.meta.estimation.at_k`): ``at_k(sets, K, **fixed, **options) -> Score``. None:
    # an at-K run averages seeded draws of K responses per set instead.
    at_k: Callable[..., Score] | None = None
    # How a paired test (``diveval.meta.statistics.compare``) resamples a corpus value that is no
    # function of summed per-prompt statistics: "refit" (fitted again on each resample from
    # features computed once: MAUVE's clusters), or "" (the state decides: summed statistics,
    # per-item means, or the metric recomputed on each resampled corpus).
    resampling: str = ""
    # What the row is, for the checks every metric runs (``tests/test_common.py`` chooses its
    # checks by these, as scikit-learn's estimator checks read tags, never by a metric's name):
    # a subset of :data:`TAGS`.
    tags: frozenset[str] = frozenset()

    def __call__(self, data: Any, *, context: RunContext | None = None, **options: Any) -> Score:
        """Run-wide options this metric does not take are ignored (they are for the other metrics
        of the run); a name that is no option at all is an InputError naming the nearest one."""
        check_options(options, [self])
        kwargs = {k: v for k, v in options.items() if k in self.options and v is not None}
        if context is None:
            context = RunContext()
        if self.load is not None:
            kwargs = self.load(kwargs, context)
        if self.takes_context:
            kwargs["context"] = context
        # Score.metric is the registry name, always (one function serves distinct-1..5)
        score = self.compute(data, **self.fixed, **kwargs).with_metric(self.name)
        return self.language_checked(score, data, kwargs)

    def language_checked(self, score: Score, data: Any, options: Mapping[str, Any]) -> Score:
        """``score`` with the warnings of :mod:`diveval.text.language` added: text in a script
        its tokenizer does not split, or not English for an English-only model (never a silent
        number). ``data``: the input scored, or a part of it (engines that stream give one)."""
        return _language_checked(score, data, self, options)

    def make_state(self, options: Mapping[str, Any]) -> Any:
        """A fresh state of this metric for a run with ``options`` (those it does not take are
        ignored, as in ``__call__``), or None when it has no state."""
        if self.state is None:
            return None
        return self.state({k: v for k, v in options.items() if k in self.options and v is not None})

    def option_default(self, name: str) -> Any:
        """This metric's default of option ``name``, as :mod:`diveval.options` declares it."""
        return OPTION[name].default_for(self.name)

    @property
    def implementation(self) -> Callable[..., Any]:
        """The function that computes this metric: ``compute`` itself, or the function a registry
        wrapper names (:func:`implemented_by`), imported now."""
        path = getattr(self.compute, "implementation", None)
        return self.compute if path is None else import_implementation(path)

    @property
    def takes_context(self) -> bool:
        """Whether ``compute`` takes the run's ``context`` (to share work with other metrics)."""
        try:
            return "context" in inspect.signature(self.compute).parameters
        except (TypeError, ValueError):  # a builtin or C function: no context
            return False

    def supports(self, setting: str) -> bool:
        return setting in self.settings


def _language_checked(score: Score, data: Any, metric: Metric, kwargs: Mapping[str, Any]) -> Score:
    """:meth:`Metric.language_checked`."""
    tokenizer = None
    if isinstance(data, Prepared):
        sample, tokenizer = data.sample, data.tokenizer
    else:
        sample = sample_texts(data)
        if "tokenizer" in metric.options:
            tokenizer = get_tokenizer(
                kwargs.get("tokenizer") or metric.option_default("tokenizer"),
                bool(kwargs.get("lowercase")),
            )
    flags = tuple(
        OPTION[o].flags[0] for o in ("nli_model", "embedding_model") if o in metric.options
    )
    warnings = language_warnings(sample, score.signature, tokenizer, flags)
    had = list(score.details.get("warnings", ()))
    new = [w for w in warnings if w not in had]
    if not new:
        return score
    details = {**score.details, "warnings": had + new}
    return Score(score.metric, score.value, score.signature, score.setting, score.items, details)


def pair_mean_at_k(compute: Callable[..., Score]) -> Callable[..., Score]:
    """The ``at_k`` form of a metric whose set value is a mean over the set's pairs of responses
    (cosine diversity, Sent-BERT): each pair is equally likely to be in a random K-subset, so the
    expectation over K-subsets (K >= 2) is the mean over all pairs, the set's own value."""

    def at_k(sets: Any, k: int, **options: Any) -> Score:
        if k < 2:
            raise InputError(f"a mean over pairs of responses needs K of at least 2, got {k}")
        return compute(sets, **options)

    return at_k


METRICS: dict[str, Metric] = {}


def check_options(options: Mapping[str, Any], metrics: list[Metric]) -> None:
    """Refuse an option name that is not in KNOWN_OPTIONS (a typo such as ``tokenzier=`` would
    otherwise be dropped without a word), naming the metrics and the nearest valid name."""
    import difflib

    for name in options:
        if name in KNOWN_OPTIONS:
            continue
        taken = sorted({o for m in metrics for o in m.options}) or list(KNOWN_OPTIONS)
        near = difflib.get_close_matches(name, taken, n=1) or difflib.get_close_matches(
            name, KNOWN_OPTIONS, n=1, cutoff=0.5
        )
        hint = f"; did you mean {near[0]!r}?" if near else f"; it takes {', '.join(taken)}"
        which = ", ".join(m.name for m in metrics) or "any metric"
        raise InputError(f"unknown option {name!r} for {which}{hint}")


def register(metric: Metric) -> Metric:
    if metric.name in METRICS:
        raise ValueError(f"metric {metric.name!r} is registered twice")
    if metric.direction not in DIRECTIONS:
        raise ValueError(f"metric {metric.name!r} must declare direction 'higher' or 'lower'")
    if metric.order_dependent != ("join" in metric.options):
        raise ValueError(
            f"metric {metric.name!r}: an order-dependent metric takes the 'join' option, and only "
            "an order-dependent one does"
        )
    if metric.passes not in (1, 2) or metric.passes == 2 and metric.state is None:
        raise ValueError(f"metric {metric.name!r}: passes is 1 or 2, and 2 only with a state")
    unknown = set(metric.options) - set(KNOWN_OPTIONS)
    if unknown:
        raise ValueError(f"metric {metric.name!r} takes unknown options {sorted(unknown)}")
    METRICS[metric.name] = metric
    return metric


def register_all(table: Iterable[Metric]) -> None:
    """Register a family's table: one ``Metric`` row per metric (see docs/guides/adding-a-metric.md)."""
    for row in table:
        register(row)


def register_tables(tables: dict[str, list[Metric]]) -> list[Metric]:
    """Register a family's titled groups of rows (its ``TABLES``); returns them as one table."""
    table = [row for rows in tables.values() for row in rows]
    register_all(table)
    return table


def all_metrics() -> dict[str, Metric]:
    catalog.load()
    return METRICS


def get_metric(name: str) -> Metric:
    # the families in the catalog's order up to the one that registers ``name`` (all of them
    # for a name none registers): a lexical run imports no semantic or reference module
    catalog.load(until=lambda: name in METRICS)
    if name not in METRICS:
        raise InputError(
            f"unknown metric {name!r}{did_you_mean(name, METRICS)}; `diveval metrics` lists them"
        )
    return METRICS[name]


def metrics_for(names: Any, setting: str) -> list[Metric]:
    """The metrics named (None: the defaults of ``setting``), each checked to support it."""
    chosen = [
        get_metric(n) for n in (list(names) if names is not None else default_metrics(setting))
    ]
    for m in chosen:
        if not m.supports(setting):
            raise InputError(
                f"metric {m.name!r} supports the {' and '.join(m.settings)} setting, "
                f"not the {setting} setting of this input"
            )
    return chosen


def default_metrics(setting: str) -> list[str]:
    return [m.name for m in all_metrics().values() if m.default and m.supports(setting)]
