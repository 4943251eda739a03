"""Input readers. Every problem becomes an InputError naming the file, the line and the problem.

Formats, by file ending (or ``fmt=`` / ``--format``; the table of them is ``io.formats``):
- ``.txt``: one response per line -> corpus.
- ``.jsonl``: one JSON object per line; ``.json``: JSON lines, or one JSON array (of objects, of
  strings, or of lists of strings). In objects the text is ``"responses"`` (a list -> sets),
  ``"response"`` (a string -> corpus) or ``"generations"`` (a list -> sets: NoveltyBench's
  ``generations.jsonl`` / ``scores.jsonl``), the first of them a record holds, or the field named
  by ``field=`` / ``--field`` (e.g. DailyDialog++'s ``positive_responses``). ``"references"`` (SCARCE's ``"all_references"`` too)
  and ``"reference_groups"`` feed the reference-based metrics. ``"logprobs"`` beside a
  ``"responses"`` list: one sequence log-probability per response, in the same order
  (semantic-entropy weights its classes by them); dropped with the empty responses they align with.
  The fields named by ``per_response=`` (a stored partition, per-response scores) are checked and
  dropped the same way: one entry per response of the set.
- ``.csv`` / ``.tsv``: a ``response`` column (or the column named by ``field=`` / ``--column``)
  -> corpus; ``resp_0..resp_k`` columns -> sets (the Tevet & Berant format).
- ``.parquet`` and a Hugging Face ``datasets`` folder (``save_to_disk``): records as above.
- ``-``: standard input, read as ``fmt=`` says or sniffed from its content: JSON lines when it
  starts with ``{``, a JSON array with ``[``, CSV/TSV when its first line is a header with a
  ``response`` or ``resp_N`` column (or the ``field=`` column), else text; a table without a
  response column is an error asking for ``--format`` (see ``io.formats.sniff``).
Other fields are kept in ``records`` (ids, systems, human scores), with ``_line``: the line (or, in
Parquet and datasets folders, the row) each record came from.

Empty responses (blank or whitespace-only lines, empty cells or strings), in every format: skipped,
never scored as responses. Their lines are listed in ``InputData.skipped`` (the CLI prints a note);
a set left with no response is skipped the same way. A file with nothing left is an error.
"""

from __future__ import annotations

import os
import re
import sys
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from ..data import is_empty
from ..errors import InputError, did_you_mean
from ..results import CORPUS, SETS
from .csv_rows import csv_rows
from .formats import FORMATS, LINES, RECORDS, Format, detect, endings, sniff
from .json_records import jsonl_records

__all__ = ["FORMATS", "InputData", "read", "read_input", "read_records", "read_responses"]

STDIN = "-"
#: Record fields that hold a response text (or list of them) when no field is named, the first
#: one a record holds (NoveltyBench's files hold their k answers under "generations").
TEXT_FIELDS = ("responses", "response", "generations")
#: Of those, the ones whose name says several responses: a string there is an error.
LIST_FIELDS = ("responses", "generations")


class LineRecords(Sequence):
    """The records of a text file, ``{"_line": n}`` each, made when asked for: a list of a
    million one-key dicts takes about 200 MB to hold nothing but line numbers. ``lines``: the
    line of each item (a ``range`` when no line was skipped, else an ``array``)."""

    __slots__ = ("_lines",)

    def __init__(self, lines: Sequence[int]):
        self._lines = lines

    def __len__(self) -> int:
        return len(self._lines)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [{"_line": n} for n in self._lines[i]]
        return {"_line": self._lines[i]}

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, LineRecords)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable-looking, like the list it stands for


def has_field(records: Sequence[dict[str, Any]], name: str) -> bool:
    """Whether any record holds ``name`` (at once for a text file's records)."""
    if isinstance(records, LineRecords):
        return name == "_line" and len(records) > 0
    return any(name in r for r in records)


