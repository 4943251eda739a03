"""Which metric agrees with people: Tevet & Berant's (2021) test run for every metric at once.

Input: their CSV format (``meta.studies.tevet``): a response set per row in ``resp_0..resp_k`` and
the diversity parameter ``label_value`` (conTest: 0/1, sets written with low or high *content*
diversity; decTest: the sampling temperature, *form* diversity), with the authors' own ``metric_*``
columns (their metrics' per-set values and, where collected, the human score
``metric_abs_hds_mean``).

For every metric (a registered one, computed on each row's set, or a ``metric_*`` column):

- **Spearman's rho** with the label;
- **OCA** (optimal classification accuracy) for a binary label: the best accuracy any single
  threshold on the metric achieves, "diverse iff the metric is on its diverse side of t". The side
  is the metric's registered ``direction`` (Self-BLEU: lower is more diverse); the authors'
  columns are diversities (higher is more diverse). The authors' code also tries the opposite side
  of every threshold, as a metric whose direction is unknown needs; diveval knows each direction,
  so a metric that runs the wrong way scores below 0.5 instead of being flipped into a good one;
- a seeded **percentile bootstrap** interval of each, over sets: ``n_resamples`` resamples of the
  rows with replacement, the same row indices for every metric of a file. The OCA's interval is
  that of the rule fitted on all rows, evaluated on each resample (as ``meta.studies.tevet`` does:
  refitting the threshold on every resample measures an optimistically biased statistic);
- **which metric beats which**: the paired bootstrap of the difference in rho between two metrics
  (Koehn 2004): because every metric is resampled with the same indices, the difference's resampled
  values are the differences of the two metrics' resampled rhos. "A beats B" is said only when the
  interval of rho_A - rho_B lies above 0. A metric's ``rank`` is 1 + the number of metrics that beat
  it, so metrics that cannot be told apart share a rank.

A metric that fails on a file (a missing optional package, a model that cannot load offline) gets
a row that says why (``error``), never no row.
"""

from __future__ import annotations

import importlib
import math
import time
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ... import catalog
from ...context import RunContext
from ...errors import InputError
from ...io.readers import InputData
from ...models.devices import ModelSettings, resolve_settings
from ...progress import track
from ...registry import all_metrics, check_options, get_metric
from ...scale.local import score_metric
from ..defaults import TEVET_TOKENIZER
from ..statistics.bootstrap import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, Interval
from ..statistics.resampling import finite_percentile_interval, resample_indices
from .correlate import as_numbers, coefficient_rows
from .tevet import HUMAN, LABEL, best_threshold_accuracy, read_tevet_csv, resolve_metric

#: The family of the authors' own per-set columns, and of the human score.
AUTHORS = "Tevet & Berant's columns"
PEOPLE = "people (absHDS)"
#: Options every registered metric is run with, unless the caller says otherwise: Tevet & Berant's
#: tokenizer, with which their distinct-n and cosine columns are reproduced (``meta tevet``).
DEFAULT_TOKENIZER = TEVET_TOKENIZER
#: Inputs a metric needs beyond the sets themselves; such a metric does not apply to these files.
_EXTRA_INPUTS = ("references", "reference_groups")


@dataclass(frozen=True)
class Difference:
    """rho(a) - rho(b) on one file, with its paired bootstrap interval and two-sided p-value."""

    a: str
    b: str
    value: float
    interval: Interval | None
    p_value: float | None  # 2 x the share of resampled differences on the other side of 0

    @property
    def a_beats_b(self) -> bool:
        return self.interval is not None and self.interval.ok and self.interval.low > 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "difference": self.value,
            "interval": None if self.interval is None else self.interval.to_dict(),
            "p_value": self.p_value,
            "a_beats_b": self.a_beats_b,
        }


#: The keys of a row's dict, in the order of the JSON output (its numbers made JSON-safe).
_ROW_KEYS = (
    "file",
    "metric",
    "family",
    "source",
    "direction",
    "spearman",
    "spearman_interval",
    "oca",
    "oca_interval",
    "threshold",
    "n",
    "signature",
    "rank",
    "beats",
    "error",
    "seconds",
)


