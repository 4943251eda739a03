"""Corpus Distinct-n / EAD-n of a text file larger than memory, in bounded memory.

The file is read in chunks of lines; each chunk's n-gram keys (the shard-independent 64-bit keys
of :mod:`diveval.scale.states`, same collision bound) are de-duplicated and appended to spill
files partitioned by their top bits (a radix partition), so that each partition holds about
1/P of the keys and fits the memory budget on its own. The distinct count of an order is the sum
over partitions of the distinct keys in each: one partition in memory at a time. Peak memory is
about one chunk plus one partition, both sized from ``memory``.

``approx="hll"`` counts with Apache DataSketches HLL sketches instead of spill files (no disk, a
few KB of memory per order): the result carries the sketch's relative standard error and its 95 %
bounds in ``details``, and ``approx:hll-<lg_k>`` in the signature, so it is never mistaken for an
exact count.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from ..errors import InputError, MissingDependencyError
from ..lexical.ead import (
    BERT_VOCAB_SIZE,
    Vocab,
)
from ..results import Score
from ..text.ngrams import ngram_starts, unique_sorted
from ..text.prepared import encode_texts
from ..text.tokenizers import get_tokenizer
from .states import corpus_ngram_score, ngram_keys, ngram_metric, token_hashes

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_memory(text: str | int) -> int:
    """``"2G"``, ``"500M"``, ``"1048576"`` -> bytes (at least 64 MiB: below that the chunks
    get so small that Python's per-chunk costs dominate)."""
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    else:
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", str(text), re.IGNORECASE)
        if not m:
            raise InputError(f"--memory takes a size such as 2G or 500M, got {text!r}")
        value = int(float(m.group(1)) * _UNITS[m.group(2).upper()])
    if value < 64 << 20:
        raise InputError(f"--memory must be at least 64M, got {text!r}")
    return value


def _chunks(lines: Iterable[str], max_chars: int) -> Iterator[list[str]]:
    chunk: list[str] = []
    size = 0
    for line in lines:
        chunk.append(line)
        size += len(line)
        if size >= max_chars:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


class _Counter:
    """Distinct keys of one order: exact (spill partitions) or HLL."""

    def __init__(self, n: int, folder: Path | None, partition_bits: int, lg_k: int | None):
        self.n, self.folder, self.bits = n, folder, partition_bits
        self.total = 0
        self.sketch = None
        if lg_k is not None:
            try:
                import datasketches
            except ImportError:
                raise MissingDependencyError("approx='hll'", "sketch") from None
            self.sketch = datasketches.hll_sketch(lg_k)

    def _path(self, p: int) -> Path:
        assert self.folder is not None
        return self.folder / f"order{self.n}.part{p:05d}.u64"

    def add(self, keys: np.ndarray) -> None:
        keys = unique_sorted(keys)
        if self.sketch is not None:
            update = self.sketch.update
            for k in keys.view(np.int64).tolist():
                update(k)
            return
        if self.bits == 0:
            bounds = np.array([0, keys.size])
        else:
            edges = np.arange(1, 1 << self.bits, dtype=np.uint64) << np.uint64(64 - self.bits)
            bounds = np.concatenate([[0], np.searchsorted(keys, edges), [keys.size]])
        for p in range(len(bounds) - 1):
            a, b = int(bounds[p]), int(bounds[p + 1])
            if b > a:
                with open(self._path(p), "ab") as fh:
                    keys[a:b].tofile(fh)

    def distinct(self) -> tuple[int, dict[str, Any]]:
        if self.sketch is not None:
            est = self.sketch.get_estimate()
            details = {
                "approx": "hll",
                "lg_k": self.sketch.lg_config_k,
                "relative_standard_error": _hll_rse(self.sketch.lg_config_k),
                "distinct_lower_95": self.sketch.get_lower_bound(2),
                "distinct_upper_95": self.sketch.get_upper_bound(2),
            }
            return int(round(est)), details
        count = 0
        for p in range(1 << self.bits):
            path = self._path(p)
            if path.exists():
                count += int(unique_sorted(np.fromfile(path, dtype=np.uint64)).size)
                path.unlink()
        return count, {}


def _hll_rse(lg_k: int) -> float:
    # HLL_8 relative standard error: about 1.04 / sqrt(2**lg_k) (DataSketches documentation)
    return 1.04 / float(np.sqrt(2.0**lg_k))


def stream_counts(
    lines: Iterable[str],
    orders: Sequence[int],
    *,
    tokenizer: str = "whitespace",
    lowercase: bool = False,
    memory: int = 2 << 30,
    size_hint: int | None = None,
    approx: str | None = None,
    lg_k: int = 14,
    spill_dir: str | Path | None = None,
) -> dict[int, tuple[int, int, dict[str, Any]]]:
    """{n: (distinct, total, details)} over the texts in ``lines``, in bounded memory.

    size_hint: the input's size in bytes (a file's size), to choose the number of partitions.
    """
    if approx not in (None, "hll"):
        raise InputError(f"approx must be None or 'hll', got {approx!r}")
    if approx and not 4 <= lg_k <= 21:
        raise InputError(f"lg_k must be in 4..21, got {lg_k}")
    tok = get_tokenizer(tokenizer, lowercase)
    orders = sorted(set(orders))
    # a chunk's keys, sorted with temporaries, take about 24 bytes per token per order
    per_char = 24 * len(orders) / 4 + 16
    max_chars = max(1 << 16, int(memory / 2 / per_char))
    bits = 0
    if not approx and size_hint:
        keys_bound = size_hint / 2  # a token takes at least 2 bytes with its separator
        need = keys_bound * 8 * 3 / (memory / 2)
        bits = max(0, int(np.ceil(np.log2(max(need, 1)))))
    folder = None if approx else Path(tempfile.mkdtemp(prefix="diveval-spill-", dir=spill_dir))
    try:
        counters = {n: _Counter(n, folder, bits, lg_k if approx else None) for n in orders}
        for chunk in _chunks(lines, max_chars):
            tids = encode_texts([line.rstrip("\r\n") for line in chunk], tok)
            hashes = token_hashes(tids.vocab)
            for n in orders:
                starts = ngram_starts(tids, n)
                counters[n].total += int(starts.size)
                if starts.size:
                    counters[n].add(ngram_keys(tids.ids, hashes, starts, n))
            del tids, hashes
        out = {}
        for n in orders:
            distinct, details = counters[n].distinct()
            out[n] = (distinct, counters[n].total, details)
        return out
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def stream_score(
    path: str | Path,
    metrics: Sequence[str],
    *,
    tokenizer: str = "whitespace",
    lowercase: bool = False,
    vocab: Vocab = BERT_VOCAB_SIZE,
    memory: int | str = "2G",
    approx: str | None = None,
    lg_k: int = 14,
) -> dict[str, Score]:
    """Corpus Distinct-n / avg-distinct / EAD-n of a text file (one response per line), streamed."""

    wanted = {}
    for name in metrics:
        order = ngram_metric(name)
        if order is None:
            raise InputError(
                f"{name}: streaming in bounded memory covers distinct-n, avg-distinct and ead-n"
            )
        wanted[name] = order
    orders = {n for metric, n in wanted.values() if metric != "avg-distinct"}
    if any(metric == "avg-distinct" for metric, _ in wanted.values()):
        orders |= {1, 2, 3, 4, 5}
    budget = parse_memory(memory)
    tok = get_tokenizer(tokenizer, lowercase)
    try:
        size = os.path.getsize(path)
        with open(path, encoding="utf-8", errors="strict") as fh:
            counts = stream_counts(
                fh,
                sorted(orders),
                tokenizer=tokenizer,
                lowercase=lowercase,
                memory=budget,
                size_hint=size,
                approx=approx,
                lg_k=lg_k,
            )
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    signature_extra = {"approx": f"hll-{lg_k}"} if approx else None
    out = {}
    for name, (metric, n) in wanted.items():
        out[name] = corpus_ngram_score(
            metric,
            n,
            lambda k: counts[k][:2],
            tok,
            vocab,
            signature_extra,
            lambda k: counts[k][2],
        ).with_metric(name)
    return out
