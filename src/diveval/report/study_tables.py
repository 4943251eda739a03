"""The printed tables of the meta-evaluation studies: ``diveval meta tevet`` (Tevet & Berant's
tests), ``diveval meta agreement``, ``diveval correlate`` and ``diveval length-bias`` (their
--json is the results' ``to_dict``, correlate's ``correlations_to_dict``)."""

from __future__ import annotations

import os
from typing import Any, Sequence

from .tables import counted, render_table


def tevet_table(results: Any) -> str:
    """One table per file, like the NLI Diversity paper's Table 2: a row per metric, the
    correlation with the diversity parameter (and humans) with its 95% interval."""
    blocks = []
    note = None
    for path, rows in results.items():
        has_human = any(r.human is not None for r in rows)
        has_acc = any(r.accuracy is not None for r in rows)
        cols = ["metric", "n", "Spearman ρ (param)", "Pearson r (param)"]
        if has_human:
            cols += ["Spearman ρ (human)", "Pearson r (human)"]
        if has_acc:
            cols += ["accuracy"]
        table = []
        for r in rows:
            cells = [r.metric, r.n, _cell(r.parameter["spearman"]), _cell(r.parameter["pearson"])]
            if has_human:
                cells += [
                    _cell(r.human["spearman"]) if r.human else "-",
                    _cell(r.human["pearson"]) if r.human else "-",
                ]
            if has_acc:
                a = r.accuracy
                cells.append("-" if a is None else _interval_text(a.value, a.interval))
            table.append(cells)
            iv = r.parameter["spearman"].interval
            if iv is not None:
                note = iv.describe()
        blocks.append(render_table(os.path.basename(path), cols, table))
        if note:
            blocks.append(f"intervals: {note}")
            note = None
        sigs = [f"  {r.metric}: {r.signature}" for r in rows if r.signature]
        if sigs:
            blocks.append("signatures:\n" + "\n".join(sigs))
    return "\n".join(blocks)


def agreement_table(results: Any) -> str:
    """One table per file: metric, family, rho [interval], OCA [interval], rank; best first."""
    blocks = []
    for res in results:
        cols = ["metric", "family", "n", "Spearman ρ [95%]"]
        if res.binary:
            cols.append("OCA [95%]")
        cols.append("rank")
        order = sorted(
            res.rows,
            key=lambda r: (r.spearman is None, -(r.spearman or 0.0), r.metric),
        )
        table = []
        for r in order:
            if r.error:
                cells = [r.metric, r.family, r.n or "-", f"failed: {r.error}"]
                if res.binary:
                    cells.append("-")
                cells.append("-")
            else:
                cells = [r.metric, r.family, r.n, _interval_text(r.spearman, r.spearman_interval)]
                if res.binary:
                    cells.append(_interval_text(r.oca, r.oca_interval))
                cells.append("-" if r.rank is None else r.rank)
            table.append(cells)
        blocks.append(render_table(os.path.basename(res.file), cols, table))
        if res.bootstrap:
            blocks.append(
                f"intervals: {res.bootstrap}; rank = 1 + metrics with a higher rho by the "
                "paired bootstrap of the difference"
            )
    return "\n".join(blocks)


def correlation_table(result: Any, title: str, human: str, methods: Sequence[str]) -> str:
    """``diveval correlate``'s tables, one per group: a row per metric, each method's coefficient
    with its p-value and bootstrap interval (``meta.studies.correlate.correlate_columns``)."""
    blocks = []
    interval_note = None
    for group, per_metric in result.items():
        head = f"{title}: correlation with {human!r}" + (f" ({group})" if group is not None else "")
        columns = ["metric", "n"] + [m.capitalize() for m in methods]
        table_rows = []
        for metric, by_method in per_metric.items():
            cells = [metric, next(iter(by_method.values())).n]
            for m in methods:
                c = by_method[m]
                cell = f"{c.value:.2f} ({_p_text(c.p_value, c.p_method)})"
                if c.interval is not None:
                    cell += f" [{_nan_or_2f(c.interval.low)}, {_nan_or_2f(c.interval.high)}]"
                    interval_note = c.interval.describe()
                cells.append(cell)
            table_rows.append(cells)
        blocks.append(render_table(head, columns, table_rows))
    if interval_note:
        blocks.append(f"intervals: {interval_note}")
    return "\n".join(blocks)


def length_bias_table(runs: Sequence[Any]) -> str:
    """``diveval length-bias``'s tables, per run (``meta.studies.length_bias.LengthBias``):
    each metric's mean and sd per length, its slope against length, and what the pool lacked."""
    blocks = []
    for r in runs:
        metrics = list(r.scores)
        cols = ["length"] + (["pool"] if r.pool else []) + metrics
        rows = [
            [L]
            + ([r.pool[L]] if r.pool else [])
            + [f"{r.means(m)[i]:.4f} ± {r.scores[m][i].std():.4f}" for m in metrics]
            for i, L in enumerate(r.lengths)
        ]
        title = (
            f"{r.source}: mean ± sd over {counted(r.n_sets, 'set')} of "
            f"{counted(r.n_responses, 'response')}"
        )
        blocks.append(render_table(title, cols, rows))
        trend_rows = []
        for m in metrics:
            t = r.trends[m]
            trend_rows.append(
                [
                    m,
                    f"{t.slope:+.5f} [{t.low:+.5f}, {t.high:+.5f}]",
                    f"{t.first:.4f} -> {t.last:.4f}",
                    f"{t.relative_change:+.1%}",
                ]
            )
        blocks.append(
            render_table(
                f"{r.source}: slope per token (OLS, 95% t interval)",
                ["metric", "slope [95% CI]", f"L={r.lengths[0]} -> L={r.lengths[-1]}", "change"],
                trend_rows,
            )
        )
        small = [L for L in r.lengths if r.pool and r.pool[L] < r.n_responses]
        if small:
            blocks.append(
                f"lengths whose pool is smaller than {r.n_responses} (draws repeat responses, "
                "which lowers both metrics): " + ", ".join(map(str, small))
            )
        if r.missing:
            blocks.append(
                "lengths skipped, too few responses in the corpus: "
                + ", ".join(f"{L} ({r.pool.get(L, 0)})" for L in r.missing)
            )
        sigs = "\n".join(f"  {m}: {s}" for m, s in r.signatures.items())
        blocks.append("signatures:\n" + sigs)
    return "\n".join(blocks)


def _p_text(p: float, how: str) -> str:
    """``p=0.33 exact`` for an exact permutation p-value; a p that underflowed to 0 (only past
    170 pairs, see ``meta.studies.correlate``) as ``p<1e-300``, never ``p=0``."""
    if p != p:
        return "p=nan"
    text = "p<1e-300" if p == 0 else f"p={p:.2g}"
    return f"{text} exact" if how == "exact" else text


def _nan_or_2f(v: float) -> str:
    """An interval bound to 2 decimals; a bound the bootstrap could not compute says nan."""
    return "nan" if v != v else f"{v:.2f}"


def _cell(c) -> str:
    return _interval_text(c.value, c.interval)


def _interval_text(value, interval) -> str:
    if interval is None:
        return f"{value:.2f}"
    if not interval.ok:
        return f"{value:.2f} [n/a]"
    return f"{value:.2f} [{interval.low:.2f}, {interval.high:.2f}]"
