"""The groups of one input's records by a field (``--by``: a system, a model, a condition), as
``score``, ``compare``, ``leaderboard`` and ``rarefy`` read them."""

from __future__ import annotations

from typing import Any

from ..errors import InputError


def groups_by_field(data: Any, by: str | None) -> dict[Any, list[int]]:
    """{value of the record field ``by``: item indices}, in the order the values first appear;
    without ``by``, one group (None) of every item. A file whose records lack the field, or a
    record without a value for it, is an InputError naming the file (and the line)."""
    if not by:
        return {None: list(range(len(data.items)))}
    records = data.records or []
    if not records or by not in records[0]:
        fields = sorted(k for k in (records[0] if records else {}) if k != "_line")
        raise InputError(
            f"no field {by!r} to group by; the records have {', '.join(fields) or 'no fields'}",
            data.path,
        )
    groups: dict[Any, list[int]] = {}
    for i, rec in enumerate(records):
        if rec.get(by) is None:
            raise InputError(f"no {by!r} value", data.path, rec.get("_line"))
        groups.setdefault(str(rec[by]), []).append(i)
    return groups
