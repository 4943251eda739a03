"""Dialogue corpora for reference retrieval: a dialogue is a list of turns (strings).

Readers (every problem is an ``InputError`` naming the file and line):

- ``read_dialogues_jsonl``: diveval's own format, one JSON object per line,
  ``{"id": "...", "turns": ["...", ...]}`` (``"dialogue"`` is accepted for ``"turns"``, and a turn
  may be ``{"text": "..."}``);
- ``read_multirefeval``: the DailyDialog multi-reference test set of Gupta et al. (2019),
  JSON lines ``{"dialogue": [{"text": ..., "responses": [...]}, ...]}``; ``responses`` of turn t are
  references for the reply to turn t (``responses[0]`` is the original, lower-cased reply);
- ``read_dailydialog_plusplus``: DailyDialog++ (Sai et al. 2020), JSON lines ``{"id", "context",
  "positive_responses"}``; each record gives one dialogue ``context + [positive_responses[0]]`` and,
  for each other positive response, a short dialogue ``context[-2:] + [response]`` whose context
  turns are not candidates themselves (``respond_from``), so no turn is indexed twice;
- ``load_chitchat``: the 7,168 conversations of the ``chitchat-dataset`` package (MIT, offline);
  a turn is one speaker's consecutive messages joined by a space.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Sequence

from ..errors import InputError, MissingDependencyError


@dataclass(frozen=True)
class Dialogue:
    """One dialogue. ``turns[t]`` for ``t >= respond_from`` may be retrieved as a response;
    ``references[t]`` (optional) are extra references for the reply to turn t."""

    id: str
    turns: tuple[str, ...]
    source: str = ""
    respond_from: int = 0
    references: tuple[tuple[str, ...], ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "turns", tuple(self.turns))
        if self.references is not None:
            object.__setattr__(self, "references", tuple(tuple(r) for r in self.references))


@dataclass(frozen=True)
class DialogueCorpus:
    """A named list of dialogues; ``a + b`` concatenates two corpora."""

    dialogues: tuple[Dialogue, ...]
    name: str = "corpus"
    sources: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "dialogues", tuple(self.dialogues))
        if not self.sources:
            object.__setattr__(
                self, "sources", tuple(dict.fromkeys(d.source for d in self.dialogues))
            )

    def __len__(self) -> int:
        return len(self.dialogues)

    def __iter__(self) -> Iterator[Dialogue]:
        return iter(self.dialogues)

    def __getitem__(self, i: int) -> Dialogue:
        return self.dialogues[i]

    def __add__(self, other: DialogueCorpus) -> DialogueCorpus:
        return DialogueCorpus(
            self.dialogues + other.dialogues,
            f"{self.name}+{other.name}",
            tuple(dict.fromkeys(self.sources + other.sources)),
        )

    @property
    def n_turns(self) -> int:
        return sum(len(d.turns) for d in self.dialogues)

    def by_id(self, dialogue_id: str) -> Dialogue:
        for d in self.dialogues:
            if d.id == dialogue_id:
                return d
        raise InputError(f"no dialogue with id {dialogue_id!r} in {self.name}")


def _json_lines(path: str) -> Iterator[tuple[int, Any]]:
    if not os.path.isfile(path):
        raise InputError("no such file", path)
    with open(path, encoding="utf-8-sig") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                yield lineno, json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(
                    f"malformed JSON ({exc.msg}, column {exc.colno})", path, lineno
                ) from None


def _turn_text(x: Any, path: str, lineno: int, key: str) -> str:
    if isinstance(x, dict):
        x = x.get("text")
    if not isinstance(x, str):
        raise InputError(
            f'every turn of "{key}" must be a string or {{"text": string}}', path, lineno
        )
    return x


def read_dialogues_jsonl(path: str, source: str | None = None) -> DialogueCorpus:
    """``{"id": ..., "turns": [...]}`` per line (ids default to the line number)."""
    source = source or os.path.basename(path)
    dialogues = []
    for lineno, rec in _json_lines(path):
        if not isinstance(rec, dict):
            raise InputError("each line must be a JSON object", path, lineno)
        key = "turns" if "turns" in rec else "dialogue" if "dialogue" in rec else None
        if key is None or not isinstance(rec[key], list):
            raise InputError('record needs "turns": a list of strings', path, lineno)
        turns = [_turn_text(t, path, lineno, key) for t in rec[key]]
        dialogues.append(Dialogue(str(rec.get("id", lineno)), tuple(turns), source))
    if not dialogues:
        raise InputError("no dialogues in the file", path)
    return DialogueCorpus(tuple(dialogues), source)


def read_multirefeval(path: str, source: str = "multirefeval") -> DialogueCorpus:
    """Gupta et al.'s ``multireftest.json``; dialogue ids are 0-based line numbers (the ``73`` of
    the rating file's ``context_id`` ``73_4``)."""
    dialogues = []
    for i, (lineno, rec) in enumerate(_json_lines(path)):
        turns = rec.get("dialogue") if isinstance(rec, dict) else None
        if not isinstance(turns, list):
            raise InputError('record needs "dialogue": a list of turns', path, lineno)
        texts, refs = [], []
        for t in turns:
            texts.append(_turn_text(t, path, lineno, "dialogue"))
            r = t.get("responses", []) if isinstance(t, dict) else []
            if not isinstance(r, list) or not all(isinstance(x, str) for x in r):
                raise InputError('"responses" must be a list of strings', path, lineno)
            refs.append(tuple(r))
        dialogues.append(Dialogue(str(i), tuple(texts), source, 0, tuple(refs)))
    return DialogueCorpus(tuple(dialogues), source)


