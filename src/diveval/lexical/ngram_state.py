"""The mergeable state of corpus Distinct-n, avg-distinct and EAD-n: one process, shards, Ray and
streaming all count through it, so their numbers cannot differ.

:class:`NgramState` keeps, per order, the set of n-gram keys and the n-gram count. A key must mean
the same n-gram in every shard, so it cannot be the per-run token id of :mod:`diveval.text.ngrams`:
each token is hashed from its UTF-8 bytes (64 bits) and the n token hashes are chained through the
same bijective 64-bit mixer as the n-gram engine. Collision bound: two different n-grams share a
key with probability about n * 2**-64 (plus the tokens' own, L * 2**-64 for tokens of L bytes: see
:func:`token_hashes`), so among D distinct n-grams the expected number of merged pairs is below
n * D**2 / 2**65 (under 1e-5 for D = 10M, about 0.1 for D = 10 billion at n = 4); each merged pair
lowers a distinct count by one. The one-process metric counts exactly while its codes fit in 64
bits, so the two agree except for such a collision.

:class:`NgramMetricState` is the state a metric row names (``Metric.state``): the counts of the
orders one metric needs and how to finish them (which metric, which order, which vocabulary).
Streamed in bounded memory (:meth:`NgramMetricState.bounded`), the keys go to spill files
partitioned by their top bits, or to HLL sketches (:mod:`diveval.lexical.ngram_stream`).

States are saved as ``.npz`` (numpy arrays plus a JSON header, no pickle: a state file from a
cluster node is data, never code) with a format version; loading another version or merging
states of different settings is an :class:`~diveval.errors.InputError`.
"""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, ClassVar, Mapping, Sequence

import numpy as np

from ..errors import InputError
from ..results import CORPUS, Score, make_signature
from ..state_files import load_state, save_state
from ..text.ngrams import HASH_STEP, mix64, ngram_starts, union_sorted, unique_sorted
from ..text.prepared import encode_texts
from ..text.tokenizers import get_tokenizer
from .ead import (
    Vocab,
    ead_details,
    ead_value,
    resolve_vocab_size,
)

# Tokens up to this many UTF-8 bytes are hashed by the vectorised chain below; longer ones (rare)
# by BLAKE2b, one at a time.
_SHORT_TOKEN = 64


