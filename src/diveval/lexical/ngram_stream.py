"""Corpus Distinct-n / EAD-n of a stream larger than memory, in bounded memory.

Each chunk's n-gram keys (the shard-independent 64-bit keys of :mod:`diveval.text.stable_keys`,
same collision bound) are de-duplicated and appended to spill files partitioned by their top bits
(a radix partition), so that each partition holds about 1/P of the keys and fits the memory budget
on its own. The distinct count of an order is the sum over partitions of the distinct keys in each:
one partition in memory at a time. Peak memory is about one chunk plus one partition, both sized
from the budget.

``approx="hll"`` counts with Apache DataSketches HLL sketches instead of spill files (no disk, a
few KB of memory per order): the result carries the sketch's relative standard error and its 95 %
bounds in ``details``, and ``approx:hll-<lg_k>`` in the signature, so it is never mistaken for an
exact count.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from ..constants import DEFAULT_TOKENIZER
from ..errors import InputError, MissingDependencyError
from ..state import StreamPlan, text_chunks
from ..text.ngrams import ngram_starts, unique_sorted
from ..text.prepared import encode_texts
from ..text.stable_keys import ngram_keys, token_hashes
from ..text.tokenizers import get_tokenizer


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


class NgramCounters:
    """Distinct and total n-grams of several orders over a stream of chunks, in the memory of
    ``plan``; :meth:`close` (or :meth:`counts`) removes the spill files."""

    def __init__(
        self, orders: Sequence[int], tokenizer: str, lowercase: bool, plan: StreamPlan
    ) -> None:
        if plan.approx not in (None, "hll"):
            raise InputError(f"approx must be None or 'hll', got {plan.approx!r}")
        if plan.approx and not 4 <= plan.lg_k <= 21:
            raise InputError(f"lg_k must be in 4..21, got {plan.lg_k}")
        self.orders = sorted(set(orders))
        self._tok = get_tokenizer(tokenizer, lowercase)
        # a chunk's keys, sorted with temporaries, take about 24 bytes per token per order
        self.bytes_per_char = 24 * len(self.orders) / 4
        bits = 0
        if not plan.approx and plan.size_hint:
            keys_bound = plan.size_hint / 2  # a token takes at least 2 bytes with its separator
            need = keys_bound * 8 * 3 / (plan.memory / 2)
            bits = max(0, int(np.ceil(np.log2(max(need, 1)))))
        self.folder = (
            None
            if plan.approx
            else Path(tempfile.mkdtemp(prefix="diveval-spill-", dir=plan.spill_dir))
        )
        lg_k = plan.lg_k if plan.approx else None
        try:
            self.counters = {n: _Counter(n, self.folder, bits, lg_k) for n in self.orders}
        except BaseException:
            self.close()
            raise

    def update(self, texts: Sequence[str]) -> None:
        tids = encode_texts(list(texts), self._tok)
        hashes = token_hashes(tids.vocab)
        for n in self.orders:
            starts = ngram_starts(tids, n)
            self.counters[n].total += int(starts.size)
            if starts.size:
                self.counters[n].add(ngram_keys(tids.ids, hashes, starts, n))

    def counts(self) -> dict[int, tuple[int, int, dict[str, Any]]]:
        try:
            out = {}
            for n in self.orders:
                distinct, details = self.counters[n].distinct()
                out[n] = (distinct, self.counters[n].total, details)
            return out
        finally:
            self.close()

    def close(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


def chunk_chars(memory: int, bytes_per_char: float) -> int:
    """Characters per chunk for a budget of ``memory`` bytes: half for the chunk's temporaries."""
    return max(1 << 16, int(memory / 2 / (bytes_per_char + 16)))


def stream_counts(
    lines: Iterable[str],
    orders: Sequence[int],
    *,
    tokenizer: str = DEFAULT_TOKENIZER,
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
    plan = StreamPlan(
        memory, size_hint, approx, lg_k, None if spill_dir is None else str(spill_dir)
    )
    counters = NgramCounters(orders, tokenizer, lowercase, plan)
    try:
        for chunk in text_chunks(lines, chunk_chars(memory, counters.bytes_per_char)):
            counters.update([line.rstrip("\r\n") for line in chunk])
        return counters.counts()
    finally:
        counters.close()
