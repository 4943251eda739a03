"""Score caching for model-backed metrics: each (premise, hypothesis) pair and each text is sent to
a model at most once.

Three wrappers, each implementing the protocol of the model it wraps:

- ``CachedNLI(model)``: an ``NLIModel`` whose ``predict`` sends the model only the pairs it has not
  seen yet (de-duplicated within the call too), in ONE call, and returns the full [n, 3] matrix;
- ``CachedEmbedder(embedder)``: an ``Embedder`` whose ``encode`` encodes each unique text once;
- ``CachedPairScorer(scorer)``: a ``PairScorer`` (a similarity classifier) that scores each
  ordered pair once.

Each keeps results in memory for the life of the wrapper; with ``cache_dir`` it also reads and
writes an SQLite file ``<cache_dir>/diveval-cache.sqlite``, keyed by the model's name and weight
fingerprint and the texts, so a second run (another process) skips the model entirely.

Counters (``calls``, ``requested``, ``computed``, ``memory_hits``, ``disk_hits``; ``stats()``)
tell how much work the model did, e.g. for benchmarks or for incremental scoring::

    nli = CachedNLI(model)               # or cached_nli(model, cache_dir) to share one wrapper
    p = nli.predict(["a", "b"], ["b", "a"])   # model called on 2 pairs
    p = nli.predict(["a", "c"], ["b", "a"])   # model called on 1 pair: ("c", "a")
    nli.stats()  # {'calls': 2, 'requested': 4, 'computed': 3, 'memory_hits': 1, 'disk_hits': 0}

Values are stored as float64 (NLI probabilities) and float32 (embeddings), and returned in that
dtype on every run, so a cached run gives bit-identical scores to the run that filled the cache.
``cached_nli`` / ``cached_embedder`` return one shared wrapper per (model, cache_dir) in a process,
so several metrics of one run (nli-baseline, nli-counts, ...) share one cache.

Crash safety (a killed run must lose no model call and never read a torn file): SQLite's write-ahead log keeps the file whole when a process is killed
mid-write, and several processes and threads may write at once. Each value is stored with a
CRC-32 of its key and bytes, so a damaged row is never returned: it is recomputed and rewritten. A
file SQLite cannot read (not a database, a damaged page) is moved aside to ``*.corrupt`` and the
cache starts empty, with a ``CacheWarning``.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
import warnings
import zlib
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence, Union

import numpy as np

CACHE_FILE = "diveval-cache.sqlite"
_SQL_CHUNK = 500  # keys per SELECT ... IN (...), below SQLite's parameter limit


def _key(kind: str, name: str, fingerprint: str, *texts: str) -> bytes:
    """A 20-byte digest that identifies (kind, model, texts); unambiguous thanks to the lengths."""
    h = hashlib.blake2b(digest_size=20)
    for part in (kind, name, fingerprint, *texts):
        data = part.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.digest()


class CacheWarning(UserWarning):
    """The on-disk cache was damaged and has been rebuilt (scores are recomputed, never wrong)."""


_CHECK_BYTES = 4  # the CRC-32 after each stored value
_BUSY_WAIT = 60.0  # seconds a query waits for other writers before it gives up


def _busy(exc: BaseException) -> bool:
    """Another connection holds the lock: wait, never treat the file as damaged. SQLite's busy
    handler covers most waits, but a few lock steps (changing the journal mode, a read snapshot
    that turned stale) answer SQLITE_BUSY at once."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    message = str(exc).lower()
    return "locked" in message or "busy" in message


def _waiting(step):
    """``step()``, tried again with growing pauses while the file is busy, for ``_BUSY_WAIT`` s."""
    deadline = time.monotonic() + _BUSY_WAIT
    pause = 0.005
    while True:
        try:
            return step()
        except sqlite3.OperationalError as exc:
            if not _busy(exc) or time.monotonic() > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.25)


def _seal(key: bytes, value: bytes) -> bytes:
    return value + zlib.crc32(key + value).to_bytes(_CHECK_BYTES, "little")