@dataclass(frozen=True)
class InputData:
    path: str
    setting: str
    items: list  # list[str] (corpus) or list[list[str]] (sets)
    # the raw rows, one per item (a text file's: LineRecords)
    records: Sequence[dict[str, Any]] = field(default_factory=list)
    skipped: tuple[int, ...] = ()  # lines (rows) of the empty responses that were skipped

    def __len__(self) -> int:
        """The number of items: responses in the corpus setting, sets in the sets setting."""
        return len(self.items)

    def column(self, name: str) -> list[Any]:
        return [r.get(name) for r in self.records]

    def line_of(self, index: int) -> int | None:
        """The line (or row) item ``index`` came from."""
        if 0 <= index < len(self.records):
            return self.records[index].get("_line")
        return None

    def skipped_note(self) -> str | None:
        """One line saying which empty responses were skipped, or None."""
        if not self.skipped:
            return None
        lines = sorted(set(self.skipped))
        shown = ", ".join(map(str, lines[:5])) + (", ..." if len(lines) > 5 else "")
        n = len(self.skipped)
        return f"{self.path}: skipped {n} empty response{'s' if n > 1 else ''} (line {shown})"


# the one rule of the readers, diveval.score and the integrations
_is_empty = is_empty


_SET_INDEX = re.compile(r"\bset (\d+)\b")


def locate(err: InputError, data: InputData, index: list[int] | None = None) -> InputError:
    """A metric's error about "set N" with the file and line the set came from; ``index`` maps
    the scored items back to the file's when only some were scored (a --by group)."""
    m = _SET_INDEX.search(err.problem)
    if err.path is not None or not m:
        return err  # not about one set of this file (a model, a device, an option)
    line = None
    if m:
        i = int(m.group(1))
        if index is not None:
            i = index[i] if i < len(index) else -1
        line = data.line_of(i)
    return InputError(err.problem, data.path, line)


def read_text(path: str) -> str:
    """The whole file (or standard input, ``-``) as text; a missing file or bytes that are not
    UTF-8 are InputErrors."""
    if path == STDIN:
        raw = sys.stdin.buffer.read()
        path = "<stdin>"
    else:
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
    """The name of the format ``fmt`` names, else of the format of ``path`` (``io.formats``)."""
    return detect(path, fmt).name


def _pairs(path: str, fmt: Format, text: str | None = None) -> Iterable[tuple[int, Any]]:
    """The (line or row, record) pairs of a file in a format that has records."""
    assert fmt.rows is not None
    if fmt.binary:
        if not os.path.exists(path):
            raise InputError("no such file", path)
        return fmt.rows(path, "")
    return fmt.rows(path, read_text(path) if text is None else text)


def read_input(
    path: str,
    fmt: str | None = None,
    field: str | None = None,
    per_response: Sequence[str] = (),
) -> InputData:
    """What ``diveval score`` scores: the items of a file, their records, the skipped empties.

    field: the record field (JSON, Parquet, datasets) or CSV column that holds the responses.
    per_response: record fields that hold one entry per response of a set (e.g. a stored
    partition): each record must hold a list of the set's length there, and the entries of the
    empty responses that are skipped are dropped with them, so the lists stay aligned.
    """
    form = detect(path, fmt)
    shown = "<stdin>" if path == STDIN else path
    text = None if form.binary else read_text(path)
    if path == STDIN and not fmt:
        form = sniff(text or "", field)
    if per_response and form.shape != RECORDS:
        names = ", ".join(per_response)
        raise InputError(f"fields with one entry per response ({names}) need JSON records", shown)
    if form.shape == LINES:
        if field:
            raise InputError("--field/--column applies to JSON, CSV, Parquet and datasets", shown)
        data = _read_txt(shown, text or "")
    elif form.shape == RECORDS:
        data = _from_records(
            shown, _pairs(shown, form, text), field, unit=form.unit, per_response=per_response
        )
    else:
        data = _read_csv(shown, text or "", field, tab=form.tab)
    if not data.items:
        extra = f" ({len(data.skipped)} empty ones skipped)" if data.skipped else ""
        raise InputError(f"no responses in the file{extra}", shown)
    return data


