"""The local engine: several registered metrics over one input in this process, tokenized once.

``diveval.score`` validates its arguments and hands the work to an engine: this one, or
:mod:`diveval.scale.ray_engine`. Shards, streaming, Ray tasks and the meta-evaluation call this
loop directly, so nothing below the public API calls back up into it.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..context import RunContext
from ..data import as_setting
from ..errors import InputError
from ..models.devices import ModelSettings, resolve_settings
from ..progress import track
from ..registry import Metric, check_options, metrics_for
from ..results import Score
from ..text.tokenizers import get_tokenizer


class Scores(dict):
    """``{metric name: Score}``, plus ``skipped``: ``{name: reason}`` of the *default* metrics
    that are undefined on this input (e.g. Self-BLEU on a set of one response; a metric named by
    the caller is never skipped: its error is raised), and ``skipped_empty``: the number of empty
    responses left out of the input."""

    def __init__(self, *args: Any, skipped: dict[str, str] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.skipped: dict[str, str] = dict(skipped or {})
        # the empty responses ``diveval.score`` left out of the input (data.without_empty)
        self.skipped_empty = 0


def score(
    data: Any,
    metrics: Iterable[str] | None = None,
    *,
    models: ModelSettings | None = None,
    **options: Any,
) -> Scores:
    """Score a corpus (list of str) or sets (list of lists of str) in this process; ``options``
    are metric options only (each metric takes the ones it declares); ``models``: the model
    settings the caller resolved from them (None: resolved here)."""
    setting, items = as_setting(data)
    chosen = metrics_for(metrics, setting)
    check_options(options, chosen)
    if options.get("tokenizer") is not None and any("tokenizer" in m.options for m in chosen):
        # a mistyped tokenizer is the caller's error, not a reason to skip each default metric
        get_tokenizer(options["tokenizer"], bool(options.get("lowercase")))
    # the model settings are resolved once per run, for every metric of it
    if models is None:
        models = resolve_settings(options)
    context = RunContext(progress=bool(options.get("progress")), models=models)
    results: dict[str, Score] = {}  # in the order asked
    bar = track(
        chosen,
        f"scoring {len(chosen)} metrics",
        total=len(chosen),
        enabled=None if options.get("progress") else False,
    )  # a terminal only
    skipped: dict[str, str] = {}
    for m in bar:
        try:
            results[m.name] = score_metric(m, items, options, context)
        except InputError as exc:
            if metrics is not None:  # asked for by name: its error is the caller's to see
                raise
            skipped[m.name] = str(exc)
    if not results and skipped:
        # one cause shared by several metrics (an unknown tokenizer...) is said once, not per metric
        by_reason: dict[str, list[str]] = {}
        for name, reason in skipped.items():
            by_reason.setdefault(reason, []).append(name)
        reasons = "; ".join(f"{', '.join(names)}: {r}" for r, names in by_reason.items())
        raise InputError(f"no default metric is defined on this input ({reasons})")
    return Scores(results, skipped=skipped)


def score_metric(
    metric: Metric, items: list, options: dict, context: RunContext, *, shared: bool = True
) -> Score:
    """One metric on one input: the call every scoring loop makes (:func:`score`, ``at_k``, the
    agreement board, ``score --level``). ``shared``: the input's tokenization is kept in
    ``context`` for the other metrics of the run (its key is the tokenizer, not the items: pass
    False, or a context of its own, where each call brings other items, as a resample does)."""
    data = shared_input(items, metric, options, context) if shared else items
    return metric(data, context=context, **options)


def shared_input(items: list, metric: Metric, options: dict, context: RunContext) -> Any:
    """Tokenize once per (tokenizer, lowercase) for all lexical metrics of a run."""
    if "tokenizer" not in metric.options:
        return items
    return context.prepared(items, options.get("tokenizer"), bool(options.get("lowercase")))