def _unseal(key: bytes, blob: bytes) -> Optional[bytes]:
    """The value stored under ``key``, or None when its check does not match (a damaged row)."""
    value, check = blob[:-_CHECK_BYTES], blob[-_CHECK_BYTES:]
    if (
        len(blob) < _CHECK_BYTES
        or zlib.crc32(key + value).to_bytes(_CHECK_BYTES, "little") != check
    ):
        return None
    return value


class DiskCache:
    """A key -> float array store in one SQLite file; safe to share between processes (WAL)."""

    def __init__(self, cache_dir: Union[str, Path]):
        self.path = Path(cache_dir) / CACHE_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self.damaged_rows = 0  # rows whose check failed (recomputed)
        self.rebuilds = 0  # times the file was unreadable and started again
        try:
            self._db = _waiting(self._open)
        except sqlite3.DatabaseError as exc:
            if _busy(exc):  # a lock held for a minute is not damage: moving the file loses rows
                raise
            self._db = self._rebuild(exc)

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(str(self.path), timeout=_BUSY_WAIT, check_same_thread=False)
        try:
            # WAL is a property of the file: asked once, by whoever creates it. Asking again takes
            # an exclusive lock that concurrent openers would fight over.
            (mode,) = db.execute("PRAGMA journal_mode").fetchone()
            if str(mode).lower() != "wal":
                try:
                    db.execute("PRAGMA journal_mode=WAL")
                except sqlite3.OperationalError as exc:  # a network file system: default journal
                    if _busy(exc):
                        raise
            # quick_check reads every page's structure (not a full integrity_check): a damaged
            # file is found here, before a query meets it halfway through a run.
            (verdict,) = db.execute("PRAGMA quick_check").fetchone()
            if verdict != "ok":
                raise sqlite3.DatabaseError(f"quick_check: {verdict}")
            db.execute("CREATE TABLE IF NOT EXISTS scores (key BLOB PRIMARY KEY, value BLOB)")
            db.commit()
        except BaseException:
            db.close()
            raise
        return db

    def _rebuild(self, exc: Exception) -> sqlite3.Connection:
        """Move the unreadable file aside and start an empty cache, with a warning."""
        self.rebuilds += 1
        aside = self.path.with_name(self.path.name + ".corrupt")
        warnings.warn(
            f"the score cache {self.path} is damaged ({exc}); moved to {aside.name} and "
            "started again (scores are recomputed)",
            CacheWarning,
            stacklevel=3,
        )
        for suffix in ("-wal", "-shm"):
            side = self.path.with_name(self.path.name + suffix)
            if side.exists():
                os.replace(side, aside.with_name(aside.name + suffix))
        if self.path.exists():
            os.replace(self.path, aside)
        return self._open()

    def _recover(self, exc: Exception) -> None:
        """A query failed on a damaged file mid-run: reopen it (rebuilding when needed)."""
        try:
            self._db.close()
        except sqlite3.Error:
            pass
        try:
            self._db = _waiting(self._open)
        except sqlite3.DatabaseError as again:
            if _busy(again):
                raise
            self._db = self._rebuild(exc)

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, bytes]:
        """Values of the keys found (rows whose check fails are left out: recomputed)."""
        with self._lock:
            try:
                rows = _waiting(lambda: self._select(keys))
            except sqlite3.DatabaseError as exc:
                if _busy(exc):
                    raise
                self._recover(exc)
                rows = _waiting(lambda: self._select(keys))
        found: dict[bytes, bytes] = {}
        for key, blob in rows:
            value = _unseal(key, blob)
            if value is None:
                self.damaged_rows += 1
            else:
                found[key] = value
        return found

    def _select(self, keys: Sequence[bytes]) -> list[tuple[bytes, bytes]]:
        rows: list[tuple[bytes, bytes]] = []
        for s in range(0, len(keys), _SQL_CHUNK):
            chunk = list(keys[s : s + _SQL_CHUNK])
            marks = ",".join("?" * len(chunk))
            cur = self._db.execute(f"SELECT key, value FROM scores WHERE key IN ({marks})", chunk)
            rows.extend(cur.fetchall())
        return rows

    def put_many(self, items: Iterable[tuple[bytes, bytes]]) -> None:
        rows = [(k, _seal(k, v)) for k, v in items]
        with self._lock:
            try:
                _waiting(lambda: self._insert(rows))
            except sqlite3.DatabaseError as exc:
                if _busy(exc):
                    raise
                self._recover(exc)
                _waiting(lambda: self._insert(rows))

    def _insert(self, rows: list[tuple[bytes, bytes]]) -> None:
        # One transaction: a kill leaves all of these rows or none (the WAL is rolled back).
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO scores (key, value) VALUES (?, ?)", rows)

    def close(self) -> None:
        with self._lock:
            self._db.close()


