"""Human-readable tables and machine-readable JSON for lists of Scores."""

from __future__ import annotations

import io
from typing import Any, Iterable, Mapping, Sequence

from ..io import json_out
from ..results import Score


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``"1 response"``, ``"2 responses"``: a count with its noun (``plural`` where the noun
    does not just take an -s: ``counted(2, "class", "classes")``)."""
    return f"{n} {noun}" if n == 1 else f"{n} {plural or noun + 's'}"


def scores_to_json(
    scores: Mapping[str, Score], meta: Mapping[str, Any] | None = None, with_items: bool = False
) -> str:
    out = dict(meta or {})
    out["scores"] = {name: s.to_dict(with_items) for name, s in scores.items()}
    return json_out.dumps(out, indent=2, ensure_ascii=False)


def render_table(title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A plain-text table drawn by rich, returned as a string (no colour codes)."""
    from rich.console import Console
    from rich.table import Table

    rows = [list(r) for r in rows]
    table = Table(title=title, title_justify="left")
    for i, col in enumerate(columns):
        numeric = bool(rows) and all(
            isinstance(r[i], (int, float)) for r in rows if r[i] is not None
        )
        table.add_column(col, justify="right" if numeric else "left", overflow="fold")
    for row in rows:
        table.add_row(*[_cell(v) for v in row])
    console = Console(
        width=160, no_color=True, force_terminal=False, record=True, file=io.StringIO()
    )
    console.print(table)
    return "\n".join(line.rstrip() for line in console.export_text().rstrip("\n").splitlines())


def scores_table(scores: Mapping[str, Score], title: str) -> str:
    rows = [(name, s.value, s.signature) for name, s in scores.items()]
    return render_table(title, ["metric", "value", "signature"], rows)


def groups_table(
    results: Mapping[str, Mapping[str, Score]], sizes: Mapping[str, int], title: str
) -> str:
    """Metrics as rows, groups (e.g. systems) as columns; signatures below the table."""
    groups = list(results)
    names = list(next(iter(results.values()))) if results else []
    rows = [[name] + [results[g][name].value for g in groups] for name in names]
    columns = ["metric"] + [f"{g} (n={sizes[g]})" for g in groups]
    table = render_table(title, columns, rows)
    sigs = [f"{name}: {results[groups[0]][name].signature}" for name in names]
    return table + "\n" + "\n".join(sigs)


#: Systems up to which the terminal shows the whole systems x systems similarity; past it, a
#: matrix no longer fits a terminal (24 systems: 25 columns), so it lists the most alike pairs
#: and leaves the matrix to --json and the HTML report's heatmap.
ACROSS_MATRIX_UP_TO = 6
ACROSS_PAIRS_SHOWN = 10


def across_table(result: Any, title: str) -> str:
    """The alpha / beta / gamma decomposition (``meta.estimation.metacommunity.AcrossSystems``): one
    row per measure with its interval, then how alike the systems are (the systems x systems similarity,
    or, past ``ACROSS_MATRIX_UP_TO`` systems, the most alike pairs), what the similarity makes of
    the numbers, and the signature."""
    meaning = {
        "gamma": "diversity of the pooled answers",
        "alpha": "diversity of one system alone (normalised)",
        "beta": "effective number of distinct systems (normalised; 1 = all alike)",
        "raw_alpha": "Reeve's raw alpha",
        "raw_beta": "Reeve's raw beta",
    }
    rows = []
    for name, what in meaning.items():
        iv = result.intervals[name]
        rows.append([name, result.values[name], f"[{iv.low:.4f}, {iv.high:.4f}]", what])
    n = len(result.prompts)
    table = render_table(
        f"{title}: {counted(n, 'prompt')} answered by all {len(result.systems)} systems",
        ["measure", "value", f"{result.intervals['beta'].confidence:.0%} interval", "meaning"],
        rows,
    )
    if len(result.systems) <= ACROSS_MATRIX_UP_TO:
        sims = render_table(
            "mean similarity, same prompt",
            ["system", *result.systems],
            [
                [a, *[float(x) for x in row]]
                for a, row in zip(result.systems, result.similarity_matrix)
            ],
        )
    else:
        pairs = result.most_alike(ACROSS_PAIRS_SHOWN)
        sims = render_table(
            f"the {len(pairs)} most alike of {counted(len(result.most_alike()), 'pair')}",
            ["systems", "mean similarity, same prompt"],
            [[f"{a} ~ {b}", v] for a, b, v in pairs],
        )
        sims += (
            f"\n(the {len(result.systems)} x {len(result.systems)} matrix, and each system's own "
            "similarity: --json similarity_matrix, or the heatmap of `diveval report`)"
        )
    return f"{table}\n{sims}\n{_wrapped(result.reading())}\n{result.signature}"


def _wrapped(text: str, width: int = 100) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width))


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4f}"
    return str(v)


def level_lines(results: Sequence[Any], title: str) -> str:
    """The scores of one reporting level (``meta.estimation.levels``), a line each under
    ``title``: value, interval, direction and signature."""
    lines = [title]
    for r in results:
        iv = r.interval
        lines.append(
            f"{r.metric:24s} {r.value:.4f}  [{iv.low:.4f}, {iv.high:.4f}] "
            f"({iv.confidence:.0%}; {r.direction} = more diverse)  {r.signature}"
        )
    return "\n".join(lines)
