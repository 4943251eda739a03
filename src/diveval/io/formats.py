"""Input formats, one table: for each format its name, how a path is recognised as it, how it is
read into records, how Ray Data reads it, and how rows are written back in it.

Every reader asks this table and nothing else: ``diveval score`` and :func:`diveval.read`
(``io.readers``), ``read_records`` (``correlate``, contexts), the prompts of ``diveval sample``,
``engine="ray"`` (``scale.ray_read``) and the per-item rows of ``score --items``
(``report.item_rows``). Adding a format is adding one entry to ``FORMATS``; e.g. gzip'd JSON lines
(read from the path, so ``binary``; Ray reads them as it reads JSON lines):

    Format(
        "jsonl.gz",
        suffixes=(".jsonl.gz",),
        shape=RECORDS,
        binary=True,
        rows=lambda path, text: jsonl_records(path, gzip.open(path, "rt").read()),
        ray=lambda ray, path: ray.data.read_json(path, lines=True),
    )

A format's ``shape`` says how ``read_input`` turns it into items: ``LINES`` (one response per
line), ``TABLE`` (a header and a ``response`` or ``resp_N`` columns) or ``RECORDS`` (objects
whose ``responses`` / ``response`` field holds the text; see ``io.readers``). A path is matched by
the first entry whose ``folder`` test takes it, else by its ending (case ignored), else it is
text. Standard input has no ending: ``sniff`` reads its content.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional

from ..errors import InputError
from . import json_out
from .columnar import datasets_records, datasets_table, is_datasets_folder, parquet_records
from .csv_rows import csv_rows, csv_text, header_cells
from .json_records import json_records, jsonl_records

LINES, TABLE, RECORDS = "lines", "table", "records"

Rows = Callable[[str, str], Iterable[tuple[int, Any]]]


@dataclass(frozen=True)
class Format:
    """One input format. ``rows(path, text)``: its (line or row, record) pairs (``text`` is the
    file's text; a ``binary`` format reads ``path`` itself and gets ``""``); None when it has no
    records (plain text). ``ray(ray, path)``: a Ray Dataset of it, or None. ``write(rows)``: the
    text of rows written in it, or None."""

    name: str
    suffixes: tuple[str, ...] = ()
    shape: str = RECORDS
    rows: Optional[Rows] = None
    binary: bool = False  # read from the path (pyarrow), not as UTF-8 text; its unit is a row
    tab: bool = False  # a TABLE whose cells are tab-separated
    folder: Optional[Callable[[str], bool]] = None  # a folder that is one input of this format
    ray: Optional[Callable[[Any, str], Any]] = None
    write: Optional[Callable[[list[dict[str, Any]]], str]] = None

    @property
    def unit(self) -> str:
        """What a record's ``_line`` counts: lines of a text, rows of a binary file."""
        return "row" if self.binary else "line"


def _json_lines(rows: list[dict[str, Any]]) -> str:
    return "".join(json_out.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def _read_json_lines(ray: Any, path: str) -> Any:
    return ray.data.read_json(path, lines=True)


def _read_parquet(ray: Any, path: str) -> Any:
    return ray.data.read_parquet(path)


def _read_datasets(ray: Any, path: str) -> Any:
    # Arrow stream files, memory-mapped: into the object store
    return ray.data.from_arrow(datasets_table(path))


def _parquet_folder(path: str) -> bool:
    return os.path.isdir(path) and not is_datasets_folder(path)


#: Every format. A path is matched by folder tests first, then by ending; one that no entry
#: takes is text (``DEFAULT``).
FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("txt", (".txt",), LINES),
        Format(
            "jsonl",
            (".jsonl", ".ndjson"),
            RECORDS,
            jsonl_records,
            ray=_read_json_lines,
            write=_json_lines,
        ),
        # a .json file is one JSON array or JSON lines (see io.json_records); Ray reads lines
        Format("json", (".json",), RECORDS, json_records, ray=_read_json_lines, write=_json_lines),
        Format(
            "csv",
            (".csv",),
            TABLE,
            lambda path, text: csv_rows(path, text)[1],
            write=csv_text,
        ),
        Format(
            "tsv",
            (".tsv",),
            TABLE,
            lambda path, text: csv_rows(path, text, tab=True)[1],
            tab=True,
            write=lambda rows: csv_text(rows, tab=True),
        ),
        # a .parquet file, or a folder of them (any folder but a datasets folder)
        Format(
            "parquet",
            (".parquet",),
            RECORDS,
            lambda path, text: parquet_records(path),
            binary=True,
            folder=_parquet_folder,
            ray=_read_parquet,
        ),
        # a Hugging Face datasets folder (save_to_disk), read with pyarrow
        Format(
            "hf",
            (),
            RECORDS,
            lambda path, text: datasets_records(path),
            binary=True,
            folder=is_datasets_folder,
            ray=_read_datasets,
        ),
    )
}
DEFAULT = "txt"