@dataclass(frozen=True)
class AgreementRow:
    """One metric on one file."""

    file: str
    metric: str
    family: str
    source: str  # "registry" or "column:<name>"
    direction: str  # which side of the threshold is "diverse"
    n: int = 0
    spearman: float | None = None
    spearman_interval: Interval | None = None
    oca: float | None = None
    oca_interval: Interval | None = None
    threshold: float | None = None
    signature: str | None = None
    error: str | None = None
    rank: int | None = None
    beats: tuple[str, ...] = ()
    seconds: float | None = None  # time to compute the metric on this file
    # the resampled rhos (same indices for every row of the file): paired comparisons read them
    boot: np.ndarray | None = field(default=None, repr=False, compare=False)
    values: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.error is None and self.spearman is not None

    def to_dict(self, with_values: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {k: getattr(self, k) for k in _ROW_KEYS}
        for k in ("spearman", "oca", "threshold"):
            out[k] = _num(out[k])
        for k in ("spearman_interval", "oca_interval"):
            out[k] = _pair(out[k])
        out["beats"] = list(self.beats)
        if with_values and self.values is not None:
            out["values"] = [_num(v) for v in self.values.tolist()]
        return out


@dataclass(frozen=True)
class Agreement:
    """The rows of one file, with the bootstrap they share."""

    file: str
    n: int  # sets
    binary: bool  # conTest-like 0/1 label: OCA is defined
    rows: list[AgreementRow]
    bootstrap: str  # how the intervals were drawn (Interval.describe), "" when not drawn
    confidence: float = DEFAULT_CONFIDENCE

    def row(self, metric: str) -> AgreementRow:
        for r in self.rows:
            if r.metric == metric:
                return r
        raise InputError(f"no metric {metric!r} in the agreement of {self.file}")

    def compare(self, a: str, b: str) -> Difference:
        """rho(a) - rho(b) with the paired bootstrap interval (same resampled sets for both)."""
        return difference(self.row(a), self.row(b), self.confidence)

    def to_dict(self, with_values: bool = False) -> dict[str, Any]:
        return {
            "file": self.file,
            "n": self.n,
            "binary": self.binary,
            "bootstrap": self.bootstrap,
            "rows": [r.to_dict(with_values) for r in self.rows],
        }


def _num(v: Any) -> float | None:
    return float(v) if v is not None and math.isfinite(v) else None


def _pair(iv: Interval | None) -> list[float | None] | None:
    return None if iv is None else [_num(iv.low), _num(iv.high)]


# ------------------------------------------------------------------ the statistics


def oca(values: Sequence[float], labels: Sequence[float], direction: str = "higher"):
    """(accuracy, threshold) of the best single threshold on ``values`` for a 0/1 label, 1 (more
    diverse) predicted on the metric's diverse side: above t for ``direction="higher"``, below t
    for ``"lower"``. Every cut between two distinct values is tried, and "all 0" / "all 1".

    >>> oca([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1])
    (1.0, 0.25)
    >>> oca([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1], "lower")[0]
    0.5
    """
    if direction not in ("higher", "lower"):
        raise InputError(f"direction must be 'higher' or 'lower', got {direction!r}")
    sign = -1.0 if direction == "lower" else 1.0
    v = sign * np.asarray(values, dtype=float)
    y = np.asarray(labels, dtype=float)
    if len(v) != len(y):
        raise InputError(f"{len(v)} values but {len(y)} labels")
    if not set(np.unique(y).tolist()) <= {0.0, 1.0}:
        raise InputError("OCA needs a 0/1 label")
    accuracy, t = best_threshold_accuracy(v.tolist(), y.tolist())
    return accuracy, sign * t


def _spearman_rows(values: np.ndarray, labels: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Spearman of each resample (rows of ``idx``); rows with a missing value are left out of the
    resample they fall in (a metric undefined on a set)."""
    finite = np.isfinite(values)
    if finite.all():
        return coefficient_rows(values[idx], labels[idx], "spearman")
    out = np.full(len(idx), np.nan)
    for r, row in enumerate(idx):
        keep = row[finite[row]]
        if len(keep) >= 3:
            out[r] = coefficient_rows(values[keep][None, :], labels[keep][None, :], "spearman")[0]
    return out


def _interval(stats: np.ndarray, confidence: float, like: Interval) -> Interval:
    low, high, dropped = finite_percentile_interval(stats, confidence)
    return replace(like, low=low, high=high, dropped=dropped)


def difference(a: AgreementRow, b: AgreementRow, confidence: float = DEFAULT_CONFIDENCE):
    """rho(a) - rho(b): the paired bootstrap over sets (both rows' resamples share indices)."""
    if not (a.ok and b.ok):
        bad = a if not a.ok else b
        raise InputError(f"{bad.metric!r} has no correlation on {bad.file}: {bad.error}")
    value = float(a.spearman) - float(b.spearman)  # type: ignore[arg-type]
    if a.boot is None or b.boot is None or a.spearman_interval is None:
        return Difference(a.metric, b.metric, value, None, None)
    diffs = a.boot - b.boot
    interval = _interval(diffs, confidence, a.spearman_interval)
    finite = diffs[np.isfinite(diffs)]
    p = None
    if len(finite):
        # two-sided: twice the share of resamples on the far side of 0 (ties count half)
        below = (np.sum(finite < 0) + 0.5 * np.sum(finite == 0)) / len(finite)
        p = float(min(1.0, 2 * min(below, 1 - below)))
    return Difference(a.metric, b.metric, value, interval, p)


# ------------------------------------------------------------------ metrics and families


@lru_cache(maxsize=1)
def _families() -> dict[str, str]:
    """{metric: the title of its group in the family tables (as the documentation lists it)}."""
    all_metrics()
    out: dict[str, str] = {}
    for module_name in catalog.METRIC_MODULES:
        module = importlib.import_module(module_name)
        tables = getattr(module, "TABLES", None) or {
            module_name.split(".")[-2].title(): getattr(module, "TABLE", [])
        }
        for title, rows in tables.items():
            for m in rows:
                out.setdefault(m.name, title)
    return out


def family_of(metric: str) -> str:
    return _families().get(variant_base(metric), "Other")


#: Rows of a metric under a non-default option, measured beside its default row: the meaning
#: measures under the other shipped judge (the answers judge is equivalence-classes' default,
#: NLI semantic entropy's), so the page shows what the judge changes.
VARIANTS = ("equivalence-classes:judge=nli", "semantic-entropy:judge=answers")


def split_variant(name: str) -> tuple[str, dict[str, str]]:
    """("semantic-entropy", {"judge": "answers"}) from "semantic-entropy:judge=answers": a row
    name is a registered metric, optionally followed by ``:key=value[,key=value]`` options that
    row alone is scored with. A value may hold ":" (``judge=answers:0.6``)."""
    base, sep, rest = name.partition(":")
    if not sep:
        return name, {}
    options: dict[str, str] = {}
    for part in rest.split(","):
        key, eq, value = part.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise InputError(f"{name!r}: options after ':' are key=value pairs, got {part!r}")
        options[key.strip()] = value.strip()
    return base, options


def variant_base(name: str) -> str:
    """The registered metric a row name measures."""
    return name.partition(":")[0]


def applicable_metrics() -> list[str]:
    """Registered metrics that apply to response sets with nothing else given (no references,
    no human texts), and their :data:`VARIANTS`: the default of ``meta agreement``."""
    names = [
        name
        for name, m in all_metrics().items()
        if m.supports("sets") and not set(m.options) & set(_EXTRA_INPUTS)
    ]
    return names + [v for v in VARIANTS if variant_base(v) in names]


def author_columns(records: Sequence[dict]) -> list[str]:
    """The file's ``metric_*`` columns that are per-set values (not their ``_std`` spreads)."""
    if not records:
        return []
    return [
        k for k in records[0] if k.startswith("metric_") and not k.endswith("_std") and k != LABEL
    ]


# ------------------------------------------------------------------ one file


def _read(data: Any) -> tuple[InputData, np.ndarray]:
    inp = read_tevet_csv(data)
    for i, s in enumerate(inp.items):
        if len(s) < 2:
            line = inp.line_of(i)
            where = f"row {line}" if line is not None else f"set {i}"
            raise InputError(
                f"{where} has {len(s)} response(s); agreement needs sets of at least 2", inp.path
            )
    labels = as_numbers(inp.column(LABEL), LABEL)
    if not np.isfinite(labels).all():
        raise InputError(f"{LABEL!r} has missing values", inp.path)
    if len(np.unique(labels)) < 2:
        raise InputError(
            f"{LABEL!r} has one value ({labels[0]:g}): nothing to agree with", inp.path
        )
    return inp, labels


def agreement(
    data: Any,
    metrics: Sequence[str] | None = None,
    *,
    columns: bool = True,
    n_resamples: int | None = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int | None = 0,
    tokenizer: str = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    progress: bool = False,
    context: Any = None,
    models: ModelSettings | None = None,
    **options: Any,
) -> Agreement:
    """Spearman, OCA, intervals and ranks of ``metrics`` on one Tevet & Berant CSV.

    metrics: registered names and/or the file's ``metric_*`` columns (with or without the prefix;
        ``human`` for ``metric_abs_hds_mean``); None: every registered metric that applies to sets
        (:func:`applicable_metrics`) and, with ``columns``, every ``metric_*`` column.
    n_resamples: bootstrap resamples of the sets (None or 0: no intervals, no ranks).
    context: a ``RunContext`` to share tokenized sets between calls (each file makes its own
        otherwise); model scores are shared through the process-wide score caches anyway.
    models: the model settings the caller resolved (None: the context's, or resolved from
        ``options``).
    options: passed to the registered metrics (nli_model, embedding_model, cache_dir, ...).
    """
    inp, labels = _read(data)
    chosen = _chosen(inp, metrics, columns)
    binary = set(np.unique(labels).tolist()) <= {0.0, 1.0}
    n = len(inp.items)
    idx = resample_indices(n, n_resamples, 1.0, True, seed) if n_resamples else None
    template = (
        Interval(math.nan, math.nan, confidence, int(n_resamples), n, True, seed)
        if n_resamples
        else None
    )
    ctx = context
    if ctx is None:  # a context given carries its run's settings: nothing to resolve again
        ctx = RunContext(progress, models if models is not None else resolve_settings(options))
    run_options = {"tokenizer": tokenizer, "lowercase": lowercase, **options}
    for name, kind, _ in chosen:
        if kind == "registry":
            metric, own = split_variant(name)
            check_options({**run_options, **own}, [get_metric(metric)])
    rows: list[AgreementRow] = []
    for name, kind, column in track(
        chosen, f"agreement: {len(chosen)} metrics", total=len(chosen), enabled=progress or False
    ):
        if kind == "column":
            assert column is not None
            base, values, signature = _column_values(inp, name, column)
        else:
            base, values, signature = _metric_values(inp, name, ctx, run_options)
        if values is None:
            rows.append(base)
            continue
        rows.append(_row(base, values, labels, binary, idx, template, confidence, signature))
    rows = ranked(rows, confidence)
    how = "" if template is None else template.describe()
    return Agreement(inp.path, n, binary, rows, how, confidence)


def _chosen(
    inp: InputData, metrics: Sequence[str] | None, columns: bool
) -> list[tuple[str, str, str | None]]:
    """(name, "registry" or "column", the column) of each metric to measure: ``metrics``, or
    every applicable registered metric and (with ``columns``) the authors' columns."""
    if metrics is None:
        chosen: list[tuple[str, str, str | None]] = [
            (m, "registry", None) for m in applicable_metrics()
        ]
        if columns:
            chosen += [(c[len("metric_") :], "column", c) for c in author_columns(inp.records)]
        return chosen
    if not metrics:
        raise InputError("name at least one metric (-m NAME)")
    chosen = []
    for name in metrics:
        kind, column = resolve_metric(name, inp.records)
        if kind == "absent":
            raise InputError(f"{name!r}: this file has no human scores ({HUMAN})", inp.path)
        if kind == "registry":
            get_metric(split_variant(name)[0])  # an unknown name: the caller's error, not a row's
        chosen.append((name, kind, column))
    return chosen


def _column_values(
    inp: InputData, name: str, column: str
) -> tuple[AgreementRow, np.ndarray | None, str]:
    """(the row so far, the per-set values or None where the column fails, the signature) of
    one of the file's columns."""
    family = PEOPLE if column == HUMAN else AUTHORS
    base = AgreementRow(inp.path, name, family, f"column:{column}", "higher")
    try:
        values = as_numbers(inp.column(column), column)
    except InputError as exc:
        return replace(base, error=exc.problem), None, ""
    return base, values, f"column:{column}"


def _metric_values(
    inp: InputData, name: str, ctx: RunContext, run_options: dict[str, Any]
) -> tuple[AgreementRow, np.ndarray | None, str]:
    """(the row so far, the per-set values or None where the metric fails, the signature) of a
    registered metric (or a variant of one: :func:`split_variant`), timed; any failure is the
    row's error, and the other metrics go on."""
    metric, own = split_variant(name)
    m = get_metric(metric)
    base = AgreementRow(inp.path, name, family_of(name), "registry", m.direction)
    n = len(inp.items)
    options = {**run_options, **own}
    t0 = time.perf_counter()
    try:
        s = score_metric(m, inp.items, options, ctx)
        values = np.asarray(s.items, dtype=float)
        if values.shape != (n,):
            raise InputError(f"gave {values.size} values for {n} sets")
    except Exception as exc:  # any failure: the metric's row says why, the others go on
        text = exc.problem if isinstance(exc, InputError) else f"{type(exc).__name__}: {exc}"
        return replace(base, error=text.splitlines()[0] if text else type(exc).__name__), None, ""
    return replace(base, seconds=time.perf_counter() - t0), values, s.signature


def _row(base, values, labels, binary, idx, template, confidence, signature) -> AgreementRow:
    keep = np.isfinite(values)
    if keep.sum() < 3:
        return replace(base, error=f"defined on {int(keep.sum())} of {len(values)} sets")
    v, y = values[keep], labels[keep]
    if np.ptp(v) == 0:
        return replace(base, n=int(keep.sum()), error=f"constant ({v[0]:g}) on every set")
    rho = float(coefficient_rows(v[None, :], y[None, :], "spearman")[0])
    accuracy = threshold = None
    if binary:
        accuracy, threshold = oca(v, y, base.direction)
    boot = rho_iv = oca_iv = None
    if idx is not None:
        boot = _spearman_rows(values, labels, idx)
        rho_iv = _interval(boot, confidence, template)
        if binary and threshold is not None:
            sign = -1.0 if base.direction == "lower" else 1.0
            diverse = sign * values > sign * threshold
            hits = np.where(keep[idx], diverse[idx] == (labels[idx] == 1), np.nan)
            oca_iv = _interval(np.nanmean(hits, axis=1), confidence, template)
    sig = f"{signature}|agreement:spearman" + ("+oca" if binary else "")
    if template is not None:
        sig += f"|boot:{template.n_resamples}|seed:{template.seed}|conf:{confidence:g}"
    return replace(
        base,
        n=int(keep.sum()),
        spearman=rho,
        spearman_interval=rho_iv,
        oca=accuracy,
        oca_interval=oca_iv,
        threshold=threshold,
        signature=sig,
        boot=boot,
        values=values,
    )


def ranked(rows: list[AgreementRow], confidence: float = DEFAULT_CONFIDENCE) -> list[AgreementRow]:
    """Each row's rank (1 + the metrics whose rho is significantly higher) and whom it beats."""
    ok = [r for r in rows if r.ok and r.boot is not None]
    if not ok:
        return rows
    beats: dict[str, list[str]] = {r.metric: [] for r in ok}
    beaten_by: dict[str, int] = {r.metric: 0 for r in ok}
    boots = np.stack([r.boot for r in ok])  # type: ignore[misc]
    alpha = (1 - confidence) / 2
    for i, a in enumerate(ok):
        diffs = boots[i][None, :] - boots  # rho_a - rho_b for every b, resample by resample
        for j, b in enumerate(ok):
            if i == j:
                continue
            d = diffs[j][np.isfinite(diffs[j])]
            if len(d) * 2 < len(diffs[j]):
                continue
            if np.quantile(d, alpha) > 0:
                beats[a.metric].append(b.metric)
                beaten_by[b.metric] += 1
    out = []
    for r in rows:
        if r.metric in beats:
            r = replace(r, rank=1 + beaten_by[r.metric], beats=tuple(beats[r.metric]))
        out.append(r)
    return out


# ------------------------------------------------------------------ the published leaderboard

#: Kinds of diversity and the test that measures each (Tevet & Berant 2021).
KINDS = {
    "form": "decTest: sets sampled at a known temperature",
    "content": "conTest: sets written with low or high content diversity",
}
#: The leaderboard ``benchmarks/agreement.py`` writes (numbers only, no data).
LEADERBOARD = Path(__file__).resolve().parent / "agreement.json"


def load_leaderboard(path: str | Path | None = None) -> dict:
    """The published leaderboard (``benchmarks/agreement.py``'s JSON)."""
    import json

    where = Path(path) if path is not None else LEADERBOARD
    if not where.exists():
        raise InputError(f"no agreement leaderboard at {where}; run benchmarks/agreement.py")
    with open(where, encoding="utf-8") as f:
        return json.load(f)


def _kind_files(board: dict, kind: str) -> list[dict]:
    if kind not in KINDS:
        raise InputError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if kind == "content":
        return [f for f in board["files"] if f["test"] == "conTest"]
    dec = [f for f in board["files"] if f["test"] == "decTest"]
    largest = max((f["sets"] for f in dec), default=0)
    return [f for f in dec if f["sets"] == largest]  # the 1,000-set files: tighter intervals


def recommend(board: dict, kind: str, top: int = 5) -> list[dict]:
    """The registered metrics with the highest mean rho over the tasks of ``kind``'s test, each
    with its evidence per task (rho, interval, OCA, rank among the registered metrics).

    ``supported``: the metric is not beaten by another registered metric (rank 1 among them, by
    the paired bootstrap) on most of the tasks.
    """
    files = _kind_files(board, kind)
    by_metric: dict[str, list[tuple[dict, dict]]] = {}
    for f in files:
        for r in f["rows"]:
            if r["source"] == "registry":
                by_metric.setdefault(r["metric"], []).append((f, r))
    out = []
    for name, pairs in by_metric.items():
        if len(pairs) < len(files) or any(r["spearman"] is None for _, r in pairs):
            continue  # failed somewhere: no recommendation on partial evidence
        rhos = [r["spearman"] for _, r in pairs]
        firsts = sum(1 for _, r in pairs if r.get("registry_rank") == 1)
        out.append(
            {
                "metric": name,
                "family": pairs[0][1]["family"],
                "kind": kind,
                "mean_spearman": float(np.mean(rhos)),
                "supported": firsts * 2 > len(pairs),
                "evidence": [
                    {
                        "task": f["task"],
                        "test": f"{f['test']}-{f['sets']}",
                        "spearman": r["spearman"],
                        "spearman_interval": r["spearman_interval"],
                        "oca": r["oca"],
                        "oca_interval": r["oca_interval"],
                        "registry_rank": r.get("registry_rank"),
                    }
                    for f, r in pairs
                ],
            }
        )
    out.sort(key=lambda d: (-d["mean_spearman"], d["metric"]))
    return out[:top]
