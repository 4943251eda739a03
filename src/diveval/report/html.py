"""`diveval report`'s page: one self-contained HTML file.

Nothing in it asks another host for anything: styles and a few lines of script are inline, charts
are inline SVG (``svg.py``), and there are no fonts, images or links to fetch. Each section is
written only when its data is there; every chart has a text alternative and its numbers in a
table. Sorting (buttons in the table headers) and search (a labelled input) work by keyboard.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from html import escape
from typing import Any, Iterable, Sequence

from ..constants import DEFAULT_CONFIDENCE
from ..io import json_out
from . import svg
from .inputs import Collected, SetRow
from .tables import counted

ARROWS = {"higher": "↑", "lower": "↓"}
MAX_RESPONSE_CHARS = 2000  # a shown response longer than this is cut (the file stays small)
MAX_INDEX_PROMPT = 160  # characters of each prompt in the search index of every set


@dataclass
class Scatter:
    """Metric against human scores, for one metric at one level (per system or per set)."""

    metric: str
    level: str  # "system" or "set"
    points: list[tuple[float, float, int]]
    n: int
    pearson: float | None = None
    low: float | None = None
    high: float | None = None
    spearman: float | None = None
    note: str = ""


@dataclass
class Report:
    collected: Collected
    version: str
    created: str
    title: str = "diveval report"
    directions: dict[str, str] = field(default_factory=dict)
    intervals: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)
    confidence: float = DEFAULT_CONFIDENCE
    agreement: tuple[list[str], list[list[float]], int] | None = None
    scatters: list[Scatter] = field(default_factory=list)
    sets_metric: str | None = None
    shown: int = 5  # sets shown at each end, per system
    command: str = ""


def _n(v: Any, digits: int = 4) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    if isinstance(v, int):
        return str(v)
    return f"{v:.{digits}f}"


def _ident(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-") or "x"


def _th_sort(label: str, scope: str = "col", extra: str = "") -> str:
    return (
        f'<th scope="{scope}" aria-sort="none"{extra}><button type="button" class="sort">'
        f'{label}<span class="sort-icon" aria-hidden="true"></span></button></th>'
    )


def _num_td(v: Any, text: str | None = None, cls: str = "num") -> str:
    key = "" if v is None or (isinstance(v, float) and not math.isfinite(v)) else repr(float(v))
    return f'<td class="{cls}" data-v="{key}">{text if text is not None else _n(v)}</td>'


# -- sections -------------------------------------------------------------------------------


def _head(corner: str, columns: Sequence[str]) -> str:
    """The header cells of a table with a column per name (escaped) after ``corner``."""
    return f'<th scope="col">{corner}</th>' + "".join(
        f'<th scope="col">{escape(c)}</th>' for c in columns
    )


def _row(label: str, cells: Iterable[str]) -> str:
    """A table row: ``label`` (HTML) heads it, then a number cell per text."""
    return (
        f'<tr><th scope="row">{label}</th>'
        + "".join(f'<td class="num">{c}</td>' for c in cells)
        + "</tr>"
    )


def _across_part(r: Report) -> str:
    """`score --across`: how alike the systems' answers are (beta) and the similarity heatmap."""
    parts = []
    for k, x in enumerate(r.collected.across):
        names = [str(s) for s in x["systems"]]
        rows = "".join(
            f'<tr><th scope="row">{escape(m)}</th>{_num_td(v.get("value"))}'
            f'<td class="num">[{_n((v.get("interval") or {}).get("low"), 3)}, '
            f"{_n((v.get('interval') or {}).get('high'), 3)}]</td></tr>"
            for m, v in x["measures"].items()
        )
        chart = svg.heatmap(
            names,
            x["similarity_matrix"],
            "How alike the systems' answers are",
            "mean similarity of one system's answers to another's, same prompt; diagonal: "
            "within a system",
            f"across-{k}",
        )
        table = (
            f"<table><caption>{escape(str(x.get('input') or ''))}: "
            f"{x.get('n_prompts')} prompts answered by every system; beta is the effective "
            "number of distinct systems (1: they all say the same things)</caption><thead><tr>"
            '<th scope="col">measure</th><th scope="col">value</th><th scope="col">interval</th>'
            f"</tr></thead><tbody>{rows}</tbody></table>"
            + (f"<p>{escape(str(x['reading']))}</p>" if x.get("reading") else "")
            + f'<p class="muted">{escape(str(x.get("signature", "")))}</p>'
        )
        parts.append(_figure(chart, table))
    if not parts:
        return ""
    return "<h3>How alike are the systems (alpha, beta, gamma; Reeve et al. 2016)</h3>" + "".join(
        parts
    )


def _systems_section(r: Report) -> str:
    c = r.collected
    systems = [s for s in c.systems if c.systems[s]]
    if not systems:
        across = _across_part(r)
        return _section("systems", "Systems side by side", across) if across else ""
    metrics: list[str] = []
    for s in systems:
        metrics += [m for m in c.systems[s] if m not in metrics]
    table = _systems_table(r, systems, metrics)
    charts = _systems_charts(r, systems, metrics)
    body = table + charts + _levels_part(r) + _across_part(r)
    return _section("systems", "Systems side by side", body)


def _best_systems(r: Report, systems: list[str], metrics: list[str]) -> dict[str, str]:
    """The most diverse system of each metric whose direction is known (of two or more)."""
    c = r.collected
    best: dict[str, str] = {}
    for m in metrics:
        d = r.directions.get(m)
        vals = [(c.systems[s][m].value, s) for s in systems if m in c.systems[s]]
        vals = [(v, s) for v, s in vals if math.isfinite(v)]
        if d in ARROWS and len(vals) > 1:
            best[m] = (max(vals) if d == "higher" else min(vals))[1]
    return best


