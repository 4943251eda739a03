"""How the records of several systems are matched prompt by prompt (``compare``,
``leaderboard``): a system's name from its path, a record's prompt, and the key each record is
matched by (its id, its prompt text, or its position)."""

from __future__ import annotations

import os
from typing import Any

from ..errors import InputError

#: The record fields that hold a prompt (or a dialogue context), in the order they are read.
PROMPT_FIELDS = ("prompt", "context", "query", "input", "question", "instruction")


def system_names(paths: list[str]) -> list[str]:
    """A system's name: its file name without the ending; where two share one (runs saved as
    ``<org>/<model>/scores.jsonl``), the paths without the folders and the file name all of them
    share, so that the part that tells them apart names them; the paths as given if that fails."""
    stems = [os.path.splitext(os.path.basename(p))[0] for p in paths]
    if len(set(stems)) == len(stems):
        return stems
    parts = [os.path.normpath(p).split(os.sep) for p in paths]
    head = len(os.path.commonprefix(parts))
    tail = len(os.path.commonprefix([x[::-1] for x in parts]))
    short = ["/".join(x[head : len(x) - tail]) for x in parts]
    if all(short) and len(set(short)) == len(short):
        return short
    return list(paths)


def prompt_text(rec: dict) -> str | None:
    """A record's prompt: the first prompt field holding a text (a dialogue context's turns,
    one a line)."""
    for f in PROMPT_FIELDS:
        v = rec.get(f)
        if isinstance(v, str):
            return v
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            return "\n".join(v)
    return None


def auto_match(parts) -> str:
    """id where every record has one, else the prompt text, else the position."""
    recs = [data.records[i] if data.records else {} for data, index in parts for i in index]
    if recs and all(r.get("id") is not None for r in recs):
        return "id"
    if recs and all(prompt_text(r) is not None for r in recs):
        return "prompt"
    return "position"


def prompt_keys(records: list[dict], match: str, path: Any = None) -> list[str]:
    """The key each record is matched by: ``id``, the ``prompt`` text or the ``position``; a
    record without its key is an InputError naming ``path`` and its line."""
    if match == "id":
        missing = [r.get("_line") for r in records if r.get("id") is None]
        if missing:
            raise InputError(f'--match id: no "id" in the record at line {missing[0]}', path)
        return [str(r["id"]) for r in records]
    if match == "prompt":
        keys = []
        for r in records:
            text = prompt_text(r)
            if text is None:
                raise InputError("--match prompt: a record without a prompt", path, r["_line"])
            keys.append(text)
        return keys
    return [str(i + 1) for i in range(len(records))]


def as_references(v: Any) -> tuple[str, ...] | None:
    """A record's references as a tuple (one text or a list of them), None where it has none."""
    if v is None:
        return None
    return (v,) if isinstance(v, str) else tuple(v)
