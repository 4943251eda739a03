"""What the HTML report adds to the files the commands wrote, and the page built from them.

``report.inputs`` recognises each input by its content and ``report.html`` draws the page; the
figures that need the metric layer and the statistics are made here: each metric's direction
from the registry, bootstrap intervals of per-set means, Spearman between metrics over the sets,
and each metric's correlation with the human score.
"""

from __future__ import annotations

import datetime
import math
from typing import Any, Sequence

import numpy as np
from scipy import stats

from ..._version import __version__
from ...constants import DEFAULT_RESAMPLES, DEFAULT_SEED
from ...errors import InputError
from ...io.writers import write_atomic
from ...registry import all_metrics
from ...report.html import Report, Scatter, render, sample_points
from ...report.inputs import Collected, collect
from ..statistics.bootstrap import bootstrap
from .correlate import correlate

MAX_SCATTER_POINTS = 2000  # points drawn per chart; the correlation uses every point


def write_report(report, path: str) -> int:
    """Write the page of ``report`` at ``path`` at once (no half-written page); its size in bytes."""
    text = render(report)
    write_atomic(path, text)
    return len(text.encode("utf-8"))


def metric_directions() -> dict[str, str]:
    """Which way each registered metric is more diverse (or closer to its references)."""
    return {name: m.direction for name, m in all_metrics().items() if m.direction}


def build_report(
    paths: Sequence[str],
    human: str = "human",
    sets_metric: str | None = None,
    shown: int = 5,
    title: str | None = None,
    command: str = "",
    runs: Sequence[dict[str, Any]] = (),
    records: Sequence[dict[str, Any]] = (),
    sources: Sequence[str] = (),
):
    """The Report of ``paths``, and of ``runs`` (score JSON dicts already in memory) with the
    ``records`` they scored (their ``_line`` kept) read from ``sources`` (hashed for provenance)."""
    if shown < 1:
        raise InputError("--show must be at least 1")
    directions = metric_directions()
    collected: Collected = collect(
        paths, directions, human=human, runs=runs, records=records, sources=sources
    )
    metrics_with_sets = _set_metrics(collected)
    if sets_metric is not None and sets_metric not in metrics_with_sets:
        raise InputError(
            f"--sets-metric {sets_metric!r} has no per-set values in the inputs"
            + (f"; these have: {', '.join(metrics_with_sets)}" if metrics_with_sets else "")
        )
    report = Report(
        collected,
        version=__version__,
        created=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        title=title or "diveval report",
        directions=directions,
        sets_metric=sets_metric or (metrics_with_sets[0] if metrics_with_sets else None),
        shown=shown,
        command=command,
    )
    report.intervals = _intervals(collected)
    report.agreement = _agreement(collected, metrics_with_sets)
    report.scatters = _scatters(collected)
    return report


def _set_metrics(c) -> list[str]:
    out: list[str] = []
    for rows in c.sets.values():
        for row in rows:
            out += [m for m in row.values if m not in out]
    return out


def _intervals(c) -> dict[tuple[str, str], tuple[float, float]]:
    """Bootstrap interval of each system's metric where it is the mean of per-set values (the
    sets setting); a pooled corpus value is not a mean of its items, so it gets none."""
    out = {}
    for system, rows in c.sets.items():
        for metric, value in c.systems.get(system, {}).items():
            items = np.array([r.values.get(metric, math.nan) for r in rows], dtype=float)
            items = items[np.isfinite(items)]
            if len(items) < 2 or value.interval is not None:
                continue
            if not math.isclose(float(items.mean()), value.value, rel_tol=1e-6, abs_tol=1e-9):
                continue
            iv = bootstrap(
                lambda a: a.mean(axis=1),
                items,
                n_resamples=DEFAULT_RESAMPLES,
                seed=DEFAULT_SEED,
                vectorized=True,
            )
            if iv.ok:
                out[(system, metric)] = (iv.low, iv.high)
    return out


def _agreement(c, metrics: list[str]):
    """Spearman between every pair of metrics over the sets of every system."""
    rows = [r for rs in c.sets.values() for r in rs]
    if len(metrics) < 2 or len(rows) < 3:
        return None
    table = np.array([[r.values.get(m, math.nan) for m in metrics] for r in rows], dtype=float)
    keep = [j for j in range(len(metrics)) if np.nanstd(table[:, j]) > 0]
    if len(keep) < 2:
        return None
    labels = [metrics[j] for j in keep]
    table = table[:, keep]
    n = len(labels)
    matrix = [[1.0 if i == j else math.nan for j in range(n)] for i in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            ok = np.isfinite(table[:, i]) & np.isfinite(table[:, j])
            if ok.sum() >= 3:
                rho = float(stats.spearmanr(table[ok, i], table[ok, j])[0])
                matrix[i][j] = matrix[j][i] = rho
    return labels, matrix, len(rows)


def _scatters(c) -> list:
    """Metric against human score per system and per set, Pearson with its interval."""
    systems = list(c.systems) or []
    out = []
    for level, rows in (("system", c.human_systems), ("set", c.human_sets)):
        if not rows:
            continue
        for r in rows:
            if r["system"] not in systems:
                systems.append(r["system"])
        metrics: list[str] = []
        for r in rows:
            metrics += [k for k in r if k not in ("system", "human", "source") and k not in metrics]
        for m in metrics:
            pairs = [
                (r[m], r["human"], systems.index(r["system"]))
                for r in rows
                if isinstance(r.get(m), float)
                and isinstance(r.get("human"), float)
                and math.isfinite(r[m])
            ]
            if not pairs:
                continue
            xs, ys, gs = zip(*pairs)
            s = Scatter(m, level, sample_points(xs, ys, gs, MAX_SCATTER_POINTS), len(pairs))
            if len(pairs) > MAX_SCATTER_POINTS:
                s.note = f"{MAX_SCATTER_POINTS} of {len(pairs)} points drawn"
            # why a chart has no coefficient, in words that do not repeat its title
            if len(pairs) < 3:
                s.note = "no correlation with fewer than 3 points"
            elif len(set(xs)) == 1 or len(set(ys)) == 1:
                which = f"every {m}" if len(set(xs)) == 1 else "every human score"
                s.note = f"no correlation: {which} is the same"
            if s.note.startswith("no correlation"):
                out.append(s)
                continue
            try:
                res = correlate(
                    xs,
                    ys,
                    ("pearson", "spearman"),
                    n_resamples=DEFAULT_RESAMPLES,
                    seed=DEFAULT_SEED,
                    x_name=m,
                    y_name=c.human,
                )
            except InputError as exc:  # fewer than 3 points, or a constant column
                s.note = exc.problem
            else:
                p = res["pearson"]
                s.pearson, s.spearman = p.value, res["spearman"].value
                if p.interval is not None and p.interval.ok:
                    s.low, s.high = p.interval.low, p.interval.high
            out.append(s)
    return out
