"""Adapters that bring diveval's metrics into evaluation harnesses people already run.

One module per harness, each an optional extra that ``import diveval`` never imports:

- :mod:`diveval.harness.inspect_registry`: Inspect AI scorers ``diveval/<metric>`` (loaded through
  Inspect's ``inspect_ai`` entry point) and the ``diveval/k_samples`` solver;
- :mod:`diveval.harness.lm_eval_registry`: lm-evaluation-harness metrics, aggregations and a
  filter, registered through its registry;
- ``diveval/harness/diveval_measurement/``: a Hugging Face ``evaluate`` measurement module (a
  folder with its card), ``evaluate.load(diveval.harness.measurement_path())``.

The adapters are thin: each turns the harness's k responses per prompt into one *set* and hands
the sets to :func:`diveval.score`, so the values and signatures are diveval's own. A prompt's
value is the metric on its set (the sets setting); the mean over prompts is diveval's sets value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from ..api import score
from ..errors import InputError
from ..registry import all_metrics
from ..results import SETS

__all__ = ["MIN_RESPONSES", "measurement_path", "score_sets", "set_metrics"]

#: Diversity is a property of several responses to one prompt: fewer than this is a usage error
#: (usually k samples were not requested), not a set of minimum diversity.
MIN_RESPONSES = 2


def measurement_path() -> str:
    """The folder of the ``evaluate`` measurement module: ``evaluate.load(measurement_path())``."""
    return str(Path(__file__).resolve().with_name("diveval_measurement"))


def set_metrics() -> list[str]:
    """Names of the registered metrics that score sets (the ones the adapters offer)."""
    return [name for name, m in all_metrics().items() if m.supports(SETS)]


def score_sets(
    metrics: str | Sequence[str] | None,
    sets: Sequence[Sequence[str]],
    options: Mapping[str, Any],
    names: Sequence[str] | None = None,
) -> Any:
    """``diveval.score(sets, metrics, **options)`` after checking that each set has k >= 2.

    One metric name gives its :class:`~diveval.results.Score` (value = mean of the per-set
    ``items``); a list, or None for diveval's default metrics, gives the ``Scores`` mapping.
    names: what a message calls each set (default ``prompt <i>``).
    """
    label = f"diveval/{metrics}" if isinstance(metrics, str) else "diveval"
    sets = [[str(r) for r in s] for s in sets]
    for i, s in enumerate(sets):
        if len(s) < MIN_RESPONSES:
            where = names[i] if names else f"prompt {i}"
            raise InputError(
                f"{label}: {where} has {len(s)} response(s); diversity needs k >= "
                f"{MIN_RESPONSES} responses per prompt (request k samples from the harness)"
            )
    if isinstance(metrics, str):
        return score(sets, [metrics], **dict(options))[metrics]
    return score(sets, None if metrics is None else list(metrics), **dict(options))
