"""A small SVG writer for the report's charts: lines with bands, scatter, heatmap.

Plain strings, no dependency: the report must draw its charts without matplotlib, and an inline
SVG needs nothing from another host. Every chart has ``role="img"``, a ``<title>`` and a
``<desc>`` (the text alternative); the report puts the numbers in a table beside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from typing import Sequence

#: Okabe & Ito's colour-blind-safe palette, then Tableau's for systems past eight.
PALETTE = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#000000",
    "#8c564b",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _f(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _ticks(low: float, high: float, n: int = 5) -> list[float]:
    """About ``n`` round tick values covering [low, high]."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [low]
    raw = (high - low) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.ceil(low / step - 1e-9) * step
    out: list[float] = []
    v = start
    while v <= high + 1e-9 * step and len(out) < 20:
        out.append(round(v, 12))
        v += step
    return out


def _label(v: float) -> str:
    if v == 0:
        return "0"
    if abs(v) >= 1000 or abs(v) < 0.001:
        return f"{v:.2g}"
    return f"{v:.4g}"


def _range(values: Sequence[float], pad: float = 0.05) -> tuple[float, float]:
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if not finite:
        return 0.0, 1.0
    low, high = min(finite), max(finite)
    if high == low:
        return low - 0.5 if low else -0.5, high + 0.5 if high else 0.5
    span = high - low
    return low - pad * span, high + pad * span


class _Frame:
    """Axes of one chart: data -> pixel coordinates, and the axis drawing."""

    def __init__(self, x: tuple[float, float], y: tuple[float, float], w: int, h: int) -> None:
        self.x0, self.x1 = x
        self.y0, self.y1 = y
        self.w, self.h = w, h
        self.left, self.right, self.top, self.bottom = 58, 12, 14, 42

    def px(self, x: float) -> float:
        inner = self.w - self.left - self.right
        return self.left + (x - self.x0) / (self.x1 - self.x0) * inner

    def py(self, y: float) -> float:
        inner = self.h - self.top - self.bottom
        return self.top + (1 - (y - self.y0) / (self.y1 - self.y0)) * inner

    def axes(self, xlabel: str, ylabel: str, log_x: bool = False) -> str:
        parts = []
        b, t = self.h - self.bottom, self.top
        lft, r = self.left, self.w - self.right
        for v in _ticks(self.y0, self.y1):
            y = self.py(v)
            parts.append(
                f'<line x1="{lft}" x2="{r}" y1="{_f(y)}" y2="{_f(y)}" class="grid"/>'
                f'<text x="{lft - 6}" y="{_f(y + 4)}" text-anchor="end">{_label(v)}</text>'
            )
        xt = _ticks(self.x0, self.x1)
        if log_x:  # whole powers of two, labelled as the k they stand for
            xt = [float(e) for e in range(math.ceil(self.x0), math.floor(self.x1) + 1)]
        for v in xt:
            x = self.px(v)
            parts.append(
                f'<line x1="{_f(x)}" x2="{_f(x)}" y1="{b}" y2="{b + 4}" class="axis"/>'
                f'<text x="{_f(x)}" y="{b + 16}" text-anchor="middle">'
                f"{_label(2**v) if log_x else _label(v)}</text>"
            )
        parts.append(f'<line x1="{lft}" x2="{r}" y1="{b}" y2="{b}" class="axis"/>')
        parts.append(f'<line x1="{lft}" x2="{lft}" y1="{t}" y2="{b}" class="axis"/>')
        parts.append(
            f'<text x="{(lft + r) / 2:.0f}" y="{self.h - 6}" text-anchor="middle">'
            f"{escape(xlabel)}</text>"
        )
        parts.append(
            f'<text transform="translate(14 {(t + b) / 2:.0f}) rotate(-90)" '
            f'text-anchor="middle">{escape(ylabel)}</text>'
        )
        return "".join(parts)


def _open(w: int, h: int, title: str, desc: str, ident: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" '
        f'height="{h}" role="img" aria-labelledby="{ident}-t {ident}-d" class="chart">'
        f'<title id="{ident}-t">{escape(title)}</title><desc id="{ident}-d">{escape(desc)}</desc>'
    )