def read(
    path: str,
    format: str | None = None,
    field: str | None = None,
    per_response: Sequence[str] = (),
) -> InputData:
    """What ``diveval score PATH`` would score: ``.items`` (a corpus or sets, ready for
    :func:`diveval.score`), ``.setting``, ``.records`` (every input field, with ``_line``) and
    ``.skipped`` (lines of the empty responses left out); ``len(data)`` is the number of items
    (responses in the corpus setting, sets in the sets setting). ``format`` and ``field`` are the
    CLI's ``--format`` and ``--field``; ``per_response``: record fields with one entry per
    response (a stored ``partition``, ``generation_scores``), checked and kept aligned with the
    responses (``data.column(name)`` gives them, one list per set).

    >>> import diveval, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "r.txt")
    >>> _ = open(path, "w").write("a b\\n\\nb c\\n")
    >>> data = diveval.read(path)
    >>> data.items, data.skipped, len(data)
    (['a b', 'b c'], (2,), 2)
    """
    return read_input(path, format, field, per_response)


def _read_txt(path: str, text: str) -> InputData:
    if text.endswith("\n"):
        text = text[:-1]
    lines = text.split("\n") if text else []
    skipped = []
    for lineno, line in enumerate(lines, start=1):
        if line.endswith("\r"):
            line = lines[lineno - 1] = line[:-1]
        if _is_empty(line):
            skipped.append(lineno)
    if not skipped:
        return InputData(path, CORPUS, lines, LineRecords(range(1, len(lines) + 1)), ())
    gone = set(skipped)
    kept = array("q", (n for n in range(1, len(lines) + 1) if n not in gone))
    items = [line for n, line in enumerate(lines, start=1) if n not in gone]
    return InputData(path, CORPUS, items, LineRecords(kept), tuple(skipped))


def _not_strings(value: Any, key: str) -> str | None:
    """Why ``value`` is not a list of strings (naming the first bad entry), or None."""
    if not isinstance(value, list):
        return f'"{key}" must be a list of strings, got {type(value).__name__}'
    for i, v in enumerate(value):
        if not isinstance(v, str):
            return f'"{key}"[{i}] must be a string, got {type(v).__name__}'
    return None


def _text_fields(rec: dict[str, Any]) -> list[str]:
    """The fields of a record that could hold responses (a string, a list of strings, or a list
    of objects whose fields do: name those as FIELD.SUBFIELD)."""
    out = []
    for k, v in rec.items():
        if isinstance(v, str) or (isinstance(v, list) and v and all(isinstance(x, str) for x in v)):
            out.append(f"{k} ({'text' if isinstance(v, str) else 'list'})")
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            inner = [f"{k}.{f}" for f in _text_fields(v[0])]
            if inner:
                out.append(f"{k} (objects: {', '.join(f.split(' ')[0] for f in inner)})")
    return out


def _expand(rec: dict[str, Any], field: str | None) -> list[tuple[dict[str, Any], str | None]]:
    """(record, key) pairs for a field name; ``A.B`` takes field B of every object in list A
    (e.g. multirefeval's ``dialogue.responses``: one set per turn), each with its parent's
    other fields and its position as ``A_index``; objects without field B are passed over."""
    if not field or "." not in field or field in rec:
        return [(rec, field)]
    outer, inner = field.split(".", 1)
    value = rec.get(outer)
    if not isinstance(value, list) or not all(isinstance(x, dict) for x in value):
        return [(rec, field)]  # reported as a missing field below
    parent = {k: v for k, v in rec.items() if k != outer}
    out = []
    for i, sub in enumerate(value):
        if inner.split(".", 1)[0] not in sub:
            continue  # an object without the field holds no responses (a dialogue's last turn)
        for child, key in _expand(sub, inner):
            out.append(({**parent, **child, f"{outer}_index": i}, key))
    return out


def _from_records(
    path: str,
    pairs: Iterable[tuple[int, Any]],
    field: str | None,
    unit: str = "line",
    per_response: Sequence[str] = (),
) -> InputData:
    """Items from JSON / Parquet / datasets records (see the module docstring)."""
    reader = _RecordReader(path, unit, per_response)
    for where, rec in pairs:
        if isinstance(rec, str):
            rec = {"response": rec}
        elif isinstance(rec, list):
            rec = {"responses": rec}
        elif not isinstance(rec, dict):
            raise reader.error(f"a record must be an object, got {type(rec).__name__}", where)
        for one, key in _expand(rec, field):
            reader.add(one, key, where)
    return InputData(
        path, reader.setting or CORPUS, reader.items, reader.records, tuple(reader.skipped)
    )