def token_hashes(vocab: Sequence[str]) -> np.ndarray:
    """A 64-bit hash of each token's text, the same in every process and on every machine.

    A chain over the token's bytes, column by column for the whole vocabulary at once (a Python
    call per token cost 4 times the n-gram counting of a 2M-token shard): seeded with the byte
    length, each byte steps the state through the bijective mixer, then one final mix. Two
    different tokens of L bytes collide with probability about L * 2**-64.
    """
    data = [t.encode("utf-8", "surrogatepass") for t in vocab]
    lengths = np.fromiter(map(len, data), dtype=np.int64, count=len(data))
    offsets = np.zeros(len(data) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    flat = np.frombuffer(b"".join(data), dtype=np.uint8)
    h = lengths.astype(np.uint64) * HASH_STEP
    short = lengths <= _SHORT_TOKEN
    for col in range(int(lengths[short].max()) if short.any() else 0):
        active = np.flatnonzero(short & (lengths > col))
        x = mix64(h[active])
        x *= HASH_STEP
        x += flat[offsets[active] + col].astype(np.uint64) + np.uint64(1)
        h[active] = x
    mix64(h)
    for i in np.flatnonzero(~short):
        digest = hashlib.blake2b(data[i], digest_size=8).digest()
        h[i] = int.from_bytes(digest, "little")
    return h


def ngram_keys(ids: np.ndarray, hashes: np.ndarray, starts: np.ndarray, n: int) -> np.ndarray:
    """Shard-independent keys (uint64) of the n-grams that start at ``starts``."""
    keys = hashes[ids[starts]]
    for k in range(1, n):
        mix64(keys)
        keys *= HASH_STEP
        keys += hashes[ids[starts + k]]
    return keys


def corpus_ngram_score(
    metric: str,
    n: int,
    counts: Callable[[int], tuple[int, int]],
    tokenizer: Any,
    vocab: Vocab | None = None,
    signature_extra: dict[str, Any] | None = None,
    details_extra: Callable[[int], dict[str, Any]] | None = None,
) -> Score:
    """The corpus Score of ``distinct``, ``avg-distinct`` (orders 1..n) or ``ead`` from
    ``counts(order) -> (distinct, total)``, with the signature and details the in-memory metric
    gives (plus ``signature_extra``, e.g. an approximation, and ``details_extra(order)``)."""
    sig_keys = {**tokenizer.signature, "setting": CORPUS, **(signature_extra or {})}
    if metric == "avg-distinct":
        ratios = [d / t if t else 0.0 for d, t in map(counts, range(1, n + 1))]
        sig = make_signature("avg-distinct", n=f"1-{n}", **sig_keys)
        return Score(metric, float(np.mean(ratios)), sig, CORPUS, None, {})
    distinct, total = counts(n)
    details: dict[str, Any] = {}
    if metric == "distinct":
        value = distinct / total if total else 0.0
        details = {
            "distinct_ngrams": distinct,
            "total_ngrams": total,
            "empty_sets": int(total == 0),
        }
        sig = make_signature("distinct", n=n, **sig_keys)
    elif metric == "ead":
        size, how = resolve_vocab_size(vocab, tokenizer)
        value = ead_value(distinct, total, float(size) ** n)
        details = ead_details([value], distinct, size, False, n)
        sig = make_signature("ead", n=n, V=how, **sig_keys)
    else:
        raise InputError(f"corpus n-gram counts give distinct, avg-distinct or ead, not {metric!r}")
    if details_extra is not None:
        details.update(details_extra(n))
    return Score(metric, value, sig, CORPUS, None, details)


class NgramState:
    """Corpus Distinct-n and EAD-n for n in ``orders``, mergeable across shards.

    >>> a, b = NgramState([1, 2]), NgramState([1, 2])
    >>> a.update(["a b a"]); b.update(["b a c"])
    >>> a.merge(b).result("distinct", n=1).value
    0.5
    """

    kind: ClassVar[str] = "ngrams"

    def __init__(
        self, orders: Sequence[int] = (1, 2), tokenizer: str = "whitespace", lowercase: bool = False
    ):
        orders = sorted({int(n) for n in orders})
        if not orders or orders[0] < 1:
            raise InputError(f"n-gram orders must be positive integers, got {orders}")
        if not isinstance(tokenizer, str):
            raise InputError("a state names its tokenizer (a string), so that it can be saved")
        self.orders = orders
        self.tokenizer = tokenizer
        self.lowercase = bool(lowercase)
        self._tok = get_tokenizer(tokenizer, lowercase)
        self.n_texts = 0
        self.totals = dict.fromkeys(orders, 0)
        # per order: merged sorted unique keys, plus batches not merged yet (merged when they
        # outgrow the merged part, so n updates cost O(total log total), not O(n * total))
        self._keys = {n: np.zeros(0, np.uint64) for n in orders}
        self._pending: dict[int, list[np.ndarray]] = {n: [] for n in orders}

    # -- building ------------------------------------------------------------------------------
    def update(self, texts: Sequence[str]) -> None:
        """Add a batch of texts (a corpus slice; n-grams never cross texts)."""
        texts = list(texts)
        if not all(isinstance(t, str) for t in texts):
            raise InputError("a corpus state takes a list of texts (str)")
        tids = encode_texts(texts, self._tok)
        hashes = token_hashes(tids.vocab)
        self.n_texts += len(texts)

        def one(n: int) -> tuple[int, np.ndarray]:
            starts = ngram_starts(tids, n)
            return int(starts.size), unique_sorted(ngram_keys(tids.ids, hashes, starts, n))

        # two threads, as the in-memory metric: numpy's sort releases the GIL
        with ThreadPoolExecutor(max_workers=2) as pool:
            for n, (total, keys) in zip(self.orders, pool.map(one, self.orders)):
                self.totals[n] += total
                if keys.size:
                    self._add(n, keys)

    def _add(self, n: int, keys: np.ndarray) -> None:
        pending = self._pending[n]
        pending.append(keys)
        if sum(p.size for p in pending) >= self._keys[n].size:
            self._keys[n] = unique_sorted(np.concatenate([self._keys[n], *pending]))
            pending.clear()

    def keys(self, n: int) -> np.ndarray:
        """The sorted distinct keys of order n."""
        if self._pending[n]:
            self._keys[n] = unique_sorted(np.concatenate([self._keys[n], *self._pending[n]]))
            self._pending[n].clear()
        return self._keys[n]

    def settings(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "orders": self.orders,
            "tokenizer": self.tokenizer,
            "lowercase": self.lowercase,
        }

    def merge(self, *others: NgramState) -> NgramState:
        """A new state for the union of this input and the others' (one sort per order, however
        many states: merging them one by one would sort the growing union again each time)."""
        for other in others:
            if not isinstance(other, NgramState) or other.settings() != self.settings():
                theirs = other.settings() if isinstance(other, NgramState) else type(other).__name__
                raise InputError(
                    f"cannot merge states of different settings: {self.settings()} and {theirs}"
                )
        everyone = (self, *others)
        out = NgramState(self.orders, self.tokenizer, self.lowercase)
        out.n_texts = sum(s.n_texts for s in everyone)
        for n in self.orders:
            out.totals[n] = sum(s.totals[n] for s in everyone)

        def union(n: int) -> np.ndarray:
            return union_sorted([s.keys(n) for s in everyone])

        # one thread per order, as update(): numpy's sort releases the GIL
        with ThreadPoolExecutor(max_workers=2) as pool:
            for n, keys in zip(self.orders, pool.map(union, self.orders)):
                out._keys[n] = keys
        return out

    # -- results -------------------------------------------------------------------------------
    def counts(self, n: int) -> tuple[int, int]:
        """(distinct n-grams, total n-grams) of order n."""
        if n not in self.totals:
            raise InputError(f"this state counts orders {self.orders}, not {n}")
        return int(self.keys(n).size), self.totals[n]

    def result(self, metric: str, n: int = 2, vocab: Vocab | None = None) -> Score:
        """The corpus Score of ``distinct`` (order n), ``avg-distinct`` (orders 1..n) or ``ead``
        (order n; ``vocab`` as :func:`diveval.ead` takes it), with the one-process signature."""
        return corpus_ngram_score(metric, n, self.counts, self._tok, vocab)

    # -- files ---------------------------------------------------------------------------------
    def dump(self) -> tuple[dict[str, Any], dict[str, Any]]:
        header = {"n_texts": self.n_texts, "totals": {str(n): t for n, t in self.totals.items()}}
        return header, {f"keys_{n}": self.keys(n) for n in self.orders}

    @classmethod
    def restore(cls, header: dict[str, Any], data: Mapping[str, Any]) -> NgramState:
        state = cls(header["orders"], header["tokenizer"], header["lowercase"])
        state.n_texts = int(header["n_texts"])
        for n in state.orders:
            state.totals[n] = int(header["totals"][str(n)])
            state._keys[n] = np.asarray(data[f"keys_{n}"], dtype=np.uint64)
        return state

    def save(self, path: str | Path) -> None:
        save_state(path, self, *self.dump())

    @classmethod
    def load(cls, path: str | Path) -> NgramState:
        return load_state(path, cls.kind, cls.restore)


def metric_orders(metric: str, n: int) -> list[int]:
    """The n-gram orders a metric reads: 1..n for avg-distinct, n for distinct-n and EAD-n."""
    return list(range(1, n + 1)) if metric == "avg-distinct" else [n]


class NgramMetricState:
    """The state of one corpus metric of the n-gram family (``distinct``, ``avg-distinct``,
    ``ead``) at order ``n``: the counts it needs and how to finish them. The metric rows of
    :mod:`diveval.lexical.register` name it (:func:`ngram_metric_state`).

    >>> a, b = NgramMetricState("distinct", 1), NgramMetricState("distinct", 1)
    >>> a.update(["a b a"]); b.update(["b a c"])
    >>> a.merge(b).result().value
    0.5
    """

    kind: ClassVar[str] = "ngram-metric"

    def __init__(
        self,
        metric: str,
        n: int,
        tokenizer: str = "whitespace",
        lowercase: bool = False,
        vocab: Vocab | None = None,
    ):
        if metric not in ("distinct", "avg-distinct", "ead"):
            raise InputError(f"n-gram counts give distinct, avg-distinct or ead, not {metric!r}")
        self.metric, self.n = metric, int(n)
        # a list of texts (a vocabulary corpus) is kept as a list: the header is JSON
        self.vocab = vocab if vocab is None or isinstance(vocab, (int, str)) else list(vocab)
        self.counts = NgramState(metric_orders(metric, self.n), tokenizer, lowercase)

    def settings(self) -> dict[str, Any]:
        counts = {k: v for k, v in self.counts.settings().items() if k != "kind"}
        return {
            "kind": self.kind,
            "metric": self.metric,
            "n": self.n,
            "vocab": self.vocab,
            **counts,
        }

    def update(self, texts: Sequence[str]) -> None:
        self.counts.update(texts)

    def merge(self, *others: NgramMetricState) -> NgramMetricState:
        from ..state import check_mergeable

        check_mergeable(self, others)
        out = self._like()
        out.counts = self.counts.merge(*(o.counts for o in others))
        return out

    def _like(self) -> NgramMetricState:
        c = self.counts
        return NgramMetricState(self.metric, self.n, c.tokenizer, c.lowercase, self.vocab)

    def result(self) -> Score:
        return self.counts.result(self.metric, n=self.n, vocab=self.vocab)

    def bounded(self, plan: Any) -> Any:
        """The same metric over a stream, in the memory of ``plan`` (a :class:`diveval.state.
        StreamPlan`): keys spilled to disk by partition, or counted by HLL sketches."""
        from .ngram_stream import StreamedNgramState

        c = self.counts
        return StreamedNgramState(self.metric, self.n, c.tokenizer, c.lowercase, self.vocab, plan)

    def dump(self) -> tuple[dict[str, Any], dict[str, Any]]:
        return self.counts.dump()

    @classmethod
    def restore(cls, header: dict[str, Any], data: Mapping[str, Any]) -> NgramMetricState:
        state = cls(
            header["metric"], header["n"], header["tokenizer"], header["lowercase"], header["vocab"]
        )
        state.counts = NgramState.restore(header, data)
        return state

    def save(self, path: str | Path) -> None:
        save_state(path, self, *self.dump())

    @classmethod
    def load(cls, path: str | Path) -> NgramMetricState:
        return load_state(path, cls.kind, cls.restore)


def ngram_metric_state(metric: str, n: int):
    """The state factory of a metric row: ``options -> NgramMetricState``."""

    def make(options: dict[str, Any]) -> NgramMetricState:
        tokenizer = options.get("tokenizer", "whitespace")
        if not isinstance(tokenizer, str):
            raise InputError(
                "a split run names its tokenizer (a string), so that states can be saved"
            )
        return NgramMetricState(
            metric,
            n,
            tokenizer,
            bool(options.get("lowercase")),
            options.get("vocab"),
        )

    return make
