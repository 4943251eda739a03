"""JSON inputs as (line, record) pairs: JSON lines, or one JSON array (``.json`` may be either).

A ``.json`` file is read as one JSON array when its first non-blank character is ``[`` (SCARCE's
reference files), else as JSON lines (DailyDialog++ and multirefeval name theirs ``.json``). An
array is decoded element by element, so every record keeps the line it starts on for messages.
A file that is neither is an error naming the line where parsing stopped, never text.

JSON lines are split at ``\n`` only: U+2028 and the other characters ``str.splitlines`` breaks at
are legal inside a JSON string. Nesting too deep for the parser and ``\\ud800``-style escapes of
lone surrogates (not text: no tokenizer or output can take them) are InputErrors too.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

from ..errors import InputError

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")
TOO_DEEP = "JSON nested too deeply"


def _line_at(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _has_lone_surrogate(value: Any) -> bool:
    stack = [value]  # a loop, not recursion: the value may be nested as deep as the parser allows
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if _LONE_SURROGATE.search(v):
                return True
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def check_unicode(value: Any, source: str, path: str, line: int | None) -> None:
    """InputError when decoded JSON holds a lone surrogate (only escapes can make one, so the
    walk runs only when ``source``, the JSON text, has such an escape)."""
    if _SURROGATE_ESCAPE.search(source) and _has_lone_surrogate(value):
        raise InputError("a \\u escape of a lone surrogate (not a character)", path, line)


def jsonl_records(path: str, text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of every non-blank line of a JSON lines text."""
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except RecursionError:
            raise InputError(TOO_DEEP, path, lineno) from None
        except json.JSONDecodeError as exc:
            hint = (
                " (is this one JSON document over several lines? name it .json)"
                if lineno == 1
                else ""
            )
            raise InputError(
                f"malformed JSON ({exc.msg}, column {exc.colno}){hint}", path, lineno
            ) from None
        if not isinstance(rec, dict):
            raise InputError(
                f"each line must be a JSON object, got {type(rec).__name__}", path, lineno
            )
        check_unicode(rec, line, path, lineno)
        yield lineno, rec


def json_array_items(path: str, text: str) -> Iterator[tuple[int, Any]]:
    """(line number, element) of every element of a text holding one JSON array."""
    decoder = json.JSONDecoder()
    pos = len(text) - len(text.lstrip())
    if text[pos : pos + 1] != "[":
        raise InputError("expected a JSON array ([...])", path, _line_at(text, pos))
    pos += 1
    first = True
    while True:
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        if text[pos : pos + 1] == "]":
            pos += 1
            break
        if not first:
            if text[pos : pos + 1] != ",":
                raise InputError(
                    "malformed JSON array (expected , or ])", path, _line_at(text, pos)
                )
            pos += 1
            while pos < len(text) and text[pos] in " \t\r\n":
                pos += 1
        try:
            value, end = decoder.raw_decode(text, pos)
        except RecursionError:
            raise InputError(TOO_DEEP, path, _line_at(text, pos)) from None
        except json.JSONDecodeError as exc:
            raise InputError(f"malformed JSON ({exc.msg})", path, _line_at(text, exc.pos)) from None
        check_unicode(value, text[pos:end], path, _line_at(text, pos))
        yield _line_at(text, pos), value
        pos, first = end, False
    if text[pos:].strip():
        raise InputError("text after the JSON array", path, _line_at(text, pos))


def is_json_array(text: str) -> bool:
    return text.lstrip()[:1] == "["


def json_records(path: str, text: str) -> Iterator[tuple[int, Any]]:
    """A ``.json`` text: its array's elements, or its JSON lines' objects."""
    if is_json_array(text):
        return json_array_items(path, text)
    return jsonl_records(path, text)