class _RecordReader:
    """Validates records one by one and collects their items, records and skipped empties."""

    def __init__(self, path: str, unit: str, per_response: Sequence[str] = ()):
        self.path, self.unit = path, unit
        self.per_response = tuple(per_response)
        self.items: list = []
        self.records: list[dict[str, Any]] = []
        self.skipped: list[int] = []
        self.setting: str | None = None

    def error(self, problem: str, where: int) -> InputError:
        if self.unit == "line":
            return InputError(problem, self.path, where)
        return InputError(f"{self.unit} {where}: {problem}", self.path)

    def strings(self, value: Any, key: str, where: int) -> list[str]:
        problem = _not_strings(value, key)
        if problem:
            raise self.error(problem, where)
        return value

    def logprobs(self, value: Any, texts: list[str], where: int) -> list[float]:
        """The numbers of a ``"logprobs"`` list, one per response, less the empty responses'."""
        if not isinstance(value, list) or not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) for x in value
        ):
            raise self.error('"logprobs" must be a list of numbers, one per response', where)
        if len(value) != len(texts):
            raise self.error(
                f'"logprobs" has {len(value)} numbers for {len(texts)} responses', where
            )
        return [float(x) for x, t in zip(value, texts) if not _is_empty(t)]

    def aligned(self, rec: dict[str, Any], name: str, texts: list[str], where: int) -> list:
        """Field ``name`` of ``rec``: a list with one entry per response, less the empty
        responses' entries."""
        if name not in rec:
            names = [str(k) for k in rec]
            raise self.error(
                f'record has no field "{name}"{did_you_mean(name, names)}; its fields are '
                f"{', '.join(names)}",
                where,
            )
        value = rec[name]
        if not isinstance(value, list):
            raise self.error(
                f'"{name}" must be a list, one entry per response, got {type(value).__name__}',
                where,
            )
        if len(value) != len(texts):
            raise self.error(f'"{name}" has {len(value)} entries for {len(texts)} responses', where)
        return [x for x, t in zip(value, texts) if not _is_empty(t)]

    def add(self, rec: dict[str, Any], field: str | None, where: int) -> None:
        key = field or next((k for k in TEXT_FIELDS if k in rec), None)
        if key is None:
            fields = ", ".join(_text_fields(rec)) or "no text field"
            raise self.error(
                f'record has neither "responses" (a list), "generations" (a list) nor '
                f'"response" (a string); it has {fields}: name one with --field',
                where,
            )
        if key not in rec:
            names = [str(k) for k in rec]
            nested = [  # FIELD.SUBFIELD of a list of objects (see _expand)
                f"{k}.{f}"
                for k, v in rec.items()
                if isinstance(v, list) and v and isinstance(v[0], dict)
                for f in v[0]
            ]
            near = did_you_mean(key, names + nested)
            raise self.error(
                f'record has no field "{key}"{near}; its fields are {", ".join(names) or "none"}',
                where,
            )
        value = rec[key]
        item: Any
        if key in LIST_FIELDS and not isinstance(value, list):  # the name says several
            raise self.error(
                f'"{key}" must be a list of strings, got {type(value).__name__} '
                '(one response per record goes in "response")',
                where,
            )
        if isinstance(value, str):
            if self.per_response:
                raise self.error(
                    f'"{self.per_response[0]}" holds one entry per response of a set, but '
                    f'"{key}" is one response (a string)',
                    where,
                )
            kind, item = CORPUS, value
            if _is_empty(value):
                self.skipped.append(where)
                return
        elif isinstance(value, list):
            texts = self.strings(value, key, where)
            kind, item = SETS, [t for t in texts if not _is_empty(t)]
            if "logprobs" in rec:
                rec["logprobs"] = self.logprobs(rec["logprobs"], texts, where)
            for name in self.per_response:
                rec[name] = self.aligned(rec, name, texts, where)
            self.skipped.extend([where] * (len(texts) - len(item)))
            if not item:
                return
        else:
            raise self.error(
                f'"{key}" must be a string or a list of strings, got {type(value).__name__}', where
            )
        if self.setting is None:
            self.setting = kind
        elif kind != self.setting:
            raise self.error(
                "mixes records of one response and records of a list of responses", where
            )
        if "references" not in rec and "all_references" in rec:  # SCARCE's name
            rec["references"] = rec["all_references"]
        if "references" in rec:
            self.strings(rec["references"], "references", where)
        if "reference_groups" in rec:
            groups = rec["reference_groups"]
            if not isinstance(groups, list):
                raise self.error('"reference_groups" must be a list of lists of strings', where)
            for g in groups:
                self.strings(g, "reference_groups", where)
        rec["_line"] = where
        self.items.append(item)
        self.records.append(rec)


