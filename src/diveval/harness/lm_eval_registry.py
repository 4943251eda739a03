"""lm-evaluation-harness metrics, aggregations and a filter for every diveval metric of sets.

Importing this module registers, through lm-eval's registry API:

- the filter ``diveval_k`` (argument ``k``): keeps the first k responses of every prompt, as the
  built-in ``take_first_k`` does, and refuses a prompt with fewer (the built-in checks only the
  first prompt);
- for each metric of ``diveval.metrics()`` that scores sets, a metric ``diveval/<metric>`` and an
  aggregation of the same name, with ``higher_is_better`` from the metric's direction.

Diversity needs the k responses of one prompt together, so the work is split as for BLEU in
lm-eval: the per-prompt metric passes the prompt's k responses (one *set*) through, and the
aggregation scores all the sets in one ``diveval.score`` call (one model load, batched), whose
value is the mean over prompts of the metric on each prompt's set. Options given beside the metric
in the task YAML (``tokenizer``, ``lowercase``, ...) are diveval's run options.

A task that uses them runs ``repeats: k`` generations per prompt and the ``diveval_k`` filter,
and names in each ``metric_list`` entry its ``aggregation`` (``diveval/<metric>`` again) and its
``higher_is_better``: lm-eval reads those two from the task, never from the registry, and warns
when they are missing; ``examples/lm_eval/`` is one (its helper module imports this one, so ``lm_eval --include_path``
finds the names). lm-eval reports no standard error for these aggregations (it computes one only
for its own); ``diveval score`` on the logged samples gives per-prompt values and intervals.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable, Sequence

from lm_eval.api.filter import Filter
from lm_eval.api.registry import register_aggregation, register_filter, register_metric

from ..registry import get_metric
from . import score_sets, set_metrics

__all__ = ["PREFIX", "KFilter", "registered_names"]

PREFIX = "diveval/"


@register_filter("diveval_k")
class KFilter(Filter):
    """The first k responses of each prompt; a prompt with fewer is an error naming ``repeats``."""

    def __init__(self, k: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if int(k) < 1:
            raise ValueError(f"diveval_k: k must be at least 1, got {k}")
        self.k = int(k)

    def apply(self, resps: Iterable[Sequence[str]], docs: list[dict]) -> list[list[str]]:
        out = []
        for i, r in enumerate(resps):
            if len(r) < self.k:
                raise ValueError(
                    f"diveval_k: prompt {i} has {len(r)} responses, fewer than k = {self.k}; "
                    "set the task's repeats to at least k"
                )
            out.append(list(r[: self.k]))
        return out


def _passthrough(metric: str) -> Callable[..., tuple[list[str], str]]:
    def per_prompt(references: Any = None, predictions: Any = None, **options: Any):
        (responses,) = predictions  # lm-eval passes one prompt's filtered responses
        if isinstance(responses, str):
            raise ValueError(
                f"{PREFIX}{metric} got one response per prompt: set repeats: k and the "
                "diveval_k filter in the task, so each prompt keeps its k responses"
            )
        # a tuple, not a dict (lm-eval spreads a dict into several metrics); options as JSON so
        # the aggregation can check every prompt was scored with the same ones
        return [str(r) for r in responses], json.dumps(options, sort_keys=True)

    per_prompt.__name__ = metric
    return per_prompt


def _aggregation(metric: str) -> Callable[[list[tuple[list[str], str]]], float]:
    def aggregate(items: list[tuple[list[str], str]]) -> float:
        options = {o for _, o in items}
        if len(options) != 1:
            raise ValueError(f"{PREFIX}{metric}: prompts were scored with different options")
        return score_sets(metric, [s for s, _ in items], json.loads(options.pop())).value

    aggregate.__name__ = metric
    return aggregate


def _register() -> list[str]:
    names = []
    for metric in set_metrics():
        name = PREFIX + metric
        register_aggregation(name)(_aggregation(metric))
        register_metric(
            metric=name,
            higher_is_better=get_metric(metric).direction == "higher",
            aggregation=name,
        )(_passthrough(metric))
        names.append(name)
    return names


_NAMES = _register()


def registered_names() -> list[str]:
    """The lm-eval metric (and aggregation) names this module registered."""
    return list(_NAMES)
