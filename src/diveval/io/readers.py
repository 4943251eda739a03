"""Input readers. Every problem becomes an InputError naming the file, the line and the problem.

Formats, by file ending (or ``fmt=``):
- ``.txt``: one response per line -> corpus. Blank lines are responses too (empty ones), except a
  single trailing newline.
- ``.jsonl``: one JSON object per line -> sets: ``{"context": ..., "responses": [...],
  "references": [...], "reference_groups": [[...], ...]}``; only ``responses`` is required. A
  file whose records carry ``"response"`` (one string) instead is a corpus.
- ``.csv``: a ``response`` column -> corpus; ``resp_0..resp_k`` columns -> sets (the Tevet &
  Berant format). Other columns are kept in ``records`` (labels, human scores).
"""

from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import dataclass, field
from typing import Any, Iterator

from ..errors import InputError
from ..results import CORPUS, SETS

FORMATS = ("txt", "jsonl", "csv")


@dataclass(frozen=True)
class InputData:
    path: str
    setting: str
    items: list  # list[str] (corpus) or list[list[str]] (sets)
    records: list[dict[str, Any]] = field(default_factory=list)  # the raw rows, one per item

    def column(self, name: str) -> list[Any]:
        return [r.get(name) for r in self.records]


def read_text(path: str) -> str:
    """The whole file as text; a missing file or bytes that are not UTF-8 are InputErrors."""
    if not os.path.exists(path):
        raise InputError("no such file", path)
    if os.path.isdir(path):
        raise InputError("is a folder, not a file", path)
    with open(path, "rb") as fh:
        raw = fh.read()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(f"not valid UTF-8 (byte {exc.start} of the file)", path, line) from None


def detect_format(path: str, fmt: str | None = None) -> str:
    if fmt:
        if fmt not in FORMATS:
            raise InputError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}", path)
        return fmt
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext in ("jsonl", "ndjson"):
        return "jsonl"
    if ext in ("csv", "tsv"):
        return "csv"
    return "txt"


def read_input(path: str, fmt: str | None = None) -> InputData:
    kind = detect_format(path, fmt)
    text = read_text(path)
    reader = {"txt": _read_txt, "jsonl": _read_jsonl, "csv": _read_csv}[kind]
    data = reader(path, text)
    if not data.items:
        raise InputError("no responses in the file", path)
    return data


def _read_txt(path: str, text: str) -> InputData:
    if text.endswith("\n"):
        text = text[:-1]
    lines = text.split("\n") if text else []
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    return InputData(path, CORPUS, lines, [])


def _string_list(value: Any, key: str, path: str, line: int) -> list[str]:
    if not isinstance(value, list):
        raise InputError(
            f'"{key}" must be a list of strings, got {type(value).__name__}', path, line
        )
    for i, v in enumerate(value):
        if not isinstance(v, str):
            raise InputError(f'"{key}"[{i}] must be a string, got {type(v).__name__}', path, line)
    return value