def legend(names: Sequence[str]) -> str:
    """An HTML legend (text, so it wraps and reads aloud), colours matching :func:`colour`."""
    items = "".join(
        f'<li><span class="swatch" style="background:{colour(i)}" aria-hidden="true"></span>'
        f"{escape(n)}</li>"
        for i, n in enumerate(names)
    )
    return f'<ul class="legend">{items}</ul>'


@dataclass(frozen=True)
class Labels:
    """What an x-y chart says: its title and text alternative (``desc``), the labels of its axes,
    and the id its title and description are referred to by."""

    title: str
    desc: str
    xlabel: str
    ylabel: str
    ident: str


def lines(
    series: Sequence[
        tuple[str, Sequence[float], Sequence[float], Sequence[float] | None, Sequence[float] | None]
    ],
    labels: Labels,
    w: int = 520,
    h: int = 300,
    log_x: bool = False,
) -> str:
    """Series of (name, xs, ys, lows, highs): a line per series, a band where lows/highs."""
    tx = (lambda v: math.log2(v)) if log_x else (lambda v: v)
    xs = [tx(x) for _, xx, *_ in series for x in xx]
    ys = [y for s in series for part in (s[2], s[3] or (), s[4] or ()) for y in part]
    frame = _Frame(_range(xs, 0.02), _range(ys), w, h)
    out = [_open(w, h, labels.title, labels.desc, labels.ident)]
    out.append(frame.axes(labels.xlabel, labels.ylabel, log_x))
    for i, (_name, xx, yy, lo, hi) in enumerate(series):
        c = colour(i)
        if lo is not None and hi is not None and len(lo) == len(xx):
            upper = [f"{_f(frame.px(tx(x)))},{_f(frame.py(v))}" for x, v in zip(xx, hi)]
            lower = [f"{_f(frame.px(tx(x)))},{_f(frame.py(v))}" for x, v in zip(xx, lo)]
            out.append(
                f'<polygon points="{" ".join(upper + lower[::-1])}" fill="{c}" '
                'fill-opacity="0.15" stroke="none"/>'
            )
        pts = " ".join(f"{_f(frame.px(tx(x)))},{_f(frame.py(y))}" for x, y in zip(xx, yy))
        out.append(f'<polyline points="{pts}" fill="none" stroke="{c}" stroke-width="2"/>')
        out.extend(
            f'<circle cx="{_f(frame.px(tx(x)))}" cy="{_f(frame.py(y))}" r="3" fill="{c}"/>'
            for x, y in zip(xx, yy)
        )
    out.append("</svg>")
    return "".join(out)


def scatter(
    points: Sequence[tuple[float, float, int]],
    labels: Labels,
    w: int = 350,
    h: int = 270,
) -> str:
    """Points (x, y, colour index), with the least-squares line over all of them."""
    frame = _Frame(_range([p[0] for p in points]), _range([p[1] for p in points]), w, h)
    out = [_open(w, h, labels.title, labels.desc, labels.ident)]
    out.append(frame.axes(labels.xlabel, labels.ylabel))
    n = len(points)
    if n >= 2:
        mx = sum(p[0] for p in points) / n
        my = sum(p[1] for p in points) / n
        sxx = sum((p[0] - mx) ** 2 for p in points)
        if sxx > 0:
            slope = sum((p[0] - mx) * (p[1] - my) for p in points) / sxx
            x0, x1 = frame.x0, frame.x1
            out.append(
                f'<line x1="{_f(frame.px(x0))}" y1="{_f(frame.py(my + slope * (x0 - mx)))}" '
                f'x2="{_f(frame.px(x1))}" y2="{_f(frame.py(my + slope * (x1 - mx)))}" '
                'class="fit"/>'
            )
    radius = 4 if n <= 200 else 2
    out.extend(
        f'<circle cx="{_f(frame.px(x))}" cy="{_f(frame.py(y))}" r="{radius}" '
        f'fill="{colour(c)}" fill-opacity="0.75"/>'
        for x, y, c in points
    )
    out.append("</svg>")
    return "".join(out)


