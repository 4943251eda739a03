"""Reader of the LSDSCC data format (Xu et al., NAACL 2018; neural-dialogue-metrics/LSDSCC).

* Reference groups: one JSON object ``{query: {group_id: [reference, ...], ...}, ...}`` (the
  test set's ``test.group.json``). Group ids are kept as the strings given (the test set has
  ``"null"`` groups); ``diveval.reference.lsdscc`` orders them numeric ids first, then the others
  as given.
* Hypotheses: a text file with one hypothesis set per line, the hypotheses separated by ``</s>``
  (surrounding spaces are stripped; a ``</s>`` at the very end of a line ends the last hypothesis
  rather than starting an empty one). Line i goes with the i-th query of the JSON object.
* Queries (optional): one query per line, in the JSON's order (``test.queries.txt``); when given,
  every line must equal its query, which catches a hypothesis file made for another query order.

Every problem is an ``InputError`` naming the file and, where it can be found, the line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..errors import InputError
from .json_records import TOO_DEEP, check_unicode
from .readers import read_text

EOS = "</s>"

__all__ = ["EOS", "LsdsccData", "read_groups", "read_hypotheses", "read_queries", "read_lsdscc"]


@dataclass(frozen=True)
class LsdsccData:
    groups_path: str
    hypotheses_path: str
    queries: list[str]
    reference_groups: list[dict[str, list[str]]]  # one mapping group id -> references per query
    hypothesis_sets: list[list[str]]  # one list of hypotheses per query


def _line_of(text: str, key: str) -> int | None:
    for form in (json.dumps(key, ensure_ascii=False), json.dumps(key)):
        pos = text.find(form)
        if pos >= 0:
            return text.count("\n", 0, pos) + 1
    return None


def _short(q: str) -> str:
    return repr(q if len(q) <= 60 else q[:57] + "...")


def read_groups(path: str) -> tuple[list[str], list[dict[str, list[str]]]]:
    """(queries, one mapping group id -> references per query), in the file's order."""
    text = read_text(path)
    duplicates: list[str] = []

    def pairs_hook(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                duplicates.append(k)
            seen.add(k)
        return dict(pairs)

    try:
        data = json.loads(text, object_pairs_hook=pairs_hook)
    except RecursionError:
        raise InputError(TOO_DEEP, path) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"malformed JSON ({exc.msg}, column {exc.colno})", path, exc.lineno
        ) from None
    check_unicode(data, text, path, None)
    if duplicates:
        k = duplicates[0]
        raise InputError(
            f"key {_short(k)} appears twice (JSON keeps only the last; queries and "
            "group ids must be unique)",
            path,
            _line_of(text, k),
        )
    if not isinstance(data, dict):
        raise InputError(
            f"expected a JSON object {{query: {{group_id: [references]}}}}, got "
            f"{type(data).__name__}",
            path,
        )
    if not data:
        raise InputError("no queries in the file", path)
    queries, groups = [], []
    for query, g in data.items():
        line = _line_of(text, query)
        if not isinstance(g, dict):
            raise InputError(
                f"query {_short(query)}: expected an object {{group_id: [references]}}, "
                f"got {type(g).__name__}",
                path,
                line,
            )
        if not g:
            raise InputError(f"query {_short(query)} has no reference groups", path, line)
        for gid, refs in g.items():
            if not isinstance(refs, list):
                raise InputError(
                    f"query {_short(query)}: group {gid!r} must be a list of strings, "
                    f"got {type(refs).__name__}",
                    path,
                    line,
                )
            if not refs:
                raise InputError(f"query {_short(query)}: group {gid!r} is empty", path, line)
            for r in refs:
                if not isinstance(r, str):
                    raise InputError(
                        f"query {_short(query)}: group {gid!r} holds a "
                        f"{type(r).__name__}, not a string",
                        path,
                        line,
                    )
        queries.append(query)
        groups.append(g)
    return queries, groups


def _lines(text: str) -> list[str]:
    if text.endswith("\n"):
        text = text[:-1]
    if not text:
        return []
    return [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")]


def read_hypotheses(path: str, eos: str = EOS) -> list[list[str]]:
    """One list of hypotheses per line (separated by ``eos``)."""
    if not eos:
        raise InputError("the hypothesis separator must not be empty", path)
    sets = []
    for lineno, line in enumerate(_lines(read_text(path)), start=1):
        parts = [p.strip() for p in line.split(eos)]
        if len(parts) > 1 and not parts[-1]:
            parts.pop()  # a trailing separator ends the last hypothesis
        if not any(parts):
            raise InputError(
                f"no hypotheses on this line (one set per line, separated by {eos!r})", path, lineno
            )
        for j, p in enumerate(parts):
            if not p:
                raise InputError(
                    f"hypothesis {j} is empty (two separators in a row?)", path, lineno
                )
        sets.append(parts)
    if not sets:
        raise InputError("no hypothesis sets in the file", path)
    return sets


def read_queries(path: str) -> list[str]:
    return _lines(read_text(path))


def read_lsdscc(
    groups_path: str, hypotheses_path: str, queries_path: str | None = None, eos: str = EOS
) -> LsdsccData:
    """Read groups and hypotheses (and check them against a queries file when one is given)."""
    queries, groups = read_groups(groups_path)
    sets = read_hypotheses(hypotheses_path, eos)
    if len(sets) != len(queries):
        raise InputError(
            f"{len(sets)} hypothesis sets (lines) but {groups_path} has {len(queries)} "
            "queries; line i must hold the hypotheses of the i-th query",
            hypotheses_path,
        )
    if queries_path is not None:
        listed = read_queries(queries_path)
        if len(listed) != len(queries):
            raise InputError(
                f"{len(listed)} queries but {groups_path} has {len(queries)}", queries_path
            )
        for i, (a, b) in enumerate(zip(listed, queries), start=1):
            if a.strip() != b.strip():
                raise InputError(
                    f"query {_short(a)} does not match query {i} of {groups_path}: {_short(b)}",
                    queries_path,
                    i,
                )
    return LsdsccData(groups_path, hypotheses_path, queries, groups, sets)
