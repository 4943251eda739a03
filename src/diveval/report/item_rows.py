"""Per-item and per-group rows of a score run, written as CSV or JSON lines for `correlate`.

Item rows: one per set (sets setting) or response (corpus), with the input record's own fields
(ids, system, human scores; nested values as JSON text in CSV) and one column per metric that has
per-item values, and beside it the per-set details a reader needs to see what was counted: the
class of each response (``METRIC.labels``, e.g. ``equivalence-classes.labels`` = ``[0, 0, 1]``:
the first two responses were grouped) and equivalence-classes' utility (``METRIC.utility``). Group rows (``--by``): one per group, with its size (``_n``), each metric's
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

_TEXT_FIELDS = {
    "responses",
    "response",
    "generations",
    "references",
    "all_references",
    "reference_groups",
}
#: Per-set details that go into item rows as ``METRIC.KEY`` columns.
ITEM_DETAILS = ("labels", "utility")


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
                    row.update(_item_details(name, s.details, k, len(index)))
            rows.append(row)
    return rows


def _item_details(name: str, details: Any, k: int, n: int) -> dict[str, Any]:
    """The ``ITEM_DETAILS`` of set ``k`` (of ``n``) as ``METRIC.KEY`` columns: class labels as a
    list of numbers (semantic-entropy keeps them as a string, "0 1 0"), numbers as floats."""
    out: dict[str, Any] = {}
    for key in ITEM_DETAILS:
        value = details.get(key)
        if value is None or not hasattr(value, "__len__") or len(value) != n:
            continue
        v = value[k]
        if isinstance(v, str):
            v = [int(x) for x in v.split()]
        out[f"{name}.{key}"] = [int(x) for x in v] if isinstance(v, (list, tuple)) else float(v)
    return out


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
