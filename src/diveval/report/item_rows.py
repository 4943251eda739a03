"""Per-item and per-group rows of a score run, written as CSV or JSON lines for `correlate`.

Item rows: one per set (sets setting) or response (corpus), with the input record's own fields
(ids, system, human scores; nested values as JSON text in CSV) and one column per metric that has
per-item values. Group rows (``--by``): one per group, with its size (``_n``), each metric's
value, and the mean of every numeric record field of the group (e.g. a human score per system;
never an id).
"""

from __future__ import annotations

import math
from typing import Any

from ..io import json_out
from ..io.formats import for_writing
from ..io.numbers import is_label, numbers_of
from ..io.writers import write_atomic

_TEXT_FIELDS = {"responses", "response", "references", "all_references", "reference_groups"}


def _record_fields(rec: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in rec.items() if k not in _TEXT_FIELDS}


def item_rows(data, groups: dict, results: dict, by: str | None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for group, index in groups.items():
        scores = results[group]
        for k, i in enumerate(index):
            row = {"_line": data.line_of(i)}
            row.update(_record_fields(data.records[i]) if data.records else {})
            if data.setting == "corpus":
                row["response"] = data.items[i]
            for name, s in scores.items():
                if s.items is not None and len(s.items) == len(index):
                    row[name] = float(s.items[k])
            rows.append(row)
    return rows


def summary_rows(data, groups: dict, results: dict, by: str) -> list[dict[str, Any]]:
    """One row per group: the group, its size as ``_n`` (bookkeeping: `correlate` skips columns
    that start with ``_``), the mean of every numeric record field, and each metric's value.

    A field is averaged only when every record of the group holds a number in it and it is not a
    label (``_`` first or an identifier such as ``context_id``); both rules are
    ``diveval.io.numbers``'.
    """
    rows = []
    for group, index in groups.items():
        row: dict[str, Any] = {by: group, "_n": len(index)}
        records = [data.records[i] for i in index]
        fields = [k for k in records[0] if k not in _TEXT_FIELDS and k != by and not is_label(k)]
        for f in fields:
            values = numbers_of([r.get(f) for r in records])
            if values and all(math.isfinite(v) for v in values):
                row[f] = sum(values) / len(values)
        for name, s in results[group].items():
            row[name] = s.value
        rows.append(row)
    return rows


def write_rows(path: str, rows: list[dict[str, Any]]) -> None:
    """Rows in the format of the path's ending (``io.formats``: CSV/TSV, or JSON lines for
    .jsonl/.json); an ending no format writes is an error."""
    fmt = for_writing(path, "per-item output")
    assert fmt.write is not None
    # CSV cells too: str(-0.0) is "-0.0"
    write_atomic(path, fmt.write(json_out.without_negative_zero(rows)))