def heat(v: float) -> str:
    """-1 (orange) .. 0 (white) .. +1 (blue), readable with black text at every value."""
    if not math.isfinite(v):
        return "#dddddd"
    v = max(-1.0, min(1.0, v))
    end = (0, 114, 178) if v >= 0 else (213, 94, 0)
    t = abs(v) * 0.75  # never fully saturated, so the black number on it stays readable
    rgb = [round(255 + (e - 255) * t) for e in end]
    return "#" + "".join(f"{c:02x}" for c in rgb)


def heatmap(
    labels: Sequence[str], matrix: Sequence[Sequence[float]], title: str, desc: str, ident: str
) -> str:
    """A square matrix of coefficients in [-1, 1], each cell with its number."""
    n = len(labels)
    cell = 46 if n <= 10 else 30
    pad = 8 + 7 * max((len(s) for s in labels), default=4)
    w = pad + n * cell + 10 + pad // 2  # the rotated column labels lean right
    h = pad + n * cell + 10
    out = [_open(w, h, title, desc, ident)]
    for i, name in enumerate(labels):
        y = pad + i * cell + cell / 2 + 4
        out.append(f'<text x="{pad - 6}" y="{_f(y)}" text-anchor="end">{escape(name)}</text>')
        x = pad + i * cell + cell / 2
        out.append(
            f'<text transform="translate({_f(x + 4)} {pad - 6}) rotate(-60)">{escape(name)}</text>'
        )
    for i, row in enumerate(matrix):
        for j, v in enumerate(row):
            x, y = pad + j * cell, pad + i * cell
            text = "" if not math.isfinite(v) else f"{v:.2f}"
            out.append(
                f'<rect x="{x}" y="{y}" width="{cell - 1}" height="{cell - 1}" fill="{heat(v)}"/>'
                f'<text x="{_f(x + cell / 2)}" y="{_f(y + cell / 2 + 4)}" text-anchor="middle" '
                f'class="cell">{text}</text>'
            )
    out.append("</svg>")
    return "".join(out)


def dots(
    rows: Sequence[tuple[str, float, float | None, float | None]],
    title: str,
    desc: str,
    xlabel: str,
    ident: str,
    w: int = 360,
) -> str:
    """Rows of (name, value, low, high): one line per row, the value a dot in the row's colour,
    the interval a bar where there is one; names on the left, values along the bottom."""
    step = 24
    h = 14 + step * len(rows) + 42
    values = [v for _, x, lo, hi in rows for v in (x, lo, hi) if v is not None]
    frame = _Frame(_range(values), (0.0, 1.0), w, h)
    frame.left = 104
    b, lft, r = h - frame.bottom, frame.left, w - frame.right
    out = [_open(w, h, title, desc, ident)]
    for v in _ticks(frame.x0, frame.x1, 4):
        tick = _f(frame.px(v))
        out.append(
            f'<line x1="{tick}" x2="{tick}" y1="{frame.top}" y2="{b}" class="grid"/>'
            f'<text x="{tick}" y="{b + 16}" text-anchor="middle">{_label(v)}</text>'
        )
    out.append(f'<line x1="{lft}" x2="{r}" y1="{b}" y2="{b}" class="axis"/>')
    out.append(
        f'<text x="{(lft + r) / 2:.0f}" y="{h - 6}" text-anchor="middle">{escape(xlabel)}</text>'
    )
    for i, (name, x, lo, hi) in enumerate(rows):
        y = _f(frame.top + step * (i + 0.5))
        short = name if len(name) <= 14 else name[:13] + "…"
        out.append(f'<text x="{lft - 6}" y="{y}" dy="4" text-anchor="end">{escape(short)}</text>')
        if lo is not None and hi is not None:
            out.append(
                f'<line x1="{_f(frame.px(lo))}" x2="{_f(frame.px(hi))}" y1="{y}" y2="{y}" '
                f'stroke="{colour(i)}" stroke-width="2"/>'
            )
        out.append(f'<circle cx="{_f(frame.px(x))}" cy="{y}" r="5" fill="{colour(i)}"/>')
    out.append("</svg>")
    return "".join(out)