_disk_caches: dict[str, DiskCache] = {}
_disk_caches_lock = threading.Lock()


def disk_cache(cache_dir: Union[str, Path, None]) -> Optional[DiskCache]:
    """One open DiskCache per folder and process (None when no folder is given)."""
    if cache_dir is None:
        return None
    where = str(Path(cache_dir).resolve())
    with _disk_caches_lock:  # threads of one process share one connection per folder
        if where not in _disk_caches:
            _disk_caches[where] = DiskCache(where)
        return _disk_caches[where]


#: what a cached model was asked and computed (``_Cached.stats``)
_COUNTS = ("calls", "requested", "computed", "memory_hits", "disk_hits")


class _Cached:
    kind = ""

    def __init__(self, model: Any, cache_dir: Union[str, Path, None] = None):
        self.model = model
        self.name = str(getattr(model, "name", type(model).__name__))
        self.fingerprint = str(getattr(model, "fingerprint", ""))
        if cache_dir is not None and not self.fingerprint:
            raise ValueError(f"model {self.name!r} has no fingerprint; an on-disk cache needs one")
        self.disk = disk_cache(cache_dir)
        self._memory: dict[Any, np.ndarray] = {}
        self._lock = threading.Lock()
        self.calls = 0  # calls made to the wrapped model
        self.requested = 0  # items asked of the wrapper
        self.computed = 0  # items the wrapped model computed
        self.memory_hits = 0
        self.disk_hits = 0

    def stats(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in _COUNTS}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model!r})"

    def clear_memory(self) -> None:
        self._memory.clear()

    def _call_model(self, firsts: list, seconds: list) -> np.ndarray:
        """The wrapped model on pairs of texts (:class:`CachedNLI`, :class:`CachedPairScorer`)."""
        raise NotImplementedError

    def _pairs(self, firsts: Sequence[str], seconds: Sequence[str], what: tuple, width: int):
        """[n, width] float64 values of the ordered pairs (firsts[i], seconds[i]), each pair
        computed once; ``what``: the two sides' names for the error of unequal lengths."""
        if len(firsts) != len(seconds):
            raise ValueError(f"{len(firsts)} {what[0]} but {len(seconds)} {what[1]}")
        keys = list(zip(firsts, seconds))
        if not keys:
            return np.zeros((0, width))

        def compute(pairs):
            values = self._call_model([a for a, _ in pairs], [b for _, b in pairs])
            return np.asarray(values, dtype=np.float64).reshape(-1, width)

        # np.array of the equal-shaped rows: the same array as np.stack, several times faster
        return np.array(self._lookup(keys, compute, np.float64), dtype=np.float64)

    def _lookup(self, keys: list, compute, dtype) -> list[np.ndarray]:
        """Values for ``keys`` (hashable, in order): memory, then disk, then ONE model call."""
        with self._lock:
            self.requested += len(keys)
            missing = [k for k in dict.fromkeys(keys) if k not in self._memory]
            self.memory_hits += len(keys) - len(missing)
            if missing and self.disk is not None:
                digests = {k: _key(self.kind, self.name, self.fingerprint, *k) for k in missing}
                stored = self.disk.get_many(list(digests.values()))
                still = []
                for k in missing:
                    blob = stored.get(digests[k])
                    if blob is None or len(blob) % np.dtype(dtype).itemsize:
                        still.append(k)
                    else:
                        self._memory[k] = np.frombuffer(blob, dtype=dtype)
                self.disk_hits += len(missing) - len(still)
                missing = still
            if missing:
                values = np.asarray(compute(missing), dtype=dtype)
                if values.shape[0] != len(missing):
                    raise ValueError(
                        f"model {self.name!r} returned {values.shape[0]} rows "
                        f"for {len(missing)} inputs"
                    )
                self.calls += 1
                self.computed += len(missing)
                if values.ndim >= 2:
                    # one read-only copy; its rows are read-only views (no per-row work: this
                    # loop runs for every pair of an NLI run)
                    block = np.array(values, dtype=dtype, order="C")
                    block.setflags(write=False)
                    self._memory.update(zip(missing, block))
                else:
                    for k, v in zip(missing, values):
                        v = np.ascontiguousarray(v)
                        v.setflags(write=False)
                        self._memory[k] = v
                if self.disk is not None:
                    self.disk.put_many(
                        (
                            _key(self.kind, self.name, self.fingerprint, *k),
                            self._memory[k].tobytes(),
                        )
                        for k in missing
                    )
            return [self._memory[k] for k in keys]


