"""Metric states on disk: an ``.npz`` of arrays with a JSON header, never a pickle.

The header carries the format version and the state's kind and settings, so a file written by
another diveval, or of another kind, is refused with a message instead of being misread. Every
mergeable state (n-gram counts, Self-BLEU tables, Gram matrices, per-item Scores) and the shard
files use it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .errors import InputError
from .results import Score

# 2: shard files hold each metric's own state (by its row), Self-BLEU states keep their sentences
# 3: states are declarations (diveval.state.DeclaredState): one header entry or array per field
#    (n-gram counts: total_{n} beside keys_{n}, no nested state)
STATE_FORMAT = 3


def save_state(path: str | Path, state: Any, extra: dict[str, Any], arrays: dict[str, Any]) -> None:
    header = {"format": STATE_FORMAT, **state.settings(), **extra}
    with open(path, "wb") as fh:  # a file object: np.savez would add ".npz" to a bare name
        np.savez(fh, header=np.array(json.dumps(header)), **arrays)


#: A state file is an .npz, i.e. a zip archive: these are its first bytes (empty or not).
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


def check_state_file(path: str | Path, what: str = "state") -> None:
    """Refuse a file that is not an .npz archive in one line, before numpy reads it: numpy's own
    message for such a file speaks of pickles and ``allow_pickle``, not of what is wrong.
    ``what``: the kind of file the message names (a state, a shard)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
    except OSError as exc:
        raise InputError(f"cannot read it ({exc.strerror or exc})", str(path)) from None
    if head not in _ZIP_MAGIC:
        raise InputError(
            f"not a diveval {what} file (not an .npz archive; "
            "`diveval score --shard I/N --state FILE` writes them)",
            str(path),
        )


def load_state(
    path: str | Path, kind: str, build: Callable[[dict, Any], Any], what: str = "state"
) -> Any:
    """``build(header, data)`` of the file at ``path``, refused in one line where it is not a
    diveval file of this format and ``kind`` (``what``: the kind of file a message names)."""
    check_state_file(path, what)
    try:
        with np.load(path, allow_pickle=False) as data:
            header = json.loads(str(data["header"]))
            if header.get("format") != STATE_FORMAT or header.get("kind") != kind:
                raise InputError(
                    f"{path}: a {what} of format {header.get('format')!r} and kind "
                    f"{header.get('kind')!r}; this diveval reads format {STATE_FORMAT}, "
                    f"kind {kind!r}"
                )
            return build(header, data)
    except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: not a diveval {what} file ({exc})") from None


def encode_state(state: Any, arrays: dict[str, Any], key: str) -> dict[str, Any]:
    """A state inside another file (a shard file's metrics): its settings and dumped header as
    JSON, its arrays stored in ``arrays`` under ``key``-prefixed names."""
    extra, data = state.dump()
    arrays.update({f"{key}::{name}": a for name, a in data.items()})
    return {**state.settings(), **extra}


def state_arrays(data: Any, key: str) -> dict[str, Any]:
    """The arrays :func:`encode_state` stored under ``key``, by their state's names."""
    prefix = f"{key}::"
    return {k[len(prefix) :]: data[k] for k in data.files if k.startswith(prefix)}


def encode_tree(value: Any, arrays: dict[str, Any], key: str) -> Any:
    """JSON for a tree of details, its arrays stored beside it under ``key``-derived names
    (tagged, so that :func:`decode_tree` gives them back as arrays)."""
    if isinstance(value, np.ndarray) and value.dtype == object:
        # one Python value per item (a set's class labels): JSON in the header, since numpy
        # stores object arrays only as pickles, which a state file never holds
        return {"__objects__": [_plain_json(v) for v in value.tolist()]}
    if isinstance(value, np.ndarray):
        arrays[key] = value
        return {"__array__": key}
    if isinstance(value, Score):
        return {"__score__": {**encode_score(value, arrays, key), "key": key}}
    if isinstance(value, dict):
        return {k: encode_tree(v, arrays, f"{key}::{k}") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode_tree(v, arrays, f"{key}::{i}") for i, v in enumerate(value)]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _plain_json(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_plain_json(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def decode_tree(value: Any, data: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"__array__"}:
            return np.asarray(data[value["__array__"]])
        if set(value) == {"__score__"}:
            return decode_score(value["__score__"], data, value["__score__"]["key"])
        if set(value) == {"__objects__"}:
            out = np.empty(len(value["__objects__"]), dtype=object)
            for i, v in enumerate(value["__objects__"]):
                out[i] = v
            return out
        return {k: decode_tree(v, data) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_tree(v, data) for v in value]
    return value


def encode_score(score: Score, arrays: dict[str, Any], key: str) -> dict[str, Any]:
    """A Score with per-item values as JSON (its items and detail arrays stored in ``arrays``);
    the headline is the items' mean when read back (a joined Score's headline)."""
    arrays[f"items::{key}"] = np.asarray(score.items)
    return {
        "metric": score.metric,
        "signature": score.signature,
        "setting": score.setting,
        "details": encode_tree(dict(score.details), arrays, f"details::{key}"),
    }


def decode_score(header: dict[str, Any], data: Any, key: str) -> Score:
    items = np.asarray(data[f"items::{key}"])
    details = decode_tree(header["details"], data)
    return Score(
        header["metric"],
        float(items.mean()),
        header["signature"],
        header["setting"],
        items,
        details,
    )