def read_dailydialog_plusplus(path: str, source: str | None = None) -> DialogueCorpus:
    """DailyDialog++ ``dev.json`` / ``test.json`` (see the module docstring for the layout)."""
    source = source or "dailydialog++:" + os.path.splitext(os.path.basename(path))[0]
    dialogues = []
    for lineno, rec in _json_lines(path):
        if not isinstance(rec, dict) or not isinstance(rec.get("context"), list):
            raise InputError('record needs "context": a list of strings', path, lineno)
        ctx = [_turn_text(t, path, lineno, "context") for t in rec["context"]]
        pos = rec.get("positive_responses", [])
        if not isinstance(pos, list) or not all(isinstance(x, str) for x in pos):
            raise InputError('"positive_responses" must be a list of strings', path, lineno)
        rid = str(rec.get("id", lineno))
        dialogues.append(Dialogue(f"{rid}", tuple(ctx + pos[:1]), source))
        tail = ctx[-2:]
        for j, p in enumerate(pos[1:], start=1):
            dialogues.append(
                Dialogue(f"{rid}/{j}", tuple(tail + [p]), source, respond_from=len(tail))
            )
    return DialogueCorpus(tuple(dialogues), source)


def load_chitchat(
    path: str | None = None, source: str = "chitchat", unit: str = "turn"
) -> DialogueCorpus:
    """The ``chitchat-dataset`` package's conversations (or its ``dataset.json`` at ``path``).

    unit: ``"turn"`` (default; one speaker's consecutive messages joined by a space: 138,737 turns)
    or ``"utterance"`` (every chat message is a turn: 258,145)."""
    if unit not in ("turn", "utterance"):
        raise InputError(f"unknown chitchat unit {unit!r}; choose turn or utterance")
    if path is None:
        try:
            import chitchat_dataset
        except ImportError:
            raise MissingDependencyError(
                "the chitchat corpus (pip install chitchat-dataset)", "reference"
            ) from None
        path = os.path.join(os.path.dirname(chitchat_dataset.__file__), "dataset.json")
    if not os.path.isfile(path):
        raise InputError("no such file", path)
    with open(path, encoding="utf-8") as fh:
        try:
            data = json.load(fh)
        except json.JSONDecodeError as exc:
            raise InputError(f"malformed JSON ({exc.msg})", path, exc.lineno) from None
    dialogues = []
    for key, conv in data.items():
        if unit == "turn":
            turns = tuple(" ".join(u["text"] for u in m) for m in conv["messages"])
        else:
            turns = tuple(u["text"] for m in conv["messages"] for u in m)
        dialogues.append(Dialogue(str(key), turns, source))
    return DialogueCorpus(tuple(dialogues), source)


def read_corpus(spec: str) -> DialogueCorpus:
    """A corpus by name or path: ``chitchat``, ``dailydialog++:PATH``, ``multirefeval:PATH``,
    ``jsonl:PATH`` or a plain ``PATH`` (diveval's JSON lines)."""
    if spec == "chitchat":
        return load_chitchat()
    kind, sep, path = spec.partition(":")
    if sep and kind in ("dailydialog++", "ddpp"):
        return read_dailydialog_plusplus(path)
    if sep and kind == "multirefeval":
        return read_multirefeval(path)
    if sep and kind == "jsonl":
        return read_dialogues_jsonl(path)
    if sep and kind == "chitchat":
        return load_chitchat(path)
    return read_dialogues_jsonl(spec)


def concat(corpora: Iterable[DialogueCorpus]) -> DialogueCorpus:
    corpora = list(corpora)
    if not corpora:
        raise InputError("no corpus given")
    out = corpora[0]
    for c in corpora[1:]:
        out = out + c
    return out


def window(turns: Sequence[str], t: int, size: int) -> tuple[str, str]:
    """(past, future) of turn t: up to ``size`` turns before and after, joined by a space."""
    return " ".join(turns[max(0, t - size) : t]), " ".join(turns[t + 1 : t + 1 + size])
