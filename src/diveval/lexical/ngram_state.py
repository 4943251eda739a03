"""The mergeable state of corpus Distinct-n, avg-distinct and EAD-n: one process, shards, Ray and
streaming all count through it, so their numbers cannot differ.

:class:`NgramCounts` keeps, per order, the sorted set of n-gram keys (:mod:`diveval.text.
stable_keys`: the same key for the same n-gram in every process, and its collision bound) and the
n-gram count; its fields are declared (:class:`~diveval.state.DeclaredState`), so merge and files
follow. The one-process metric counts exactly while its codes fit in 64 bits, so the two agree
except for a key collision. :class:`NgramState` reads any of the family's metrics from the counts;
:class:`NgramMetricState` is the state a metric row names (``Metric.state``): the counts of the
orders one metric needs and how to finish them (which metric, which order, which vocabulary).
Streamed in bounded memory (:meth:`NgramMetricState.bounded`), the keys go to spill files
partitioned by their top bits, or to HLL sketches (:mod:`diveval.lexical.ngram_stream`).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, ClassVar, Mapping, Sequence

import numpy as np

from ..constants import DEFAULT_TOKENIZER
from ..errors import InputError
from ..results import CORPUS, SETS, Score
from ..state import SUM, UNION, DeclaredState, Reduction, StreamPlan, Units
from ..text.ngrams import ngram_starts, unique_sorted
from ..text.prepared import encode_texts, signature_keys
from ..text.stable_keys import ngram_keys, token_hashes
from ..text.tokenizers import get_tokenizer, state_tokenizer
from .counts import Finish, counts_score
from .distinct import avg_distinct_of_counts, distinct_of_counts
from .ead import Vocab, ead_of_counts, resolve_vocab_size
from .ngram_stream import NgramCounters
from .ngram_table import NgramTable, WeightedNgramValues

__all__ = [
    "NgramCounts",
    "NgramMetricState",
    "NgramState",
    "StreamedNgramState",
    "corpus_ngram_score",
    "metric_orders",
    "ngram_keys",  # the keys' home is diveval.text.stable_keys; named here for older imports
    "ngram_metric_state",
    "token_hashes",
]


#: The formulas of the metrics the n-gram counts give (EAD's needs V: :func:`ngram_finish`).
NGRAM_METRICS = ("distinct", "avg-distinct", "ead")


def ngram_finish(metric: str, tokenizer: Any, vocab: Vocab | None = None) -> Finish:
    """The formula of ``metric`` over n-gram counts, the one its function form uses."""
    if metric == "distinct":
        return distinct_of_counts
    if metric == "avg-distinct":
        return avg_distinct_of_counts
    if metric == "ead":
        return ead_of_counts(resolve_vocab_size(vocab, tokenizer))
    raise InputError(f"n-gram counts give distinct, avg-distinct or ead, not {metric!r}")


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
    ``counts(order) -> (distinct, total)``, through the finisher and formula of the function
    forms (:func:`~diveval.lexical.counts.counts_score`) over one group (plus ``signature_extra``,
    e.g. an approximation, and ``details_extra(order)``)."""
    finish = ngram_finish(metric, tokenizer, vocab)
    keys = {**signature_keys(tokenizer, CORPUS), **(signature_extra or {})}

    def one_group(order: int) -> tuple[np.ndarray, np.ndarray]:
        distinct, total = counts(order)
        return np.array([distinct]), np.array([total])

    return counts_score(metric, finish, n, one_group, CORPUS, keys, details_extra)