def _systems_table(r: Report, systems: list[str], metrics: list[str]) -> str:
    """The legend, the sortable table of every metric per system, and the intervals' note."""
    c = r.collected
    best = _best_systems(r, systems, metrics)
    head = _th_sort("system") + (_th_sort("sets") if c.sizes else "")
    for m in metrics:
        d = r.directions.get(m)
        arrow = (
            f' <abbr title="{d} is more diverse" aria-label="{d} is more diverse">'
            f"{ARROWS[d]}</abbr>"
            if d in ARROWS
            else ""
        )
        head += _th_sort(f"{escape(m)}{arrow}")
    rows = []
    for s in systems:
        cells = f'<th scope="row" data-v="{escape(s)}">{escape(s)}</th>'
        if c.sizes:
            cells += _num_td(c.sizes.get(s), str(c.sizes.get(s, "–")))
        for m in metrics:
            v = c.systems[s].get(m)
            if v is None:
                cells += '<td class="num" data-v="">–</td>'
                continue
            iv = v.interval or r.intervals.get((s, m))
            text = _n(v.value)
            if iv is not None:
                text += f' <span class="ci">[{_n(iv[0], 3)}, {_n(iv[1], 3)}]</span>'
            cls = "num"
            if best.get(m) == s:
                text = f'<strong>{text}</strong> <span class="best" title="best">★<span class="sr">best</span></span>'
                cls += " is-best"
            cells += _num_td(v.value, text, cls)
        rows.append(f"<tr>{cells}</tr>")
    has_iv = any(
        (s, m) in r.intervals or c.systems[s][m].interval for s in systems for m in c.systems[s]
    )
    note = ""
    if has_iv:
        note = (
            f"<p>Brackets: {r.confidence:.0%} percentile bootstrap interval of the mean over "
            "sets (1,000 seeded resamples of the sets, or the interval the run reported).</p>"
        )
    legend = (
        "<p>↑ higher is more diverse, ↓ lower is more diverse (each metric's direction in the "
        "registry); ★ marks the most diverse system of each metric. Click a column's header "
        "(or focus it and press Enter) to sort.</p>"
    )
    table = (
        f'<table class="sortable" id="systems-table"><caption>Every metric, one row per '
        f"{escape(c.by) if c.by else 'system'}</caption><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
    return legend + table + note


def _levels_part(r: Report) -> str:
    """Each metric at its reporting level (Kirk et al. 2024), where the run reported them."""
    c = r.collected
    if not c.levels:
        return ""
    lrows = "".join(
        f'<tr><th scope="row">{escape(str(x["metric"]))}</th><td>{escape(str(x["level"]))}</td>'
        f'{_num_td(x["value"])}<td class="num">[{_n(x["low"], 3)}, {_n(x["high"], 3)}]</td>'
        f"<td>{ARROWS.get(r.directions.get(x['metric'], ''), '')} "
        f"{escape(r.directions.get(x['metric'], ''))}</td></tr>"
        for x in c.levels
    )
    return (
        "<h3>Reporting levels</h3><table><caption>Each metric at its reporting level "
        "(Kirk et al. 2024), with the run's bootstrap interval</caption><thead><tr>"
        '<th scope="col">metric</th><th scope="col">level</th><th scope="col">value</th>'
        '<th scope="col">interval</th><th scope="col">more diverse</th></tr></thead>'
        f"<tbody>{lrows}</tbody></table>"
    )


def _systems_charts(r: Report, systems: list[str], metrics: list[str]) -> str:
    """One small chart per metric, a dot per system (with its interval): the systems side by
    side whether or not the run has per-set values."""
    c = r.collected
    if len(systems) < 2:
        return ""
    figures = []
    for k, m in enumerate(metrics):
        rows = []
        for s in systems:
            v = c.systems[s].get(m)
            if v is None or not math.isfinite(v.value):
                continue
            iv = v.interval or r.intervals.get((s, m))
            rows.append((s, v.value, iv[0] if iv else None, iv[1] if iv else None))
        if len(rows) < 2:
            continue
        d = r.directions.get(m)
        way = f" ({d} is more diverse)" if d in ARROWS else ""
        desc = "; ".join(
            f"{s} {v:.4f}" + (f" [{lo:.3f}, {hi:.3f}]" if lo is not None else "")
            for s, v, lo, hi in rows
        )
        chart = svg.dots(rows, f"{m}, one dot per system{way}", desc, m, f"systems-{k}")
        figures.append(
            f'<figure class="small"><figcaption>{escape(m)} {ARROWS.get(d or "", "")}'
            f"</figcaption>{chart}</figure>"
        )
    return f'<div class="grid">{"".join(figures)}</div>' if figures else ""


def _agreement_section(r: Report) -> str:
    if not r.agreement:
        return ""
    labels, matrix, n_sets = r.agreement
    desc = "; ".join(
        f"{labels[i]} and {labels[j]}: {matrix[i][j]:.2f}"
        for i in range(len(labels))
        for j in range(i + 1, len(labels))
    )
    chart = svg.heatmap(
        labels,
        matrix,
        f"Spearman correlation between metrics over {n_sets} sets",
        desc,
        "agreement",
    )
    head = _head("metric", labels)
    body = "".join(_row(escape(m), (_n(v, 2) for v in row)) for m, row in zip(labels, matrix))
    table = (
        f"<table><caption>Spearman ρ between the per-set values of each pair of metrics "
        f"({n_sets} sets, all systems pooled)</caption><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )
    text = (
        "<p>Two metrics that rank the sets alike (ρ near 1) measure much the same thing; a "
        "metric whose lower values mean more diversity (Self-BLEU) shows as negative.</p>"
    )
    return _section("agreement", "Agreement between metrics", text + _figure(chart, table))


def _curves_section(r: Report) -> str:
    c = r.collected
    parts = [_distinct_at_k_part(metric, per_system) for metric, per_system in c.curves.items()]
    parts += [_profile_part(metric, per_system) for metric, per_system in c.profiles.items()]
    parts += [_rarefaction_part(name, per_system) for name, per_system in c.rarefaction.items()]
    parts += [_length_bias_part(run) for run in c.length_bias]
    if not parts:
        return ""
    return _section("size-length", "Sample size and length", "".join(parts))


def _distinct_at_k_part(metric: str, per_system: dict[str, list[dict[str, Any]]]) -> str:
    """Distinct-n of random subsets of k responses against k, a line per system (distinct@k)."""
    names = list(per_system)
    series = [
        (
            s,
            [p["k"] for p in per_system[s]],
            [p["mean"] for p in per_system[s]],
            [p.get("low", p["mean"]) for p in per_system[s]],
            [p.get("high", p["mean"]) for p in per_system[s]],
        )
        for s in names
    ]
    desc = "; ".join(
        f"{s}: " + ", ".join(f"k={p['k']:g} {p['mean']:.3f}" for p in per_system[s]) for s in names
    )
    chart = svg.lines(
        series,
        svg.Labels(
            f"{metric}: Distinct-n of random subsets of k responses, per system",
            desc,
            "k (responses in the subset, log scale)",
            "Distinct-n",
            _ident("curve-" + metric),
        ),
        log_x=True,
    )
    ks = sorted({p["k"] for s in names for p in per_system[s]})
    head = _head("k", names)
    body = "".join(
        _row(
            f"{k:g}",
            (_n(next((p["mean"] for p in per_system[s] if p["k"] == k), None), 3) for s in names),
        )
        for k in ks
    )
    table = (
        f"<table><caption>{escape(metric)}: mean Distinct-n at each k</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )
    return f"<h3>{escape(metric)} (distinct@k)</h3>" + svg.legend(names) + _figure(chart, table)


def _length_bias_part(run: dict[str, Any]) -> str:
    """Each metric against response length, a line per metric (`diveval meta length-bias`)."""
    metrics = list(run["metrics"])
    lengths = run["lengths"]
    series = []
    for m in metrics:
        mean = run["metrics"][m]["mean"]
        std = run["metrics"][m].get("std") or [0.0] * len(mean)
        series.append(
            (
                m,
                lengths,
                mean,
                [a - b for a, b in zip(mean, std)],
                [a + b for a, b in zip(mean, std)],
            )
        )
    desc = "; ".join(
        f"{m}: slope {run['metrics'][m]['trend']['slope']:+.5f} per token, "
        f"{run['metrics'][m]['trend']['first']:.3f} at length {lengths[0]} to "
        f"{run['metrics'][m]['trend']['last']:.3f} at {lengths[-1]}"
        for m in metrics
        if "trend" in run["metrics"][m]
    )
    source = str(run.get("source", "?"))
    chart = svg.lines(
        series,
        svg.Labels(
            f"Length bias ({source}): each metric against response length",
            desc,
            "response length (tokens)",
            "metric value (mean ± sd over sets)",
            _ident("length-" + source),
        ),
    )
    head = _head("length", metrics)
    body = "".join(
        _row(f"{L}", (_n(run["metrics"][m]["mean"][i], 4) for m in metrics))
        for i, L in enumerate(lengths)
    )
    slopes = (_slope(run["metrics"][m].get("trend")) for m in metrics)
    body += _row("slope per token [95% CI]", slopes)
    table = (
        f"<table><caption>Length bias ({escape(source)}): mean over "
        f"{_count(run.get('n_sets'), 'set')} of {_count(run.get('n_responses'), 'response')} "
        "at each length</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )
    return (
        f"<h3>Length bias: {escape(source)}</h3>"
        "<p>A metric that falls as responses get longer penalises long answers whatever their "
        "diversity (the EAD paper, Figure 1): a flat line is what one wants.</p>"
        + svg.legend(metrics)
        + _figure(chart, table)
    )


def _profile_part(metric: str, per_system: dict[str, list[tuple[str, float]]]) -> str:
    """A diversity profile: the effective number of responses against the order q (q = inf in
    the table only: the chart's axis is numeric)."""
    names = list(per_system)
    series = [
        (
            s,
            [float(q) for q, _ in per_system[s] if q != "inf"],
            [v for q, v in per_system[s] if q != "inf"],
            None,
            None,
        )
        for s in names
    ]
    desc = "; ".join(
        f"{s}: " + ", ".join(f"q={q} {v:.3f}" for q, v in per_system[s]) for s in names
    )
    chart = svg.lines(
        series,
        svg.Labels(
            f"{metric}: diversity profile, mean over sets, per system",
            desc,
            "order q (0: every response counts; larger q: only the dominant ones)",
            "effective number of responses",
            _ident("profile-" + metric),
        ),
    )
    orders = list(dict.fromkeys(q for s in names for q, _ in per_system[s]))
    head = _head("q", names)
    body = "".join(
        _row(escape(q), (_n(dict(per_system[s]).get(q), 3) for s in names)) for q in orders
    )
    table = (
        f"<table><caption>{escape(metric)}: mean over sets at each order q</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )
    return (
        f"<h3>{escape(metric)} (diversity profile)</h3>"
        "<p>Hill numbers fall as q grows; a system whose curve stays high keeps its diversity "
        "when only the dominant responses count (Leinster &amp; Cobbold 2012).</p>"
        + svg.legend(names)
        + _figure(chart, table)
    )


def _count(n: Any, noun: str) -> str:
    """counted() of a count read from a file, which may be missing."""
    return counted(n, noun) if isinstance(n, int) else f"? {noun}s"


_RAREFACTION_Y = {
    "classes-richness": "distinct answers (equivalence classes)",
    "classes-shannon": "exp(entropy over classes)",
    "classes-simpson": "inverse Simpson over classes",
}


def _asymptote(curve: dict[str, Any]) -> str:
    """A curve's asymptote, or 'undefined' where `diveval rarefy` wrote null (see its warning)."""
    value = curve.get("asymptote")
    return "undefined" if value is None else f"{value:.3f}"


def _rarefaction_part(name: str, per_system: dict[str, dict[str, Any]]) -> str:
    """A rarefaction / extrapolation curve per system (`diveval rarefy`): the expected measure at
    m responses per prompt, rarefied below the sets' size and extrapolated above it."""
    names = list(per_system)
    curves = {s: per_system[s]["curve"] for s in names}
    series = [
        (s, curves[s]["sizes"], curves[s]["value"], curves[s]["low"], curves[s]["high"])
        for s in names
    ]
    desc = "; ".join(
        f"{s}: observed {per_system[s].get('observed', math.nan):.3f} at "
        f"{curves[s]['observed']:g} responses, asymptote {_asymptote(curves[s])}"
        for s in names
    )
    ylabel = _RAREFACTION_Y.get(name, f"distinct {name.split('-richness')[0]}")
    chart = svg.lines(
        series,
        svg.Labels(
            f"{name}: rarefaction and extrapolation, mean over prompts, per system",
            desc,
            "m (responses per prompt)",
            ylabel,
            _ident("rarefaction-" + name),
        ),
    )
    sizes = sorted({m for s in names for m in curves[s]["sizes"]})
    head = _head("m", names)
    body = "".join(_row(f"{m:g}", (_rarefied_at(curves[s], m) for s in names)) for m in sizes)
    table = (
        f"<table><caption>{escape(name)}: estimate and {curves[names[0]]['confidence']:.0%} "
        f"bootstrap interval at each m</caption><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table>"
    )
    observed = ", ".join(f"{escape(s)} {curves[s]['observed']:g}" for s in names)
    return (
        f"<h3>{escape(name)} (rarefaction and extrapolation)</h3>"
        "<p>The expected number at m responses per prompt: below the responses sampled (mean "
        f"per prompt: {observed}) the exact expectation over subsets, above it Chao et al. "
        "(2014)'s extrapolation, reliable up to about twice the sample; bands: their bootstrap "
        "interval of the mean over prompts.</p>" + svg.legend(names) + _figure(chart, table)
    )


def _rarefied_at(curve: dict[str, Any], m: float) -> str:
    """The estimate of a curve at m responses and its interval ("–" where it has no m)."""
    if m not in curve["sizes"]:
        return "–"
    i = curve["sizes"].index(m)
    return (
        f'{_n(curve["value"][i], 3)} <span class="ci">[{_n(curve["low"][i], 2)}, '
        f"{_n(curve['high'][i], 2)}]</span>"
    )


def _slope(t: dict[str, float] | None) -> str:
    if not t:
        return "–"
    return f"{t['slope']:+.5f} [{t['low']:+.5f}, {t['high']:+.5f}]"


def _human_section(r: Report) -> str:
    c = r.collected
    parts = [_scatter_part(r), _correlations_part(c), _tevet_part(c), _raters_part(c)]
    if not any(parts):
        return ""
    return _section("human", "Human agreement", "".join(parts))


def _scatter_part(r: Report) -> str:
    """The metrics against the human score, a chart per metric and level, and the table."""
    c = r.collected
    if not r.scatters:
        return ""
    systems = list(c.systems) or sorted({p["system"] for p in c.human_sets})
    charts = []
    rows = []
    for k, s in enumerate(r.scatters):
        stat = (
            f"Pearson r = {s.pearson:.2f} [{_n(s.low, 2)}, {_n(s.high, 2)}], n = {s.n}"
            if s.pearson is not None
            else s.note or "no correlation"
        )
        chart = svg.scatter(
            s.points,
            svg.Labels(
                f"{s.metric} against the human score, one point per {s.level}",
                f"{counted(s.n, s.level)}; {stat}" if s.pearson is None else stat,
                s.metric,
                c.human,
                f"scatter-{k}",
            ),
        )
        charts.append(
            f'<figure class="small"><figcaption>{escape(s.metric)} per {s.level}'
            f"{'' if s.pearson is not None else f' ({counted(s.n, s.level)})'}: "
            f"{escape(stat)}</figcaption>{chart}</figure>"
        )
        rows.append(
            f'<tr><th scope="row">{escape(s.metric)}</th><td>{s.level}</td>'
            f"{_num_td(s.n, str(s.n))}{_num_td(s.pearson, _n(s.pearson, 3))}"
            f'<td class="num">[{_n(s.low, 3)}, {_n(s.high, 3)}]</td>'
            f"{_num_td(s.spearman, _n(s.spearman, 3))}<td>{escape(s.note)}</td></tr>"
        )
    table = (
        f'<table class="sortable"><caption>Each metric against the human score '
        f"({escape(c.human)}): Pearson with its {r.confidence:.0%} bootstrap interval, and "
        "Spearman</caption><thead><tr>"
        + _th_sort("metric")
        + _th_sort("level")
        + _th_sort("n")
        + _th_sort("Pearson r")
        + '<th scope="col">interval</th>'
        + _th_sort("Spearman ρ")
        + '<th scope="col">note</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )
    grids = ""
    for level, heading in (("system", "One point per system"), ("set", "One point per set")):
        mine = [ch for ch, s in zip(charts, r.scatters) if s.level == level]
        if mine:
            grids += f'<h3>{heading}</h3><div class="grid">{"".join(mine)}</div>'
    return svg.legend(systems) + grids + table


def _correlations_part(c: Collected) -> str:
    """The correlations a `diveval correlate` run reported."""
    if not c.correlations:
        return ""
    body = "".join(
        f"<tr><td>{escape(str(x['input']))}</td><td>{escape(str(x['group']))}</td>"
        f'<th scope="row">{escape(str(x["metric"]))}</th><td>{escape(str(x["method"]))}</td>'
        f'{_num_td(x["value"], _n(x["value"], 3))}<td class="num">[{_n(x["low"], 3)}, '
        f"{_n(x['high'], 3)}]</td>{_num_td(x['p'], _n(x['p'], 3))}{_num_td(x['n'], str(x['n']))}</tr>"
        for x in c.correlations
    )
    return (
        "<h3>Correlations computed by <code>diveval correlate</code></h3>"
        '<table class="sortable"><caption>As the correlate run reported them</caption><thead><tr>'
        + _th_sort("input")
        + _th_sort("group")
        + _th_sort("metric")
        + _th_sort("method")
        + _th_sort("value")
        + '<th scope="col">interval</th>'
        + _th_sort("p")
        + _th_sort("n")
        + f"</tr></thead><tbody>{body}</tbody></table>"
    )


def _tevet_part(c: Collected) -> str:
    """The Tevet & Berant tests of `diveval meta tevet`."""
    if not c.tevet:
        return ""
    body = ""
    for x in c.tevet:
        par = x.get("parameter") or {}
        hum = x.get("human") or {}
        body += (
            f'<tr><td>{escape(str(x["file"]))}</td><th scope="row">{escape(str(x.get("metric")))}</th>'
            f"{_num_td(x.get('n'), str(x.get('n')))}"
            f'<td class="num">{_corr(par.get("spearman"))}</td>'
            f'<td class="num">{_corr(hum.get("spearman") if hum else None)}</td></tr>'
        )
    return (
        "<h3>Tevet &amp; Berant tests (<code>diveval meta tevet</code>)</h3>"
        '<table class="sortable"><caption>Spearman ρ with the diversity parameter and with '
        "the human score</caption><thead><tr>"
        + _th_sort("file")
        + _th_sort("metric")
        + _th_sort("n")
        + '<th scope="col">ρ (parameter)</th><th scope="col">ρ (human)</th></tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )


def _raters_part(c: Collected) -> str:
    """The raters of `diveval rate export` and the EAD filter's verdicts."""
    if not c.raters:
        return ""
    kept = sum(x["kept"] for x in c.raters)
    body = "".join(
        f'<tr class="{"kept" if x["kept"] else "dropped"}"><th scope="row">{escape(x["rater"])}</th>'
        f"<td>{'kept' if x['kept'] else '<strong>dropped</strong>'}</td>"
        f"{_num_td(x['pearson'], _n(x['pearson'], 3))}{_num_td(x['sets'], _n(x['sets'], 0))}"
        f"<td>{escape(x['reason'])}</td></tr>"
        for x in c.raters
    )
    return (
        "<h3>Raters and the EAD filter</h3>"
        f"<p>{kept} of {len(c.raters)} raters kept. A rater whose scores correlate with the "
        "mean of the other raters below the threshold (Pearson 0.65 in the EAD paper) is "
        "dropped (<code>diveval rate export</code>).</p>"
        '<table class="sortable"><caption>Each rater\'s Pearson correlation with the others '
        "and the filter's verdict</caption><thead><tr>"
        + _th_sort("rater")
        + _th_sort("verdict")
        + _th_sort("Pearson")
        + _th_sort("sets")
        + f'<th scope="col">reason</th></tr></thead><tbody>{body}</tbody></table>'
    )


def _corr(c: dict[str, Any] | None) -> str:
    if not c:
        return "–"
    iv = c.get("interval") or {}
    text = _n(c.get("value"), 2)
    if iv.get("low") is not None:
        text += f" [{_n(iv.get('low'), 2)}, {_n(iv.get('high'), 2)}]"
    return text


def _sets_section(r: Report) -> str:
    c = r.collected
    m = r.sets_metric
    if not c.sets or m is None:
        return ""
    d = r.directions.get(m, "higher")
    unit = "response" if c.setting == "corpus" else "set"  # a corpus run's items are responses
    cards = []
    index = []
    for s, rows in c.sets.items():
        scored = [x for x in rows if m in x.values and math.isfinite(x.values[m])]
        for x in scored:
            index.append([s, x.prompt[:MAX_INDEX_PROMPT], round(x.values[m], 4), x.line])
        if not scored:
            continue
        ranked = sorted(scored, key=lambda x: x.values[m], reverse=d != "lower")
        n = min(r.shown, (len(ranked) + 1) // 2)
        top, bottom = ranked[:n], ranked[len(ranked) - n :][::-1] if len(ranked) > n else []
        cards.append(
            f'<div class="system-sets"><h3>{escape(s)}</h3>'
            f"<p>{counted(len(scored), unit)}"
            + (f"; the {n} most and {len(bottom)} least diverse by " if bottom else " ranked by ")
            + f"{escape(m)} ({d} is more diverse)</p>"
            f'<div class="cols"><div><h4>Most diverse</h4>{"".join(_card(x, m, s, c.input_note) for x in top)}</div>'
            f"<div><h4>Least diverse</h4>{''.join(_card(x, m, s, c.input_note) for x in bottom)}</div></div></div>"
        )
    index_json = json_out.dumps(index, ensure_ascii=False, separators=(",", ":")).replace(
        "</", "<\\/"
    )
    controls = (
        '<div class="search"><label for="set-search">Search sets by prompt</label> '
        '<input id="set-search" type="search" autocomplete="off" '
        'placeholder="words of a prompt">'
        '<p id="search-status" role="status" aria-live="polite"></p></div>'
        '<table id="set-results" hidden><caption>Every set whose prompt matches (first 50), '
        f'with its {escape(m)}</caption><thead><tr><th scope="col">system</th>'
        '<th scope="col">prompt</th><th scope="col">value</th><th scope="col">line</th></tr>'
        "</thead><tbody></tbody></table>"
    )
    text = (
        f"<p>Sets ranked by <strong>{escape(m)}</strong>; the search looks through the prompts "
        f"of {'all ' if len(index) > 1 else ''}{counted(len(index), unit)} (the responses of "
        "the sets shown below are embedded; the others are summarised by their value).</p>"
    )
    return _section(
        "sets",
        "The sets behind the numbers",
        text
        + controls
        + "".join(cards)
        + f'<script type="application/json" id="set-index">{index_json}</script>',
    )


def _card(x: SetRow, metric: str, system: str, missing: str = "") -> str:
    responses = ""
    if x.responses:
        items = []
        for i, t in enumerate(x.responses):
            t = t if len(t) <= MAX_RESPONSE_CHARS else t[:MAX_RESPONSE_CHARS] + " …"
            if x.labels is not None and i < len(x.labels):
                k = x.labels[i]
                items.append(
                    f'<li style="border-left-color:{svg.colour(k)}"><span class="cls">class '
                    f"{k + 1}</span> {escape(t)}</li>"
                )
            else:
                items.append(f"<li>{escape(t)}</li>")
        n_cls = (
            f", {counted(len(set(x.labels)), 'equivalence class', 'equivalence classes')}"
            if x.labels
            else ""
        )
        responses = f'<ol class="responses" aria-label="responses{n_cls}">{"".join(items)}</ol>'
    else:
        why = f"{escape(missing)}; " if missing else ""
        responses = (
            f'<p class="muted">responses not in the inputs ({why}give the scored file too)</p>'
        )
    where = f"line {x.line}" if x.line is not None else ""
    others = ", ".join(f"{escape(k)} {v:.3f}" for k, v in x.values.items() if k != metric)
    return (
        f'<article class="set-card" data-prompt="{escape(x.prompt.lower())}">'
        f'<h5>{escape(x.prompt)}</h5><p class="meta"><strong>{escape(metric)} '
        f"{x.values[metric]:.4f}</strong> · {escape(system)} {where}"
        f"{' · ' + others if others else ''}</p>{responses}</article>"
    )


def _compare_section(r: Report) -> str:
    """`diveval compare --json`: each candidate against the baseline, significant rows marked,
    a winner named only where the test says so."""
    parts = []
    for run in r.collected.comparisons:
        st = run["settings"]
        conf = st.get("confidence", DEFAULT_CONFIDENCE)
        # the interval beside Holm's decisions: simultaneous since it is named in the settings
        # (an older file's is the unadjusted per-test interval)
        shown = "simultaneous interval" if st.get("interval_shown") else f"{conf:.0%} interval"
        for cand in st.get("candidates", []):
            rows = [x for x in run["rows"] if x.get("candidate") == cand]
            if not rows:
                continue
            body = ""
            for x in rows:
                iv = x.get("interval") or [None, None]
                extended = " ^" if x.get("interval_extended") else ""
                sig = bool(x.get("significant"))
                winner = x.get("more_diverse") or ("not comparable" if x.get("note") else "–")
                arrow = ARROWS.get(str(x.get("direction")), "")
                mark = ' class="significant"' if sig else ""
                body += (
                    f'<tr{mark}><th scope="row">'
                    f"{escape(str(x.get('metric')))} {arrow}</th>"
                    + _num_td(x.get("baseline_value"))
                    + _num_td(x.get("candidate_value"))
                    + _num_td(x.get("difference"))
                    + f"<td>[{_n(iv[0])}, {_n(iv[1])}]{extended}</td>"
                    + _num_td(x.get("p_value"))
                    + _num_td(x.get("p_adjusted"), _n(x.get("p_adjusted")) + (" *" if sig else ""))
                    + f"<td>{'<strong>' if sig else ''}{escape(str(winner))}"
                    f"{'</strong>' if sig else ''}</td></tr>"
                )
            n = rows[0].get("n_prompts", "?")
            parts.append(
                f'<table class="sortable"><caption>{escape(str(cand))} against '
                f"{escape(str(st.get('baseline')))} (baseline) on {n} shared prompts; "
                f"{escape(str(st.get('test')))} test, {escape(str(st.get('adjustment')))}, "
                f"alpha {st.get('alpha')}; * significant after the adjustment</caption><thead><tr>"
                + "".join(
                    _th_sort(h)
                    for h in (
                        "metric",
                        "baseline",
                        "candidate",
                        "difference",
                        shown,
                        "p",
                        "p (Holm)",
                        "more diverse",
                    )
                )
                + f"</tr></thead><tbody>{body}</tbody></table>"
            )
        notes = [f"{x['metric']}: {x['note']}" for x in run["rows"] if x.get("note")]
        if notes:
            parts.append("<ul>" + "".join(f"<li>{escape(t)}</li>" for t in notes) + "</ul>")
        parts.append(
            f'<p class="muted">From <code>{escape(run["file"])}</code>: '
            f"{st.get('resamples')} resamples, seed {st.get('seed')}, levels {st.get('levels')}, "
            f"prompts matched by {escape(str(st.get('match')))}. The difference is candidate "
            "minus baseline; ↑/↓: higher/lower is more diverse."
            + (
                f" Intervals: {escape(str(st['interval_shown']))}, so none excludes 0 where the "
                "adjusted test makes no decision (^: extended to 0 where the bootstrap and the "
                "permutation test disagree); the unadjusted ones are in the JSON."
                if st.get("interval_shown")
                else ""
            )
            + "</p>"
        )
    if not parts:
        return ""
    return _section("compare", "Paired comparisons", "".join(parts))


def _leaderboard_section(r: Report) -> str:
    """`diveval leaderboard --json`: the ranked systems with their intervals, rank ranges and
    letter groups, as the command printed them."""
    parts = []
    for run in r.collected.leaderboards:
        st = run["settings"]
        body = ""
        for x in run["systems"]:
            iv = x.get("interval") or [None, None]
            body += (
                f'<tr><td class="num">{escape(str(x.get("rank")))}</td>'
                f'<th scope="row">{escape(str(x.get("system")))}</th>'
                + _num_td(x.get("value"))
                + f"<td>[{_n(iv[0])}, {_n(iv[1])}]</td>"
                + f"<td>{'–'.join(escape(str(v)) for v in x.get('rank_range') or [])}</td>"
                + f"<td><strong>{escape(str(x.get('letters', '')))}</strong></td></tr>"
            )
        conf = st.get("confidence", DEFAULT_CONFIDENCE)
        arrow = ARROWS.get(str(st.get("direction")), "")
        parts.append(
            f"<table><caption>{escape(str(st.get('metric')))} {arrow}: "
            f"{len(run['systems'])} systems on {escape(str(st.get('n_prompts')))} prompts; "
            f"{escape(str(st.get('test')))} test, {escape(str(st.get('adjustment')))}, alpha "
            f"{escape(str(st.get('alpha')))}</caption><thead><tr>"
            + "".join(
                f'<th scope="col">{h}</th>'
                for h in ("rank", "system", "value", f"{conf:.0%} interval", "ranks", "group")
            )
            + f"</tr></thead><tbody>{body}</tbody></table>"
            f'<p class="muted">From <code>{escape(run["file"])}</code>: systems that share a '
            "letter are not significantly different; ranks: every rank a system can take given "
            f"the pairs not separated; intervals: {escape(str(st.get('intervals')))}.</p>"
        )
    if not parts:
        return ""
    return _section("leaderboard", "Leaderboard", "".join(parts))


def _provenance_section(r: Report) -> str:
    c = r.collected
    sig_rows = "".join(
        f'<tr><th scope="row">{escape(m)}</th><td><code>{escape(s)}</code></td></tr>'
        for m in sorted(c.signatures)
        for s in sorted(c.signatures[m])
    )
    file_rows = "".join(
        f'<tr><th scope="row">{escape(f.path)}</th><td>{escape(f.kind)}</td>'
        f'<td class="num">{f.size:,}</td><td><code>{f.sha256}</code></td></tr>'
        for f in c.files
    )
    sampling: dict[str, list[str]] = {}
    for s, rows in c.sets.items():
        for x in rows:
            if x.sampling is not None:
                key = json.dumps(x.sampling, sort_keys=True, ensure_ascii=False)
                if s not in sampling.setdefault(key, []):
                    sampling[key].append(s)
    parts = [
        "<dl>"
        f"<dt>diveval</dt><dd>{escape(r.version)}</dd>"
        f"<dt>written</dt><dd><time>{escape(r.created)}</time></dd>"
        + (f"<dt>command</dt><dd><code>{escape(r.command)}</code></dd>" if r.command else "")
        + "</dl>"
    ]
    if file_rows:
        parts.append(
            "<table><caption>Input files and their SHA-256</caption><thead><tr>"
            '<th scope="col">file</th><th scope="col">read as</th><th scope="col">bytes</th>'
            f'<th scope="col">SHA-256</th></tr></thead><tbody>{file_rows}</tbody></table>'
        )
    if sig_rows:
        parts.append(
            "<table><caption>Every signature: the choices behind each number</caption>"
            '<thead><tr><th scope="col">metric</th><th scope="col">signature</th></tr></thead>'
            f"<tbody>{sig_rows}</tbody></table>"
        )
    if sampling:
        body = "".join(
            f"<tr><td><code>{escape(k)}</code></td><td>{escape(', '.join(v))}</td></tr>"
            for k, v in sampling.items()
        )
        parts.append(
            "<table><caption>Sampling settings the records carry</caption><thead><tr>"
            '<th scope="col">sampling</th><th scope="col">systems</th></tr></thead>'
            f"<tbody>{body}</tbody></table>"
        )
    return _section("provenance", "Provenance", "".join(parts))


def _section(ident: str, title: str, body: str) -> str:
    return f'<section id="{ident}" aria-labelledby="{ident}-h"><h2 id="{ident}-h">{title}</h2>{body}</section>'


_HEADING = re.compile(r'^(<section id="([^"]*)"[^>]*><h2 id="[^"]*">)(?:\d+\.\s*)?(.*?)</h2>')


def _numbered(sections: list[str]) -> tuple[list[str], str]:
    """The sections present, numbered 1, 2, ... in order (a section left out leaves no gap), and
    the table of contents that links to them."""
    out, toc = [], []
    k = 0
    for html in sections:
        m = _HEADING.match(html)
        if m is None:  # not made by _section: shown, neither numbered nor listed
            out.append(html)
            continue
        k += 1
        out.append(f"{m.group(1)}{k}. {m.group(3)}</h2>" + html[m.end() :])
        toc.append(f'<li><a href="#{m.group(2)}">{k}. {m.group(3)}</a></li>')
    return out, "".join(toc)


def _figure(chart: str, table: str) -> str:
    return (
        f'<figure class="chart-box">{chart}<details><summary>The numbers</summary>{table}'
        "</details></figure>"
    )


def render(r: Report) -> str:
    sections = [
        _systems_section(r),
        _compare_section(r),  # the decision between the systems, right below their numbers
        _leaderboard_section(r),
        _agreement_section(r),
        _curves_section(r),
        _human_section(r),
        _sets_section(r),
        _provenance_section(r),
    ]
    sections, toc = _numbered([s for s in sections if s])
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # no request may leave the file: forbid every fetch but inline style, script and data:
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
        f"<title>{escape(r.title)}</title><style>{CSS}</style></head><body>"
        f'<header><h1>{escape(r.title)}</h1><p class="muted">diveval {escape(r.version)} · '
        f'{escape(r.created)}</p><nav aria-label="sections"><ol>{toc}</ol></nav></header>'
        f"<main>{''.join(sections)}</main><script>{SCRIPT}</script></body></html>\n"
    )


def sample_points(
    xs: Sequence[float], ys: Sequence[float], groups: Sequence[int], limit: int
) -> list[tuple[float, float, int]]:
    """At most ``limit`` points, evenly spaced through the input order (deterministic)."""
    pts = [
        (float(x), float(y), int(g))
        for x, y, g in zip(xs, ys, groups)
        if x is not None and y is not None and math.isfinite(x) and math.isfinite(y)
    ]
    if len(pts) <= limit:
        return pts
    step = len(pts) / limit
    return [pts[int(i * step)] for i in range(limit)]


CSS = """
:root{--fg:#1a1a1a;--muted:#555;--line:#d0d0d0;--bg:#fff;--accent:#0057a3}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);
background:var(--bg);margin:0 auto;max-width:1180px;padding:0 20px 40px}
header{border-bottom:2px solid var(--line);margin-bottom:10px}
h1{margin:18px 0 2px}h2{margin-top:34px;border-bottom:1px solid var(--line)}
nav ol{display:flex;flex-wrap:wrap;gap:4px 22px;padding:0;list-style:none}
a{color:var(--accent)}.muted{color:var(--muted)}
table{border-collapse:collapse;margin:10px 0 18px;font-size:14px}
caption{text-align:left;font-weight:600;padding:4px 0;caption-side:top}
th,td{border-bottom:1px solid var(--line);padding:4px 10px;text-align:left;vertical-align:top}
thead th{border-bottom:2px solid #999;white-space:nowrap}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.ci{color:var(--muted);font-size:12px}
.is-best{background:#e8f3ea}.best{color:#1b7a34}
button.sort{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;color:inherit}
button.sort:focus-visible,input:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}
th[aria-sort=ascending] .sort-icon::after{content:" ▲"}
th[aria-sort=descending] .sort-icon::after{content:" ▼"}
th[aria-sort=none] .sort-icon::after{content:" ⇅";color:#999}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
svg.chart{max-width:100%;height:auto;font-size:11px;font-family:inherit}
svg .grid{stroke:#eee}svg .axis{stroke:#666}svg .fit{stroke:#444;stroke-dasharray:4 3}
svg text{fill:#222}svg text.cell{font-size:11px}
figure{margin:10px 0}figure.small{display:inline-block;margin:4px;vertical-align:top;max-width:360px}
figcaption{font-size:13px;font-weight:600}
.grid{display:flex;flex-wrap:wrap}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:4px 14px;font-size:13px}
.swatch{display:inline-block;width:12px;height:12px;margin-right:5px;border-radius:2px;vertical-align:-1px}
details summary{cursor:pointer;color:var(--accent)}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:16px}
.set-card{border:1px solid var(--line);border-radius:6px;padding:6px 10px;margin:8px 0}
.set-card h5{margin:2px 0;font-size:14px}.set-card .meta{margin:2px 0;font-size:12px;color:var(--muted)}
ol.responses{margin:4px 0;padding-left:22px;font-size:13px}
ol.responses li{border-left:4px solid transparent;padding-left:6px;margin:2px 0}
.cls{font-size:11px;color:var(--muted)}
.search{margin:10px 0}.search input{font:inherit;padding:4px 8px;width:min(420px,100%)}
tr.dropped{background:#fdecea}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px}dt{font-weight:600}dd{margin:0}
code{font-size:12px;word-break:break-all}
@media (max-width:700px){.cols{grid-template-columns:1fr}}
"""

# Sorting: each header button sorts its table by that column (numbers by data-v); search: the
# prompt box filters the shown sets and lists every matching set from the embedded index.
SCRIPT = """
(function(){
function key(c){var v=c.getAttribute('data-v');if(v!==null&&v!==''&&!isNaN(+v))return +v;
return (v!==null&&v!=='')?v.toLowerCase():(v===''?null:c.textContent.trim().toLowerCase());}
document.querySelectorAll('table.sortable').forEach(function(t){
var ths=t.tHead.rows[0].cells;
Array.prototype.forEach.call(ths,function(th,i){var b=th.querySelector('button.sort');if(!b)return;
b.addEventListener('click',function(){
var dir=th.getAttribute('aria-sort')==='descending'?'ascending':'descending';
Array.prototype.forEach.call(ths,function(h){if(h.querySelector('button.sort'))h.setAttribute('aria-sort','none');});
th.setAttribute('aria-sort',dir);var s=dir==='ascending'?1:-1;
var rows=Array.prototype.slice.call(t.tBodies[0].rows);
rows.sort(function(a,b){var x=key(a.cells[i]),y=key(b.cells[i]);
if(x===null)return 1;if(y===null)return -1;return x<y?-s:x>y?s:0;});
rows.forEach(function(r){t.tBodies[0].appendChild(r);});});});});
var box=document.getElementById('set-search');if(!box)return;
var data=JSON.parse(document.getElementById('set-index').textContent);
var table=document.getElementById('set-results'),body=table.tBodies[0];
var status=document.getElementById('search-status');
var cards=document.querySelectorAll('.set-card');
box.addEventListener('input',function(){var q=box.value.trim().toLowerCase();var shown=0;
cards.forEach(function(c){var ok=!q||c.getAttribute('data-prompt').indexOf(q)>=0;c.hidden=!ok;if(ok)shown++;});
body.textContent='';if(!q){table.hidden=true;status.textContent='';return;}
var hits=data.filter(function(r){return r[1].toLowerCase().indexOf(q)>=0;});
hits.slice(0,50).forEach(function(r){var tr=document.createElement('tr');
[r[0],r[1],r[2],r[3]===null?'':r[3]].forEach(function(v){var td=document.createElement('td');td.textContent=v;tr.appendChild(td);});
body.appendChild(tr);});table.hidden=!hits.length;
status.textContent=hits.length+(hits.length===1?' set matches':' sets match')+' ('+shown+' shown above)';});
})();
"""