def _jsonl_records(path: str, text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of every non-blank line of a JSON lines text."""
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"malformed JSON ({exc.msg}, column {exc.colno})", path, lineno
            ) from None
        if not isinstance(rec, dict):
            raise InputError(
                f"each line must be a JSON object, got {type(rec).__name__}", path, lineno
            )
        yield lineno, rec


def _csv_rows(path: str, text: str) -> tuple[list[str], Iterator[tuple[int, dict[str, Any]]]]:
    """(header, iterator of (line number, row)) of a CSV (or, for .tsv, tab-separated) text."""
    dialect = "excel-tab" if path.lower().endswith(".tsv") else "excel"
    reader = csv.DictReader(io.StringIO(text, newline=""), dialect=dialect)
    try:
        fields = list(reader.fieldnames or [])
    except csv.Error as exc:
        raise InputError(f"malformed CSV ({exc})", path, 1) from None

    def rows() -> Iterator[tuple[int, dict[str, Any]]]:
        try:
            for row in reader:
                if None in row:
                    raise InputError("more fields than the header has", path, reader.line_num)
                yield reader.line_num, row
        except csv.Error as exc:
            raise InputError(f"malformed CSV ({exc})", path, reader.line_num) from None

    return fields, rows()


def iter_jsonl(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of every non-blank line of a JSON lines file."""
    return _jsonl_records(path, read_text(path))


def read_records(path: str, fmt: str | None = None) -> list[dict[str, Any]]:
    """Every row of a CSV/TSV (with a header) or JSON lines file, as dicts with their ``_line``."""
    kind = detect_format(path, fmt)
    if kind == "txt" and path.lower().endswith(".json"):
        kind = "jsonl"  # DailyDialog++ and others name JSON lines files .json
    if kind == "txt":
        raise InputError("expected a .csv, .tsv or .jsonl file", path)
    text = read_text(path)
    pairs = _jsonl_records(path, text) if kind == "jsonl" else _csv_rows(path, text)[1]
    records = [dict(rec, _line=lineno) for lineno, rec in pairs]
    if not records:
        raise InputError("no rows", path)
    return records


#: Keys that hold responses in the JSON lines formats diveval reads (DailyDialog++ included).
RESPONSE_KEYS = ("response", "responses", "positive_responses")


def read_responses(path: str, fmt: str | None = None) -> list[str]:
    """Every response of a file as one flat list: lines of a .txt, every response of every set,
    or, in JSON lines, the strings under any of RESPONSE_KEYS."""
    kind = detect_format(path, fmt)
    if kind == "txt" and path.lower().endswith(".json"):
        kind = "jsonl"
    if kind != "jsonl":
        data = read_input(path, kind)
        return [t for s in data.items for t in s] if data.setting == SETS else list(data.items)
    texts: list[str] = []
    for lineno, rec in _jsonl_records(path, read_text(path)):
        keys = [k for k in RESPONSE_KEYS if k in rec]
        if not keys:
            raise InputError(f"record has none of {', '.join(RESPONSE_KEYS)}", path, lineno)
        for key in keys:
            value = rec[key]
            texts.extend(
                [value] if isinstance(value, str) else _string_list(value, key, path, lineno)
            )
    if not texts:
        raise InputError("no responses in the file", path)
    return texts


def _read_jsonl(path: str, text: str) -> InputData:
    items: list = []
    records: list[dict[str, Any]] = []
    setting = None
    for lineno, rec in _jsonl_records(path, text):
        if "responses" in rec:
            kind, item = SETS, _string_list(rec["responses"], "responses", path, lineno)
        elif "response" in rec:
            if not isinstance(rec["response"], str):
                raise InputError(
                    f'"response" must be a string, got {type(rec["response"]).__name__}',
                    path,
                    lineno,
                )
            kind, item = CORPUS, rec["response"]
        else:
            raise InputError(
                'record has neither "responses" (a list) nor "response" (a string)', path, lineno
            )
        if setting is None:
            setting = kind
        elif kind != setting:
            raise InputError('mixes "response" and "responses" records', path, lineno)
        for key in ("references",):
            if key in rec:
                _string_list(rec[key], key, path, lineno)
        if "reference_groups" in rec:
            groups = rec["reference_groups"]
            if not isinstance(groups, list):
                raise InputError(
                    '"reference_groups" must be a list of lists of strings', path, lineno
                )
            for g in groups:
                _string_list(g, "reference_groups", path, lineno)
        rec["_line"] = lineno
        items.append(item)
        records.append(rec)
    return InputData(path, setting or CORPUS, items, records)


def _read_csv(path: str, text: str) -> InputData:
    fields, rows = _csv_rows(path, text)
    resp_cols = sorted(
        (f for f in fields if f.startswith("resp_") and f[5:].isdigit()), key=lambda f: int(f[5:])
    )
    if "response" not in fields and not resp_cols:
        raise InputError(
            'needs a "response" column (corpus) or "resp_0".."resp_k" columns (sets); '
            f"found {', '.join(fields) or 'no header'}",
            path,
            1,
        )
    items: list = []
    records: list[dict[str, Any]] = []
    for lineno, row in rows:
        if resp_cols:
            missing = [c for c in resp_cols if row.get(c) is None]
            if missing:
                raise InputError(f"missing field {missing[0]!r}", path, lineno)
            items.append([row[c] for c in resp_cols])
        else:
            if row.get("response") is None:
                raise InputError('missing field "response"', path, lineno)
            items.append(row["response"])
        row["_line"] = lineno
        records.append(row)
    return InputData(path, SETS if resp_cols else CORPUS, items, records)