class BatchedOrders(DeclaredState):
    """A state with one folded array ``<FOLDED><n>`` per n-gram order n in ``orders``: a batch
    waits in ``_pending[n]`` until the batches outgrow the folded array (so n updates cost
    O(total log total), not O(n * total log total)); ``_settle`` folds them all before a read.
    ``_combine``: the folded array of [folded, *batches]."""

    FOLDED: ClassVar[str]
    orders: list[int]
    _pending: dict[int, list[np.ndarray]]

    def _combine(self, parts: list[np.ndarray]) -> np.ndarray:
        raise NotImplementedError

    def _add(self, n: int, rows: np.ndarray) -> None:
        pending = self._pending[n]
        pending.append(rows)
        if sum(p.size for p in pending) >= getattr(self, f"{self.FOLDED}{n}").size:
            self._fold(n)

    def _fold(self, n: int) -> None:
        if self._pending[n]:
            name = f"{self.FOLDED}{n}"
            setattr(self, name, self._combine([getattr(self, name), *self._pending[n]]))
            self._pending[n].clear()

    def _settle(self) -> None:
        for n in self.orders:
            self._fold(n)


class NgramCounts(BatchedOrders):
    """Distinct and total n-grams of the orders ``orders``, mergeable across shards: the number of
    texts, ``total_{n}`` (n-grams of order n) and ``keys_{n}`` (their distinct keys, sorted) for
    each order n. A batch's keys wait in a list until they outgrow the sorted keys (so n updates
    cost O(total log total), not O(n * total)); ``_settle`` folds them in before a read."""

    SETTINGS: ClassVar[tuple[str, ...]] = ("orders", "tokenizer", "lowercase")
    FOLDED = "keys_"
    MERGE_THREADS = 2  # one sort per order at a time, as update(): numpy's sort releases the GIL

    def __init__(
        self,
        orders: Sequence[int] = (1, 2),
        tokenizer: str = DEFAULT_TOKENIZER,
        lowercase: bool = False,
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
        for n in orders:
            setattr(self, f"total_{n}", 0)
            setattr(self, f"keys_{n}", np.zeros(0, np.uint64))
        self._pending: dict[int, list[np.ndarray]] = {n: [] for n in orders}

    def fields(self) -> Mapping[str, Reduction]:
        out: dict[str, Reduction] = {"n_texts": SUM}
        for n in self.orders:
            out[f"total_{n}"] = SUM
            out[f"keys_{n}"] = UNION
        return out

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
                setattr(self, f"total_{n}", getattr(self, f"total_{n}") + total)
                if keys.size:
                    self._add(n, keys)

    def _combine(self, parts: list[np.ndarray]) -> np.ndarray:
        return unique_sorted(np.concatenate(parts))

    # -- results -------------------------------------------------------------------------------
    def keys(self, n: int) -> np.ndarray:
        """The sorted distinct keys of order n."""
        self._fold(n)
        return getattr(self, f"keys_{n}")

    def counts(self, n: int) -> tuple[int, int]:
        """(distinct n-grams, total n-grams) of order n."""
        if n not in self.orders:
            raise InputError(f"this state counts orders {self.orders}, not {n}")
        return int(self.keys(n).size), int(getattr(self, f"total_{n}"))


class NgramState(NgramCounts):
    """Corpus Distinct-n and EAD-n for n in ``orders``, mergeable across shards.

    >>> a, b = NgramState([1, 2]), NgramState([1, 2])
    >>> a.update(["a b a"]); b.update(["b a c"])
    >>> a.merge(b).result("distinct", n=1).value
    0.5
    """

    kind: ClassVar[str] = "ngrams"

    def result(self, metric: str, n: int = 2, vocab: Vocab | None = None) -> Score:
        """The corpus Score of ``distinct`` (order n), ``avg-distinct`` (orders 1..n) or ``ead``
        (order n; ``vocab`` as :func:`diveval.ead` takes it), with the one-process signature."""
        return corpus_ngram_score(metric, n, self.counts, self._tok, vocab)


def metric_orders(metric: str, n: int) -> list[int]:
    """The n-gram orders a metric reads: 1..n for avg-distinct, n for distinct-n and EAD-n."""
    return list(range(1, n + 1)) if metric == "avg-distinct" else [n]


class NgramMetricState(NgramCounts):
    """The state of one corpus metric of the n-gram family (``distinct``, ``avg-distinct``,
    ``ead``) at order ``n``: the counts of the orders it needs and how to finish them. The metric
    rows of :mod:`diveval.lexical.register` name it (:func:`ngram_metric_state`).

    >>> a, b = NgramMetricState("distinct", 1), NgramMetricState("distinct", 1)
    >>> a.update(["a b a"]); b.update(["b a c"])
    >>> a.merge(b).result().value
    0.5
    """

    kind: ClassVar[str] = "ngram-metric"
    SETTINGS: ClassVar[tuple[str, ...]] = ("metric", "n", "tokenizer", "lowercase", "vocab")

    def __init__(
        self,
        metric: str,
        n: int,
        tokenizer: str = DEFAULT_TOKENIZER,
        lowercase: bool = False,
        vocab: Vocab | None = None,
    ):
        if metric not in NGRAM_METRICS:
            raise InputError(f"n-gram counts give distinct, avg-distinct or ead, not {metric!r}")
        self.metric, self.n = metric, int(n)
        # a list of texts (a vocabulary corpus) is kept as a list: the header is JSON
        self.vocab = vocab if vocab is None or isinstance(vocab, (int, str)) else list(vocab)
        super().__init__(metric_orders(metric, self.n), tokenizer, lowercase)

    def result(self) -> Score:
        return corpus_ngram_score(self.metric, self.n, self.counts, self._tok, self.vocab)

    def group_values(self, counts: Callable[[int], tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        """The metric of each group of ``counts(order) -> (distinct, total)`` arrays, e.g. the
        resamples of a paired test, through the formula of the function form."""
        finish = ngram_finish(self.metric, self._tok, self.vocab)
        return finish(counts, self.n, SETS)[0]

    def unit_statistics(self, units: Units) -> WeightedNgramValues:
        """This metric on weighted sums of units (one text each): the per-unit sufficient
        statistics the paired tests resample (:mod:`diveval.lexical.ngram_table`), one table per
        tokenizer shared by the rows over the same units (``units.shared``)."""
        key = ("ngram-table", self.tokenizer, self.lowercase)
        if key not in units.shared:
            units.shared[key] = NgramTable([[u] for u in units.texts], self.orders, self._tok)
        return WeightedNgramValues(units.shared[key], self.group_values)

    def bounded(self, plan: StreamPlan) -> StreamedNgramState:
        """The same metric over a stream, in the memory of ``plan``: keys spilled to disk by
        partition, or counted by HLL sketches."""
        return StreamedNgramState(self, plan)


class StreamedNgramState:
    """An :class:`NgramMetricState` over a stream, in bounded memory (spill files or HLL
    sketches): updated chunk by chunk, finished once. Its keys live in spill files or sketches,
    not in fields, so it declares none and is not merged or saved (a split run merges the
    in-memory state)."""

    kind = "ngram-metric-streamed"

    def __init__(self, of: NgramMetricState, plan: StreamPlan | None = None) -> None:
        self.metric, self.n, self.vocab = of.metric, of.n, of.vocab
        self.plan = plan or StreamPlan(2 << 30)
        self._tok = of._tok
        self.counters = NgramCounters(of.orders, of.tokenizer, of.lowercase, self.plan)
        self.bytes_per_char = self.counters.bytes_per_char

    def update(self, texts: Sequence[str]) -> None:
        self.counters.update(texts)

    def result(self) -> Score:
        counts = self.counters.counts()
        extra = {"approx": f"hll-{self.plan.lg_k}"} if self.plan.approx else None
        return corpus_ngram_score(
            self.metric,
            self.n,
            lambda k: counts[k][:2],
            self._tok,
            self.vocab,
            extra,
            lambda k: counts[k][2],
        )

    def close(self) -> None:
        self.counters.close()


def ngram_metric_state(metric: str, n: int):
    """The state factory of a metric row: ``options -> NgramMetricState``."""

    def make(options: dict[str, Any]) -> NgramMetricState:
        return NgramMetricState(
            metric,
            n,
            state_tokenizer(options),
            bool(options.get("lowercase")),
            options.get("vocab"),
        )

    return make
