"""Inputs of generation: contexts with optional candidates (a pool) and references.

JSON lines (``.jsonl`` or ``.json``), one context per line, in either form:

- diveval's: ``{"id": ..., "context": "text" | ["turn", ...], "candidates": [...],
  "references": [...]}``; only ``context`` is required;
- DailyDialog++ (Sai et al. 2020): ``{"id", "context": [turns], "positive_responses": [5],
  "adversarial_negative_responses": [5], "random_negative_responses": [5]}``. Its candidates are
  the responses under ``pool_fields`` (default: positive and random-negative), shuffled with a
  fixed seed per record; its references are the positive responses. (With the default pool the
  positive responses are both candidates and references, so the relevance of a pool run says how
  many of them a set kept, not how relevant a model is.)

A record without ``id`` is known by its line number. Ids must be unique (resuming relies on them).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np

from ..errors import InputError
from .readers import read_records

DDPP_FIELDS = ("positive_responses", "adversarial_negative_responses", "random_negative_responses")
DEFAULT_POOL_FIELDS = ("positive_responses", "random_negative_responses")


@dataclass(frozen=True)
class ContextItem:
    id: str
    context: Any  # str or list[str]
    candidates: Optional[list[str]] = None
    references: Optional[list[str]] = None
    line: Optional[int] = None


def _strings(value: Any, key: str, path: str, line: int | None) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f'"{key}" must be a list of strings', path, line)
    return list(value)


def shuffled(items: Sequence[str], seed: int, key: str) -> list[str]:
    """``items`` in an order fixed by ``seed`` and ``key`` (a record's id)."""
    digest = int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little")
    order = np.random.default_rng([int(seed) & 0xFFFFFFFF, digest]).permutation(len(items))
    return [items[i] for i in order]


def read_contexts(
    path: str, pool_fields: Sequence[str] = DEFAULT_POOL_FIELDS, shuffle_seed: int = 0
) -> list[ContextItem]:
    """The contexts of a JSON lines file (see the module docstring)."""
    for f in pool_fields:
        if f not in DDPP_FIELDS:
            raise InputError(f"unknown pool field {f!r}; choose from {', '.join(DDPP_FIELDS)}")
    out: list[ContextItem] = []
    seen: set[str] = set()
    for rec in read_records(path, "json"):
        line = rec.get("_line")
        if "context" not in rec:
            raise InputError('record has no "context"', path, line)
        ctx = rec["context"]
        if not isinstance(ctx, str):
            ctx = _strings(ctx, "context", path, line)
        rid = str(rec["id"]) if "id" in rec else str(line)
        if rid in seen:
            raise InputError(f"id {rid!r} appears twice", path, line)
        seen.add(rid)
        candidates = references = None
        if "candidates" in rec:
            candidates = _strings(rec["candidates"], "candidates", path, line)
        elif any(f in rec for f in DDPP_FIELDS):
            pool = []
            for f in pool_fields:
                pool += _strings(rec.get(f, []), f, path, line)
            candidates = shuffled(pool, shuffle_seed, rid)
        if "references" in rec:
            references = _strings(rec["references"], "references", path, line)
        elif "positive_responses" in rec:
            references = _strings(rec["positive_responses"], "positive_responses", path, line)
        out.append(ContextItem(rid, ctx, candidates, references, line))
    return out


def read_response_sets(path: str, field: Optional[str] = None) -> list[list[str]]:
    """The response sets of a JSON lines file: the lists under ``field`` (default: "responses",
    or "positive_responses" for DailyDialog++)."""
    sets = []
    for rec in read_records(path, "json"):
        key = field or ("responses" if "responses" in rec else "positive_responses")
        if key not in rec:
            raise InputError(f'record has no "{key}"', path, rec.get("_line"))
        sets.append(_strings(rec[key], key, path, rec.get("_line")))
    return sets
