"""Tevet & Berant (2021) tests: does a metric follow a known diversity parameter and humans?

Input: their CSV format, one row per response set: ``label_value`` (the diversity parameter: a
0/1 content-diversity label in conTest, the sampling temperature in decTest), ``resp_0..resp_k``,
and optionally ``metric_abs_hds_mean`` (the mean absolute human diversity score) and the authors'
own ``metric_*`` columns.

Each metric is taken per row either from the registry (computed on the row's responses through
``diveval.score``, so per-set values) or from a column of the file (``metric_X`` or ``X`` when
``metric_X`` exists). For every metric:
- Spearman and Pearson with ``label_value`` (Tevet & Berant report Spearman's rho);
- Spearman and Pearson with ``metric_abs_hds_mean`` when the file has it (skipped for that column
  itself);
- for a binary parameter (conTest), the accuracy of the best threshold classifier: predict 1 (more
  diverse) when the metric is on the diverse side of a threshold t, t chosen on all rows to
  maximise accuracy. The side is the metric's registered ``direction`` (Self-BLEU: lower is more
  diverse); file columns are the authors', oriented so that higher is more diverse;
- percentile bootstrap intervals, by default the NLI Diversity paper's (1,000 resamples of half
  the rows, seeded). The accuracy's interval is that of the same statistic as its point estimate:
  the accuracy of the rule fitted on all rows, on each resample (re-fitting t on each half-sample
  would measure a different, optimistically biased statistic: its interval could miss the point
  estimate).

Tevet & Berant's "absHDS" line is ``metric_abs_hds_mean`` taken as a metric: its correlation with
``label_value``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ...errors import InputError
from ...io.readers import InputData, read_input
from ...models.devices import ModelSettings
from ...registry import get_metric
from ...scale.local import score
from ..defaults import TEVET_TOKENIZER
from ..statistics.bootstrap import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, Interval, bootstrap
from .correlate import Correlation, as_numbers, correlate

LABEL = "label_value"
HUMAN = "metric_abs_hds_mean"


@dataclass(frozen=True)
class Accuracy:
    value: float
    threshold: float
    interval: Interval | None = None
    direction: str = "higher"  # label 1 predicted for values above (higher) / below (lower) t

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "value": self.value,
            "threshold": self.threshold,
            "rule": f"diverse iff value {'>' if self.direction == 'higher' else '<'} threshold",
        }
        if self.interval is not None:
            out["interval"] = self.interval.to_dict()
        return out


@dataclass(frozen=True)
class TevetRow:
    """One metric's results on one test file."""

    metric: str
    source: str  # "registry" or "column:<name>"
    n: int
    parameter: dict[str, Correlation]  # spearman / pearson with label_value
    human: dict[str, Correlation] | None = None  # with metric_abs_hds_mean, when present
    accuracy: Accuracy | None = None  # binary parameter only
    signature: str | None = None  # the registry metric's signature
    values: np.ndarray | None = field(default=None, repr=False)

    def to_dict(self, with_values: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "metric": self.metric,
            "source": self.source,
            "n": self.n,
            "parameter": {k: c.to_dict() for k, c in self.parameter.items()},
        }
        if self.human is not None:
            out["human"] = {k: c.to_dict() for k, c in self.human.items()}
        if self.accuracy is not None:
            out["accuracy"] = self.accuracy.to_dict()
        if self.signature:
            out["signature"] = self.signature
        if with_values and self.values is not None:
            out["values"] = self.values.tolist()
        return out


def best_threshold_accuracy(
    values: Sequence[float], labels: Sequence[float]
) -> tuple[float, float]:
    """(accuracy, threshold) of the best rule "label 1 iff value > threshold".

    Every cut between two consecutive distinct values is tried, plus "all 1" and "all 0"; the
    threshold returned is the midpoint of the best cut (the lowest such cut on ties).
    """
    v = np.asarray(values, dtype=float)
    y = np.asarray(labels, dtype=float)
    order = np.argsort(v, kind="stable")
    v, y = v[order], y[order]
    n = len(v)
    # Predicting 0 for the first k rows (sorted by value) and 1 for the rest:
    # correct = zeros among the first k + ones among the rest.
    zeros_prefix = np.concatenate([[0], np.cumsum(y == 0)])
    ones_suffix = np.concatenate([np.cumsum((y == 1)[::-1])[::-1], [0]])
    correct = zeros_prefix + ones_suffix  # index k = cut after k rows
    # A cut is only possible between distinct values (or at the ends).
    valid = np.ones(n + 1, dtype=bool)
    valid[1:n] = v[1:] > v[:-1]
    correct = np.where(valid, correct, -1)
    k = int(np.argmax(correct))
    if k == 0:
        threshold = v[0] - 1.0
    elif k == n:
        threshold = v[-1]
    else:
        threshold = (v[k - 1] + v[k]) / 2
    return float(correct[k] / n), float(threshold)


def _is_binary(labels: np.ndarray) -> bool:
    return set(np.unique(labels).tolist()) <= {0.0, 1.0} and len(np.unique(labels)) == 2


#: Names of Tevet & Berant's human line; skipped (not an error) on files without human scores.
HUMAN_NAMES = ("human", "absHDS", "abs_hds", "abs_hds_mean", HUMAN)


