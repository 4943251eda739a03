"""Mergeable states of the corpus setting of GEM's n-gram measures (entropy-n, cond-entropy-n,
unique-n) and of intra-distinct-n, so that they shard, stream and run on Ray with the numbers of
one process.

The n-gram counts are sufficient statistics: :class:`GemNgramState` keeps, per order it needs,
each distinct n-gram's shard-independent key (:func:`diveval.lexical.ngram_state.ngram_keys`, the
same 64-bit keys and collision bound as the Distinct-n state) with its count; cond-entropy-n also
keeps, for each n-gram, the key of its first n-1 words (the chained key's previous step, so the
same key the (n-1)-gram has). Merging adds the counts of equal keys. :class:`IntraDistinctState`
keeps the sum of the responses' own Distinct-n, how many had an n-gram and how many had none.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from ..errors import InputError
from ..results import CORPUS, Score, make_signature
from ..state_files import load_state, save_state
from ..text.ngrams import distinct_per_group, ngram_starts
from ..text.prepared import encode_texts
from ..text.stable_keys import ngram_keys, token_hashes
from ..text.tokenizers import get_tokenizer
from .gem import drop_punctuation

GEM_NGRAM_METRICS = ("entropy", "cond-entropy", "unique")


def _tokenizer_name(options: Mapping[str, Any]) -> str:
    tokenizer = options.get("tokenizer", "whitespace")
    if not isinstance(tokenizer, str):
        raise InputError("a split run names its tokenizer (a string), so that states can be saved")
    return tokenizer


def _add_counts(
    keys: np.ndarray, counts: np.ndarray, prefix: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Equal keys made one, their counts summed (keys ascending; a key's prefix is the same
    wherever it occurs, so any copy of it will do)."""
    order = np.argsort(keys, kind="stable")
    keys, counts = keys[order], counts[order]
    first = np.ones(keys.size, dtype=bool)
    if keys.size:
        np.not_equal(keys[1:], keys[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    summed = np.add.reduceat(counts, starts) if keys.size else counts
    return (
        keys[starts],
        summed.astype(np.int64),
        (None if prefix is None else prefix[order][starts]),
    )


class GemNgramState:
    """Corpus entropy-n, cond-entropy-n or unique-n from n-gram counts that merge.

    >>> a, b = GemNgramState("entropy", 1), GemNgramState("entropy", 1)
    >>> a.update(["a b"]); b.update(["a c"])
    >>> a.merge(b).result().value
    1.5
    """

    kind: ClassVar[str] = "gem-ngrams"

    def __init__(
        self,
        metric: str,
        n: int,
        keep_punctuation: bool = True,
        tokenizer: str = "whitespace",
        lowercase: bool = False,
    ):
        if metric not in GEM_NGRAM_METRICS:
            raise InputError(f"GEM n-gram counts give {', '.join(GEM_NGRAM_METRICS)}, not {metric}")
        self.metric, self.n = metric, int(n)
        self.keep_punctuation = bool(keep_punctuation)
        self.tokenizer, self.lowercase = tokenizer, bool(lowercase)
        self._tok = get_tokenizer(tokenizer, lowercase)
        self.orders = [self.n - 1, self.n] if metric == "cond-entropy" else [self.n]
        self.keys = {k: np.zeros(0, np.uint64) for k in self.orders}
        self.counts = {k: np.zeros(0, np.int64) for k in self.orders}
        self.prefix = np.zeros(0, np.uint64)  # cond-entropy: per key of order n
        self._pending: dict[int, list[tuple[Any, Any, Any]]] = {k: [] for k in self.orders}

    def settings(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "metric": self.metric,
            "n": self.n,
            "keep_punctuation": self.keep_punctuation,
            "tokenizer": self.tokenizer,
            "lowercase": self.lowercase,
        }

    def _like(self) -> GemNgramState:
        return GemNgramState(
            self.metric, self.n, self.keep_punctuation, self.tokenizer, self.lowercase
        )

    def update(self, texts: Sequence[str]) -> None:
        """Add a batch of texts (n-grams never cross texts)."""
        texts = list(texts)
        if not all(isinstance(t, str) for t in texts):
            raise InputError("a corpus state takes a list of texts (str)")
        tids = encode_texts(texts, self._tok)
        if not self.keep_punctuation:
            tids = drop_punctuation(tids)
        hashes = token_hashes(tids.vocab)
        for k in self.orders:
            starts = ngram_starts(tids, k)
            keys = ngram_keys(tids.ids, hashes, starts, k)
            prefix = None
            if self.metric == "cond-entropy" and k == self.n:
                prefix = ngram_keys(tids.ids, hashes, starts, k - 1)
            self._add(k, keys, np.ones(keys.size, np.int64), prefix)

    def _add(self, k: int, keys: np.ndarray, counts: np.ndarray, prefix) -> None:
        """Queue a batch; batches are folded in when they outgrow the folded part, so n updates
        cost O(total log total), not O(n * total log total)."""
        pending = self._pending[k]
        pending.append((keys, counts, prefix))
        if sum(p[0].size for p in pending) >= self.keys[k].size:
            self._fold(k)

    def _fold(self, k: int) -> None:
        pending = self._pending[k]
        if not pending:
            return
        with_prefix = self.metric == "cond-entropy" and k == self.n
        keys, counts, prefix = _add_counts(
            np.concatenate([self.keys[k], *(p[0] for p in pending)]),
            np.concatenate([self.counts[k], *(p[1] for p in pending)]),
            np.concatenate([self.prefix, *(p[2] for p in pending)]) if with_prefix else None,
        )
        pending.clear()
        self.keys[k], self.counts[k] = keys, counts
        if prefix is not None:
            self.prefix = prefix

    def _folded(self) -> GemNgramState:
        for k in self.orders:
            self._fold(k)
        return self

    def merge(self, *others: GemNgramState) -> GemNgramState:
        from ..state import check_mergeable

        check_mergeable(self, others)
        out = self._like()
        for s in (self, *others):
            s._folded()
            for k in self.orders:
                with_prefix = self.metric == "cond-entropy" and k == self.n
                out._pending[k].append((s.keys[k], s.counts[k], s.prefix if with_prefix else None))
        return out._folded()

    def result(self) -> Score:
        """The Score :func:`diveval.lexical.gem.entropy` (``cond_entropy``, ``unique_ngrams``)
        gives on all the texts, in the corpus setting."""
        self._folded()
        counts = self.counts[self.n]
        total = int(counts.sum())
        details: dict[str, Any] = {"empty_sets": int(total == 0)}
        value = 0.0
        if self.metric == "unique":
            value = float(np.count_nonzero(counts == 1))
            details = {"distinct_ngrams": int(counts.size), **details}
        elif total:
            p = counts / total
            if self.metric == "entropy":
                value = float(-np.sum(p * np.log2(p)))
            else:
                ctx_keys, ctx_counts = self.keys[self.n - 1], self.counts[self.n - 1]
                q = ctx_counts[np.searchsorted(ctx_keys, self.prefix)] / ctx_counts.sum()
                value = float(-np.sum(p * np.log2(p / q)))
        sig = make_signature(
            self.metric,
            n=self.n,
            punct=self.keep_punctuation,
            **self._tok.signature,
            setting=CORPUS,
        )
        return Score(self.metric, value + 0.0, sig, CORPUS, None, details)

    def dump(self) -> tuple[dict[str, Any], dict[str, Any]]:
        self._folded()
        arrays: dict[str, Any] = {}
        for k in self.orders:
            arrays[f"keys_{k}"], arrays[f"counts_{k}"] = self.keys[k], self.counts[k]
        if self.metric == "cond-entropy":
            arrays["prefix"] = self.prefix
        return {}, arrays

    @classmethod
    def restore(cls, header: dict[str, Any], data: Mapping[str, Any]) -> GemNgramState:
        state = cls(
            header["metric"],
            header["n"],
            header["keep_punctuation"],
            header["tokenizer"],
            header["lowercase"],
        )
        for k in state.orders:
            state.keys[k] = np.asarray(data[f"keys_{k}"], dtype=np.uint64)
            state.counts[k] = np.asarray(data[f"counts_{k}"], dtype=np.int64)
        if state.metric == "cond-entropy":
            state.prefix = np.asarray(data["prefix"], dtype=np.uint64)
        return state

    def save(self, path: str | Path) -> None:
        save_state(path, self, *self.dump())

    @classmethod
    def load(cls, path: str | Path) -> GemNgramState:
        return load_state(path, cls.kind, cls.restore)


def gem_ngram_state(metric: str, n: int, keep_punctuation: bool):
    """The state factory of a GEM n-gram row: ``options -> GemNgramState``."""

    def make(options: dict[str, Any]) -> GemNgramState:
        return GemNgramState(
            metric,
            n,
            keep_punctuation,
            _tokenizer_name(options),
            bool(options.get("lowercase")),
        )

    return make


class IntraDistinctState:
    """Corpus intra-distinct-n: the sum of the responses' own Distinct-n and their numbers.

    >>> a, b = IntraDistinctState(1), IntraDistinctState(1)
    >>> a.update(["a a"]); b.update(["a b", ""])
    >>> a.merge(b).result().value
    0.75
    """

    kind: ClassVar[str] = "intra-distinct"

    def __init__(self, n: int, tokenizer: str = "whitespace", lowercase: bool = False):
        self.n, self.tokenizer, self.lowercase = int(n), tokenizer, bool(lowercase)
        self._tok = get_tokenizer(tokenizer, lowercase)
        self.total = 0.0  # sum of the responses' Distinct-n
        self.counted = 0  # responses with an n-gram
        self.empty = 0  # responses without

    def settings(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "n": self.n,
            "tokenizer": self.tokenizer,
            "lowercase": self.lowercase,
        }

    def update(self, texts: Sequence[str]) -> None:
        texts = list(texts)
        if not all(isinstance(t, str) for t in texts):
            raise InputError("a corpus state takes a list of texts (str)")
        tids = encode_texts(texts, self._tok)
        m = tids.n_texts
        uniq, total = distinct_per_group(tids, self.n, np.arange(m, dtype=np.int64), m)
        has = total > 0
        self.total += float(np.sum(uniq[has] / total[has]))
        self.counted += int(has.sum())
        self.empty += int((~has).sum())

    def merge(self, *others: IntraDistinctState) -> IntraDistinctState:
        from ..state import check_mergeable

        check_mergeable(self, others)
        out = IntraDistinctState(self.n, self.tokenizer, self.lowercase)
        for s in (self, *others):
            out.total += s.total
            out.counted += s.counted
            out.empty += s.empty
        return out

    def result(self) -> Score:
        """The Score :func:`diveval.lexical.gem.intra_distinct` gives on all the texts."""
        value = self.total / self.counted if self.counted else 0.0
        sig = make_signature("intra-distinct", n=self.n, **self._tok.signature, setting=CORPUS)
        details = {"empty_responses": self.empty, "empty_sets": int(self.counted == 0)}
        return Score("intra-distinct", value, sig, CORPUS, None, details)

    def dump(self) -> tuple[dict[str, Any], dict[str, Any]]:
        return {"total": self.total, "counted": self.counted, "empty": self.empty}, {}

    @classmethod
    def restore(cls, header: dict[str, Any], data: Mapping[str, Any]) -> IntraDistinctState:
        state = cls(header["n"], header["tokenizer"], header["lowercase"])
        state.total = float(header["total"])
        state.counted, state.empty = int(header["counted"]), int(header["empty"])
        return state

    def save(self, path: str | Path) -> None:
        save_state(path, self, *self.dump())

    @classmethod
    def load(cls, path: str | Path) -> IntraDistinctState:
        return load_state(path, cls.kind, cls.restore)


def intra_distinct_state(n: int):
    """The state factory of an intra-distinct row: ``options -> IntraDistinctState``."""

    def make(options: dict[str, Any]) -> IntraDistinctState:
        return IntraDistinctState(n, _tokenizer_name(options), bool(options.get("lowercase")))

    return make