def iter_jsonl(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of every non-blank line of a JSON lines file."""
    return jsonl_records(path, read_text(path))


def read_records(path: str, fmt: str | None = None) -> list[dict[str, Any]]:
    """Every row of a CSV/TSV (with a header), JSON lines / JSON array, Parquet file or datasets
    folder, as dicts with their ``_line``."""
    form = detect(path, fmt)
    if form.rows is None:
        with_rows = [f for f in FORMATS.values() if f.rows is not None]
        raise InputError(f"expected a {endings(with_rows)} file", path)
    pairs = _pairs(path, form)
    records = []
    for lineno, rec in pairs:
        if not isinstance(rec, dict):
            raise InputError(
                f"each record must be an object, got {type(rec).__name__}", path, lineno
            )
        records.append(dict(rec, _line=lineno))
    if not records:
        raise InputError("no rows", path)
    return records


#: Keys that hold responses in the JSON formats diveval reads (DailyDialog++ and NoveltyBench
#: included).
RESPONSE_KEYS = ("response", "responses", "positive_responses", "generations")


def read_responses(path: str, fmt: str | None = None) -> list[str]:
    """Every response of a file as one flat list: lines of a .txt, every response of every set,
    or, in JSON, the strings under any of RESPONSE_KEYS."""
    form = detect(path, fmt)
    if form.shape != RECORDS:
        data = read_input(path, form.name)
        return [t for s in data.items for t in s] if data.setting == SETS else list(data.items)
    texts: list[str] = []
    pairs = _pairs(path, form)
    for lineno, rec in pairs:
        if not isinstance(rec, dict):
            raise InputError(
                f"each record must be an object, got {type(rec).__name__}", path, lineno
            )
        keys = [k for k in RESPONSE_KEYS if k in rec]
        if not keys:
            raise InputError(f"record has none of {', '.join(RESPONSE_KEYS)}", path, lineno)
        for key in keys:
            value = rec[key]
            problem = None if isinstance(value, str) else _not_strings(value, key)
            if problem:
                raise InputError(problem, path, lineno)
            texts.extend([value] if isinstance(value, str) else value)
    texts = [t for t in texts if not _is_empty(t)]
    if not texts:
        raise InputError("no responses in the file", path)
    return texts


def read_response_corpus(spec: str) -> tuple[list[str], str]:
    """(responses, name) of a corpus (``length-bias --corpus``): a file's responses, named by its
    base name, or every message of the chitchat-dataset package for ``chitchat`` (where no file
    of that name is)."""
    if spec == "chitchat" and not os.path.exists(spec):
        try:
            import chitchat_dataset
        except ImportError:
            raise InputError(
                "--corpus chitchat needs the chitchat-dataset package "
                "(pip install chitchat-dataset)"
            ) from None
        return [m for m in chitchat_dataset.MessageDataset()], "chitchat"
    return read_responses(spec), os.path.basename(spec)


def _read_csv(path: str, text: str, column: str | None = None, tab: bool = False) -> InputData:
    fields, rows = csv_rows(path, text, tab)
    resp_cols = sorted(
        (f for f in fields if f.startswith("resp_") and f[5:].isdigit()), key=lambda f: int(f[5:])
    )
    if column is not None:
        if column not in fields:
            raise InputError(
                f"no column {column!r}{did_you_mean(column, fields)}; the columns are "
                f"{', '.join(fields) or 'none'}",
                path,
                1,
            )
        resp_cols = []
    elif "response" in fields and not resp_cols:
        column = "response"
    if column is None and not resp_cols:
        raise InputError(
            'needs a "response" column (corpus), "resp_0".."resp_k" columns (sets) or '
            f"--column NAME; found {', '.join(fields) or 'no header'}",
            path,
            1,
        )
    items: list = []
    records: list[dict[str, Any]] = []
    skipped: list[int] = []
    for lineno, row in rows:
        if resp_cols:
            missing = [c for c in resp_cols if row.get(c) is None]
            if missing:
                raise InputError(f"missing field {missing[0]!r}", path, lineno)
            cells = [row[c] for c in resp_cols]
            item: Any = [c for c in cells if not _is_empty(c)]
            skipped.extend([lineno] * (len(cells) - len(item)))
            if not item:
                continue
        else:
            assert column is not None
            if row.get(column) is None:
                raise InputError(f"missing field {column!r}", path, lineno)
            if _is_empty(row[column]):
                skipped.append(lineno)
                continue
            item = row[column]
        row["_line"] = lineno
        items.append(item)
        records.append(row)
    return InputData(path, SETS if resp_cols else CORPUS, items, records, tuple(skipped))


def per_item_fields(options: dict, records: Sequence) -> dict:
    """``options`` with the per-item fields of the records (references, reference groups,
    log-probabilities, and the fields --classes and --quality name), for the metrics that take
    them: what `score`, `compare` and `leaderboard` pass alike."""
    out = dict(options)
    for name in ("classes", "quality"):  # a field name on the command line: its lists here
        if isinstance(options.get(name), str):
            out[name] = [r.get(options[name]) for r in records]
    if has_field(records, "reference_groups"):  # LSDSCC
        out["reference_groups"] = [r.get("reference_groups") for r in records]
    if has_field(records, "references"):  # the multi-reference metrics (ref-*)
        out["references"] = [r.get("references") for r in records]
    if has_field(records, "logprobs"):  # semantic-entropy, likelihood-weighted
        out["logprobs"] = [r.get("logprobs") for r in records]
    return out


#: The most records whose ``distinct`` disagrees with their classes that are named one by one.
SHOWN_DISAGREEMENTS = 5


def reading_notes(data: InputData, classes: str | None = None) -> list[str]:
    """What a run says on stderr about an input it read, a line each: the empty responses it
    left out (a note) and, with the field of stored ``classes``, the records whose ``distinct``
    disagrees with them (warnings)."""
    note = data.skipped_note()
    out = [f"diveval: note: {note}"] if note else []
    if classes:
        out += [f"diveval: warning: {line}" for line in distinct_disagreements(data, classes)]
    return out


def distinct_disagreements(data, field: str) -> list[str]:
    """One line per record whose ``distinct`` disagrees with the classes in ``field`` (the first
    ``SHOWN_DISAGREEMENTS``, then how many more): NoveltyBench stores distinct as the highest
    0-based label, the number of classes - 1. Records without a number there are passed over."""
    out = []
    for rec in data.records:
        distinct, labels = rec.get("distinct"), rec.get(field)
        if isinstance(distinct, bool) or not isinstance(distinct, (int, float)):
            continue
        if not isinstance(labels, list) or not all(
            isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in labels
        ):
            continue  # the metric reports labels that are not labels, as an error
        classes = len(set(labels))
        if distinct != classes - 1:
            out.append(
                f'{data.path}:{rec.get("_line")}: "distinct" is {distinct:g}, but "{field}" '
                f"has {classes} classes (NoveltyBench's distinct is the classes - 1 = "
                f'{classes - 1}); the classes are counted from "{field}"'
            )
    if len(out) > SHOWN_DISAGREEMENTS:
        more = len(out) - SHOWN_DISAGREEMENTS
        out = out[:SHOWN_DISAGREEMENTS] + [
            f'{data.path}: {more} more record{"s" if more > 1 else ""} whose "distinct" '
            f'disagrees with "{field}"'
        ]
    return out
