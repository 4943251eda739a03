"""All pairs of a corpus in bounded memory: a memory budget, a plan checked before any allocation,
blocks of pairs, and a seeded sample of pairs where all of them are too many.

A pairwise metric of n responses has n(n-1)/2 pairs (n(n-1) ordered): 200,000 responses are 2e10
pairs, so the pairs can never be listed at once. Here they are enumerated block by block from
their index (:func:`pair_blocks`): the memory of a block is bounded by the budget, what stays is
O(n) (one running sum per response). The budget is ``memory_budget`` (bytes, or a size such as
``"2G"``; the CLI's ``--memory-budget``), by default a quarter of the memory available now.

Before it starts, a metric builds a :class:`PairPlan` (memory and time from a cost model of the
metric, measured on this code) and calls :meth:`PairPlan.check`: past the budget it raises a
:class:`BudgetError` (one line: the estimate and the ways out) before allocating anything.

``pairs=N`` (the CLI's ``--pairs N``) scores N uniform random ordered pairs (i, j != i) drawn from
a seeded generator instead of all of them: the mean over ordered pairs is the corpus value of a
homogenization-style metric, so the sample mean is unbiased for it, and the result carries a
normal-approximation interval from the sample's standard error (``details["interval"]``) and
``pairs:N|seed:S`` in its signature. The draws come in fixed chunks, each from its own seed, so
the sample does not depend on the budget.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional, Union

import numpy as np

from .errors import InputError
from .progress import counter
from .sizes import parse_size, size_text

Progress = Callable[[int, int], Any]

#: fixed size of a chunk of sampled pairs: the sample is the same whatever the budget
SAMPLE_CHUNK = 1 << 16
#: a block never holds more pairs than this: bigger blocks are no faster, only larger
MAX_BLOCK_PAIRS = 1 << 20
#: the smallest block worth running (below it the per-block Python cost dominates)
MIN_BLOCK_PAIRS = 1 << 10
Z95 = 1.959963984540054


class BudgetError(InputError):
    """A computation would need more memory than the budget: raised before it starts."""


def available_memory() -> int:
    """Bytes of memory available now (psutil where installed, else /proc/meminfo's
    MemAvailable, else half the physical memory)."""
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except ImportError:
        pass
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (ValueError, OSError, AttributeError):
        return 4 << 30


def resolve_budget(value: Union[str, int, None]) -> tuple[int, str]:
    """(bytes, where the number comes from) of ``memory_budget``; None: 1/4 of what is available."""
    if value is None:
        return (
            max(available_memory() // 4, 64 << 20),
            "1/4 of the available memory; --memory-budget SIZE sets it",
        )
    return parse_size(value), "given by --memory-budget"


def check_pairs(pairs: Any) -> Optional[int]:
    """``pairs`` as a positive int (None stays None)."""
    if pairs is None:
        return None
    if isinstance(pairs, bool) or not isinstance(pairs, (int, np.integer)) or pairs < 1:
        raise InputError(f"--pairs must be a positive number of pairs, got {pairs!r}")
    return int(pairs)


def time_text(seconds: float) -> str:
    """``"about 3.2 h"``, ``"about 5 min"``, ``"about 12 s"`` or ``"under a second"``."""
    if seconds >= 3600:
        return f"about {seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"about {seconds / 60:.0f} min"
    return f"about {seconds:.0f} s" if seconds >= 1 else "under a second"


@dataclass(frozen=True)
class PairPlan:
    """What a pairwise computation will cost, known before it starts.

    base_bytes: memory held for the whole run (O(n): token ids, running sums, features);
    bytes_per_pair: memory of one pair inside a block; seconds_per_pair: the cost model's time;
    budget / budget_source: the memory budget and where it came from."""

    metric: str
    responses: int
    pairs: int
    base_bytes: int
    bytes_per_pair: float
    seconds_per_pair: float
    budget: int
    budget_source: str
    max_block: int = MAX_BLOCK_PAIRS

    @property
    def block_pairs(self) -> int:
        """Pairs per block: half of what the budget leaves after the base (the cost model is an
        estimate, and the interpreter and the input are outside it), within fixed bounds."""
        room = (self.budget - self.base_bytes) / 2 / max(self.bytes_per_pair, 1.0)
        return int(min(max(room, MIN_BLOCK_PAIRS), self.max_block, max(self.pairs, 1)))

    @property
    def peak_bytes(self) -> int:
        return int(self.base_bytes + self.bytes_per_pair * self.block_pairs)

    @property
    def least_bytes(self) -> int:
        """The least memory it can run in: the base and one smallest block."""
        return int(self.base_bytes + self.bytes_per_pair * min(MIN_BLOCK_PAIRS, self.pairs))

    @property
    def seconds(self) -> float:
        return self.pairs * self.seconds_per_pair

    def check(self, ways_out: str) -> None:
        """Raise BudgetError (one line: the estimate and ``ways_out``) when even the smallest
        block does not fit the budget."""
        if self.least_bytes <= self.budget:
            return
        raise BudgetError(
            f"{self.metric} on {self.responses:,} responses ({self.pairs:,} pairs) needs at least "
            f"{size_text(self.least_bytes)} and {time_text(self.seconds)}; the memory "
            f"budget is {size_text(self.budget)} ({self.budget_source}): {ways_out}"
        )

    def details(self) -> dict[str, Any]:
        return {
            "pairs": self.pairs,
            "memory_budget_bytes": self.budget,
            "estimated_peak_bytes": self.peak_bytes,
            "estimated_seconds": round(self.seconds, 3),
            "block_pairs": self.block_pairs,
        }


#: the ways out of a refused all-pairs homogenization run
PAIR_WAYS_OUT = (
    "sample pairs with --pairs N (seeded; the value then carries an interval), score sets "
    "instead of one corpus, or run it where more memory is (--engine ray on a larger node)"
)


def pair_counts(sizes: np.ndarray, ordered: bool) -> np.ndarray:
    sizes = np.asarray(sizes, dtype=np.int64)
    return sizes * (sizes - 1) if ordered else sizes * (sizes - 1) // 2


def pair_blocks(
    sizes: np.ndarray, block_pairs: int, ordered: bool = False
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(first, second) flat text indices of every pair inside each set, ``block_pairs`` at a
    time, in the order of :func:`diveval.data.unordered_pairs` (i > j, row by row) or
    :func:`diveval.data.ordered_pairs` (i, then j != i); never more than a block in memory."""
    sizes = np.asarray(sizes, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    cum = np.concatenate([[0], np.cumsum(pair_counts(sizes, ordered))]).astype(np.int64)
    total = int(cum[-1])
    step = max(int(block_pairs), 1)
    for a in range(0, total, step):
        p = np.arange(a, min(a + step, total), dtype=np.int64)
        s = np.searchsorted(cum, p, side="right") - 1
        local = p - cum[s]
        if ordered:
            m1 = sizes[s] - 1
            i = local // m1
            k = local - i * m1
            j = k + (k >= i)
        else:
            i, j = unrank_unordered(local)
        yield starts[s] + i, starts[s] + j


def unrank_unordered(local: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(i, j), i > j, of the unordered pair number ``local``: row i holds the pairs (i, 0..i-1),
    so local = i(i-1)/2 + j."""
    local = np.asarray(local, dtype=np.int64)
    i = np.floor((1.0 + np.sqrt(1.0 + 8.0 * local)) / 2.0).astype(np.int64)
    i -= (i * (i - 1) // 2) > local  # float round-off, one step either way
    i += ((i + 1) * i // 2) <= local
    return i, local - i * (i - 1) // 2


def sampled_pair_chunks(n: int, count: int, seed: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``count`` uniform random ordered pairs (i, j != i) of n items, in chunks of SAMPLE_CHUNK,
    chunk c drawn from the generator seeded (seed, c)."""
    for c, a in enumerate(range(0, count, SAMPLE_CHUNK)):
        k = min(SAMPLE_CHUNK, count - a)
        rng = np.random.default_rng([int(seed), c])
        i = rng.integers(0, n, size=k, dtype=np.int64)
        j = (i + 1 + rng.integers(0, n - 1, size=k, dtype=np.int64)) % n
        yield i, j


def split(first: np.ndarray, second: np.ndarray, size: int):
    """A chunk of pairs cut into blocks of at most ``size``."""
    for a in range(0, first.size, max(size, 1)):
        yield first[a : a + size], second[a : a + size]


class MeanInterval:
    """Mean and variance of a stream of values (Chan et al.'s pairwise merge), then the normal
    interval of the mean."""

    def __init__(self) -> None:
        self.count = 0
        self.mean = 0.0
        self.m2 = 0.0

    def add(self, values: np.ndarray) -> None:
        k = int(values.size)
        if k == 0:
            return
        mean_b = float(values.mean())
        m2_b = float(((values - mean_b) ** 2).sum())
        total = self.count + k
        delta = mean_b - self.mean
        self.mean += delta * k / total
        self.m2 += m2_b + delta * delta * self.count * k / total
        self.count = total

    def details(self, seed: int) -> dict[str, Any]:
        sd = math.sqrt(self.m2 / (self.count - 1)) if self.count > 1 else float("nan")
        se = sd / math.sqrt(self.count)
        return {
            "pairs": self.count,
            "seed": int(seed),
            "standard_error": se,
            "interval": {
                "low": self.mean - Z95 * se,
                "high": self.mean + Z95 * se,
                "confidence": 0.95,
                "method": "normal approximation, sample standard error",
            },
        }


def progress_callback(progress: Any, description: str, total: int):
    """A context manager yielding ``update(done)``: ``progress`` itself when it is a callable
    ``progress(done, total)``, else the shared progress bar (a terminal only; None or False: no
    bar unless the caller is the CLI)."""
    from contextlib import contextmanager

    @contextmanager
    def manager():
        if callable(progress):
            yield lambda done: progress(done, total)
            return

        with counter(description, total, enabled=None if progress else False) as update:
            yield update

    return manager()