class CachedNLI(_Cached):
    """An NLIModel that computes each (premise, hypothesis) pair once; see the module docstring."""

    kind = "nli"

    def _call_model(self, firsts: list, seconds: list) -> np.ndarray:
        return self.model.predict(firsts, seconds)

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Probabilities [n, 3] (contradiction, neutral, entailment), float64."""
        return self._pairs(premises, hypotheses, ("premises", "hypotheses"), 3)


class CachedEmbedder(_Cached):
    """An Embedder that encodes each unique text once; see the module docstring."""

    kind = "emb"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings [n, d], float32."""
        keys = [(t,) for t in texts]
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)

        def compute(items):
            return self.model.encode([t for (t,) in items])

        return np.array(self._lookup(keys, compute, np.float32), dtype=np.float32)


class CachedPairScorer(_Cached):
    """A PairScorer that scores each ordered (first, second) pair once; see the module docstring."""

    kind = "pair-score"

    def _call_model(self, firsts: list, seconds: list) -> np.ndarray:
        return self.model.score_pairs(firsts, seconds)

    def score_pairs(self, firsts: Sequence[str], seconds: Sequence[str]) -> np.ndarray:
        """Scores [n], float64."""
        return self._pairs(firsts, seconds, ("first texts", "second texts"), 1).reshape(-1)


_wrappers: dict[tuple, _Cached] = {}
_wrappers_lock = threading.Lock()


def _shared(cls, model: Any, cache_dir) -> Any:
    if isinstance(model, cls) and (cache_dir is None or model.disk is disk_cache(cache_dir)):
        return model
    where = None if cache_dir is None else str(Path(cache_dir).resolve())
    key = (cls.kind, id(model), where)
    with _wrappers_lock:
        found = _wrappers.get(key)
        if found is None or found.model is not model:
            found = _wrappers[key] = cls(model, cache_dir)
        return found


def cached_nli(model: Any, cache_dir: Union[str, Path, None] = None) -> CachedNLI:
    """The process-wide CachedNLI of ``model`` (and ``cache_dir``); a CachedNLI is returned as is."""
    return _shared(CachedNLI, model, cache_dir)


def cached_embedder(model: Any, cache_dir: Union[str, Path, None] = None) -> CachedEmbedder:
    """The process-wide CachedEmbedder of ``model`` (and ``cache_dir``)."""
    return _shared(CachedEmbedder, model, cache_dir)


def cached_pair_scorer(model: Any, cache_dir: Union[str, Path, None] = None) -> CachedPairScorer:
    """The process-wide CachedPairScorer of ``model`` (and ``cache_dir``)."""
    return _shared(CachedPairScorer, model, cache_dir)