def get_format(name: str, path: Optional[str] = None) -> Format:
    """The format called ``name`` (``--format``), or an InputError listing them."""
    if name not in FORMATS:
        raise InputError(f"unknown format {name!r}; choose one of {', '.join(FORMATS)}", path)
    return FORMATS[name]


def detect(path: str, name: Optional[str] = None) -> Format:
    """The format ``name`` names, else the one of ``path``: a folder a format takes, else the
    ending, else text."""
    if name:
        return get_format(name, path)
    for f in FORMATS.values():
        if f.folder is not None and f.folder(path):
            return f
    lower = path.lower()
    for f in FORMATS.values():
        if f.suffixes and lower.endswith(f.suffixes):
            return f
    return FORMATS[DEFAULT]


def endings(formats: Iterable[Format]) -> str:
    """``.a, .b or .c``: the endings of ``formats``, for messages."""
    names = [s for f in formats for s in f.suffixes]
    return ", ".join(names[:-1]) + (" or " if len(names) > 1 else "") + names[-1]


def for_writing(path: str, what: str) -> Format:
    """The format rows written to ``path`` take (by its ending), or an InputError naming the
    endings that can be written (``what``: the output, for the message)."""
    lower = path.lower()
    for f in FORMATS.values():
        if f.write is not None and f.suffixes and lower.endswith(f.suffixes):
            return f
    writable = [f for f in FORMATS.values() if f.write is not None]
    raise InputError(f"{what} must end in {endings(writable)}", path)


def for_ray(path: str) -> Format:
    """The format Ray Data reads ``path`` as, or an InputError naming the ones it can read."""
    f = detect(path)
    if f.ray is None:
        readable = [g for g in FORMATS.values() if g.ray is not None]
        raise InputError(
            f"engine='ray' reads {endings(readable)} files, a folder of Parquet files or a "
            "datasets folder",
            path,
        )
    return f


_RESP_COLUMN = re.compile(r"resp_\d+")
_COLUMN_NAME = re.compile(r"[A-Za-z_][\w.\-]*")


def sniff(text: str, field: Optional[str] = None) -> Format:
    """The format of standard input without a --format, from its content (files go by ending).

    ``{`` or ``[`` first: JSON (lines or an array). A first line that is a CSV header (tab-
    separated when it has a tab) naming a ``response`` or ``resp_N`` column, or the column given
    as ``field`` (text has no columns): CSV/TSV. A first line of several bare column names with a
    second line of as many cells, but no response column: an error asking for ``--format``
    (reading it as text would score its header). Anything else: text, one response per line.
    """
    if text.lstrip()[:1] in ("{", "["):
        return FORMATS["json"]
    lines = text.split("\n", 2)
    header = lines[0].rstrip("\r")
    tab = "\t" in header
    kind = "tsv" if tab else "csv"
    cells = header_cells(header, tab)
    if field is not None or any(c == "response" or _RESP_COLUMN.fullmatch(c) for c in cells):
        return FORMATS[kind]
    if (
        len(cells) >= 2
        and all(_COLUMN_NAME.fullmatch(c) for c in cells)
        and len(lines) > 1
        and len(header_cells(lines[1].rstrip("\r"), tab)) == len(cells)
    ):
        raise InputError(
            f"looks like a {kind.upper()} table (columns {', '.join(cells)}) with no "
            f'"response" or "resp_0" column: give --format {kind} --column NAME, or --format txt '
            "to score its lines as text",
            "<stdin>",
            1,
        )
    return FORMATS[DEFAULT]
