"""CSV and tab-separated text: rows read with the line each starts on, and rows written back.

Reading refuses a quote that opens a field and never closes (the csv module would read the rest
of the file as one cell) and lifts the csv module's 128 KiB cell limit (a long generated response
is still a response). Writing puts nested values (lists, dicts) in a cell as JSON text.
"""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any, Iterator

from ..errors import InputError

_CSV_FIELD_LIMIT = 2**31 - 1  # the largest the C long of every platform holds


_QUOTED_FIELD = re.compile(
    r'"[^"]*(?:""[^"]*)*"(?!")'
)  # "...", "" a quote inside; (?!") no backtracking


def unclosed_quote(text: str, delimiter: str) -> int | None:
    """The offset of a quote that opens a field and never closes, or None.

    The csv module reads such a quote to the end of the file as one cell (every later line then
    becomes part of one response), so it is looked for here, with the csv module's own rules: a
    quote opens a field only at the field's start, ``""`` inside a quoted field is a quote, any
    other quote closes it (what follows up to the delimiter is kept as text). One regular
    expression match per quoted field: about the csv module's own time on quote-heavy files.
    """
    pos = 0
    while True:
        q = text.find('"', pos)
        if q < 0:
            return None
        if q == 0 or text[q - 1] in (delimiter, "\n", "\r"):
            m = _QUOTED_FIELD.match(text, q)
            if m is None:
                return q
            pos = m.end()
        else:
            pos = q + 1  # a quote inside an unquoted field is a character


def header_cells(line: str, tab: bool) -> list[str]:
    """The cells of one header line ([] when it is not CSV)."""
    try:
        return next(csv.reader([line], dialect="excel-tab" if tab else "excel"), [])
    except csv.Error:
        return []


def csv_rows(
    path: str, text: str, tab: bool = False
) -> tuple[list[str], Iterator[tuple[int, dict[str, Any]]]]:
    """(header, iterator of (line number, row)) of a CSV (or, with ``tab``, tab-separated) text."""
    dialect = "excel-tab" if tab else "excel"
    opened = unclosed_quote(text, "\t" if tab else ",")
    if opened is not None:
        raise InputError(
            "a quote opens a field here and never closes (the rest of the file would be one "
            'cell); close it, or double a quote inside a quoted field ("")',
            path,
            text.count("\n", 0, opened) + 1,
        )
    csv.field_size_limit(_CSV_FIELD_LIMIT)
    # csv.reader, not DictReader: a record's line is where it starts, and DictReader's line_num
    # is where it ends (a quoted cell can hold line breaks)
    reader = csv.reader(io.StringIO(text, newline=""), dialect=dialect)
    try:
        fields = next(reader, [])
    except csv.Error as exc:
        raise InputError(f"malformed CSV ({exc})", path, 1) from None

    def rows() -> Iterator[tuple[int, dict[str, Any]]]:
        start = reader.line_num + 1
        try:
            for cells in reader:
                if cells:  # blank lines are no records (as DictReader skips them)
                    if len(cells) > len(fields):
                        raise InputError("more fields than the header has", path, start)
                    # a short row's missing cells are None, as DictReader's
                    yield start, dict(zip(fields, cells + [None] * (len(fields) - len(cells))))
                start = reader.line_num + 1
        except csv.Error as exc:
            raise InputError(f"malformed CSV ({exc})", path, reader.line_num) from None

    return fields, rows()


def csv_text(rows: list[dict[str, Any]], tab: bool = False) -> str:
    """Rows as CSV (tab-separated with ``tab``): every key of any row a column, in first-seen
    order; nested values as JSON text, written as the UTF-8 it is (no \\u escapes)."""
    columns: list[str] = []
    for r in rows:
        columns += [k for k in r if k not in columns]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, columns, dialect="excel-tab" if tab else "excel")
    writer.writeheader()
    for r in rows:
        writer.writerow(
            {
                k: json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else v
                for k, v in r.items()
            }
        )
    return buf.getvalue()