def resolve_metric(name: str, records: Sequence[dict]) -> tuple[str, str | None]:
    """('column', column name), ('registry', None) or ('absent', None) for the human line."""
    fields = records[0].keys() if records else []
    if name in fields and (name.startswith("metric_") or name == LABEL):
        return "column", name
    if f"metric_{name}" in fields:
        return "column", f"metric_{name}"
    if name in HUMAN_NAMES:
        return ("column", HUMAN) if HUMAN in fields else ("absent", None)
    return "registry", None


def tevet_test(
    data: Any,
    metrics: Sequence[str],
    tokenizer: str = TEVET_TOKENIZER,
    lowercase: bool = False,
    n_resamples: int | None = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    fraction: float = 0.5,
    replace: bool = True,
    seed: int | None = 0,
    decimals: int | None = None,
    progress: bool = False,
    models: ModelSettings | None = None,
    **options: Any,
) -> list[TevetRow]:
    """Run the tests for each metric on one Tevet & Berant CSV (a path or ``InputData``).

    tokenizer: for registry metrics; ``tevet`` reproduces the authors' distinct-n and cos-sim.
    fraction/replace: the bootstrap (default: the NLI Diversity paper's half-sample variant).
    decimals: round computed per-row values before correlating, as the authors' published
        ``metric_*`` columns are (3 decimals); None (default) keeps full precision. Rounding makes
        ties, which moves Spearman in the third decimal.
    models: the model settings the caller resolved (None: resolved from ``options``).
    options: passed to registry metrics (vocab, nli_model, embedding_model, ...).
    """
    inp, labels, human = _read_tevet_file(data, metrics)
    boot: dict[str, Any] = dict(
        n_resamples=n_resamples,
        confidence=confidence,
        fraction=fraction,
        replace=replace,
        seed=seed,
    )
    resolved = [(m, *resolve_metric(m, inp.records)) for m in metrics]
    registry_names = [m for m, kind, _ in resolved if kind == "registry"]
    computed: dict[str, Any] = {}
    if registry_names:
        computed = score(
            inp.items,
            registry_names,
            tokenizer=tokenizer,
            lowercase=lowercase,
            progress=progress,
            models=models,
            **options,
        )
    binary = _is_binary(labels[np.isfinite(labels)])
    rows: list[TevetRow] = []
    for name, kind, column in resolved:
        if kind == "absent":
            continue
        if kind == "column":
            assert column is not None
            values = as_numbers(inp.column(column), column)
            # the authors' columns: higher = more diverse
            source, signature, direction = f"column:{column}", None, "higher"
        else:
            values, signature = _registry_values(computed[name], decimals)
            source, direction = "registry", get_metric(name).direction
        param = correlate(
            values, labels, ("spearman", "pearson"), x_name=name, y_name=LABEL, **boot
        )
        hum = None
        if human is not None and column != HUMAN:
            hum = correlate(
                values, human, ("spearman", "pearson"), x_name=name, y_name=HUMAN, **boot
            )
        acc = _accuracy(values, labels, direction, boot) if binary else None
        rows.append(
            TevetRow(
                name, source, int(np.isfinite(values).sum()), param, hum, acc, signature, values
            )
        )
    return rows


def read_tevet_csv(data: Any) -> InputData:
    """A Tevet & Berant CSV (a path or ``InputData``), checked: response sets and the diversity
    parameter's column."""
    inp = data if isinstance(data, InputData) else read_input(str(data), "csv")
    if inp.setting != "sets":
        raise InputError("a Tevet & Berant file needs resp_0..resp_k columns", inp.path)
    if not inp.records or LABEL not in inp.records[0]:
        raise InputError(f"no {LABEL!r} column (the diversity parameter)", inp.path)
    return inp


def _read_tevet_file(
    data: Any, metrics: Sequence[str]
) -> tuple[InputData, np.ndarray, np.ndarray | None]:
    """(the input, its diversity parameter, its human scores where it has them), checked."""
    inp = read_tevet_csv(data)
    if not metrics:
        raise InputError("name at least one metric (--metric NAME)")
    labels = as_numbers(inp.column(LABEL), LABEL)
    human = as_numbers(inp.column(HUMAN), HUMAN) if HUMAN in inp.records[0] else None
    return inp, labels, human


def _registry_values(s: Any, decimals: int | None) -> tuple[np.ndarray, str]:
    """(per-row values, signature) of a computed registry score, rounded where asked."""
    values = np.asarray(s.items, dtype=float)
    if decimals is None:
        return values, s.signature
    return np.round(values, decimals), s.signature + f" (rounded to {decimals} decimals)"


def _accuracy(
    values: np.ndarray, labels: np.ndarray, direction: str, boot: dict[str, Any]
) -> Accuracy:
    """The best single-threshold accuracy of the metric on the binary label (the OCA), with its
    bootstrap interval where resamples are asked for."""
    keep = np.isfinite(values) & np.isfinite(labels)
    sign = -1.0 if direction == "lower" else 1.0
    oriented = sign * values[keep]  # higher = more diverse, whatever the metric
    a, t = best_threshold_accuracy(oriented, labels[keep])
    interval = None
    if boot["n_resamples"]:
        interval = bootstrap(
            lambda v, y, t=t: float(np.mean((v > t) == (y == 1))),
            oriented,
            labels[keep],
            **boot,
        )
    return Accuracy(a, sign * t, interval, direction)
