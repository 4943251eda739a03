"""Corpus metrics of a text file larger than memory, in bounded memory.

The file is read in chunks of lines; each metric's state (the one its row names, ``Metric.state``)
is updated chunk by chunk and finished once. A state that can bound its memory does so
(``bounded(plan)``, see :mod:`diveval.state`: the n-gram metrics spill their keys to partitioned
files, or count them with HLL sketches when ``approx="hll"``, and then say so in the signature);
any other state is used as it is. Only one-pass states stream: a two-pass metric would need the
whole corpus twice.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

from ..constants import DEFAULT_TOKENIZER
from ..errors import InputError
from ..lexical.ngram_stream import chunk_chars, stream_counts
from ..registry import get_metric
from ..results import Score
from ..sizes import parse_size
from ..state import StreamPlan, text_chunks

__all__ = ["parse_memory", "stream_counts", "stream_score", "streamable"]


def parse_memory(text: str | int) -> int:
    """``"2G"``, ``"500M"``, ``"1048576"`` -> bytes (at least 64 MiB: below that the chunks
    get so small that Python's per-chunk costs dominate)."""
    value = parse_size(text, "--stream-memory")
    if value < 64 << 20:
        raise InputError(f"--stream-memory must be at least 64M, got {text!r}")
    return value


def streamable(name: str) -> bool:
    """Whether a metric's corpus setting streams: its row names a one-pass state."""
    metric = get_metric(name)
    return metric.state is not None and metric.passes == 1


def stream_score(
    path: str | Path,
    metrics: Sequence[str],
    *,
    tokenizer: str = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    vocab: Any = None,
    memory: int | str = "2G",
    approx: str | None = None,
    lg_k: int = 14,
) -> dict[str, Score]:
    """The corpus Scores of a text file (one response per line), streamed in bounded memory."""
    rows = [get_metric(name) for name in metrics]
    for metric in rows:
        if metric.state is None or metric.passes != 1:
            raise InputError(
                f"{metric.name}: streaming in bounded memory covers the metrics whose row names a "
                "one-pass state (distinct-n, avg-distinct, ead-n...)"
            )
    budget = parse_memory(memory)
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    plan = StreamPlan(budget, size, approx, lg_k)
    options = {"tokenizer": tokenizer, "lowercase": lowercase, "vocab": vocab}
    states: dict[str, Any] = {}
    try:
        for metric in rows:
            state = metric.make_state(options)
            bounded = getattr(state, "bounded", None)
            states[metric.name] = bounded(plan) if bounded is not None else state
        # the states take a chunk one after the other: the chunk is sized for the hungriest
        cost = max((getattr(s, "bytes_per_char", 0) for s in states.values()), default=0)
        first: list[str] | None = None  # the script check reads the first chunk's sample
        with open(path, encoding="utf-8", errors="strict") as fh:
            for chunk in text_chunks(fh, chunk_chars(budget, cost)):
                texts = [line.rstrip("\r\n") for line in chunk]
                if first is None:
                    first = texts
                for state in states.values():
                    state.update(texts)
        return {
            m.name: m.language_checked(states[m.name].result().with_metric(m.name), first, options)
            for m in rows
        }
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    finally:
        for state in states.values():
            close = getattr(state, "close", None)
            if close is not None:
                close()
