"""The mergeable two-pass state of corpus Self-BLEU, for inputs split over shards or machines.

Self-BLEU scores each sentence against all the others, so no part of the corpus can be scored
alone; but what a sentence needs of the others is small (see :mod:`diveval.lexical.self_bleu`): per
n-gram, the largest count any sentence has, how many sentences have it and the largest count below
it, plus the histogram of sentence lengths. Pass 1 builds that table; pass 2 scores sentences
against the merged table. A state also keeps its own sentences' n-gram keys and counts, so that a
shard file carries what pass 2 needs and ``merge`` then ``result()`` gives the one-process Score.
The keys are those of :class:`~diveval.lexical.ngram_state.NgramState` (same collision bound).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from ..errors import InputError
from ..results import CORPUS, Score, make_signature
from ..state_files import load_state, save_state
from ..text.ngrams import ngram_starts
from ..text.prepared import encode_texts
from ..text.stable_keys import ngram_keys, token_hashes
from ..text.tokenizers import get_tokenizer


def _top2(keys: np.ndarray, counts: np.ndarray, mult: np.ndarray):
    """Per distinct key: (key, c1 = largest count, m1 = how many sentences hold c1, c2 = largest
    count below c1, 0 if none), from entries (key, count, multiplicity)."""
    if keys.size == 0:
        z = np.zeros(0, np.int64)
        return np.zeros(0, np.uint64), z, z, z
    order = np.lexsort((-counts, keys))
    k, c, m = keys[order], counts[order], mult[order]
    first = np.empty(k.size, dtype=bool)
    first[0] = True
    np.not_equal(k[1:], k[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    run = np.cumsum(first) - 1
    c1 = c[starts]
    is_top = c == c1[run]
    m1 = np.bincount(run, weights=np.where(is_top, m, 0), minlength=starts.size).astype(np.int64)
    c2 = np.maximum.reduceat(np.where(is_top, 0, c), starts)
    return k[starts], c1, m1, c2


class SelfBleuState:
    """Corpus Self-BLEU in two passes, for inputs split over shards or machines.

    Pass 1 (``update``/``merge``): per n-gram of every order, the largest count any sentence has
    (c1), how many sentences have it (m1) and the largest count below it (c2), plus the histogram of
    sentence lengths. That is all a sentence needs to know of the *others*: the clipping count of
    n-gram g in sentence i is c1, or c2 when i is the only sentence holding c1 (see
    :mod:`diveval.lexical.self_bleu`). Pass 2 (``score``) scores any batch of sentences against the
    merged table, and ``result(values)`` finishes from the values of every sentence.

    The state also keeps its own sentences (per order, each sentence's n-gram keys and counts, and
    the lengths, in input order; ``keep=False`` or :meth:`summary` drops them): after a merge,
    ``result()`` scores the kept sentences against the merged table, so shard files need no second
    pass over the input. Same values as :func:`diveval.self_bleu` to 1e-12, up to the key collision
    bound of :class:`~diveval.lexical.ngram_state.NgramState`.
    """

    kind: ClassVar[str] = "self-bleu"

    def __init__(
        self,
        max_n: int = 4,
        smoothing: str | int | None = "method1",
        tokenizer: str = "whitespace",
        lowercase: bool = False,
        include_self: bool = False,
        keep: bool = True,
    ):
        from ..text.bleu import resolve_smoothing, resolve_weights

        try:
            self.max_n, _ = resolve_weights(max_n, None)
            self.smoothing = resolve_smoothing(smoothing)
        except ValueError as exc:
            raise InputError(str(exc)) from None
        # method5/method7 use the 5-gram precision whatever max_n is (nltk)
        self.n_orders = (
            max(self.max_n, 5) if self.smoothing in ("method5", "method7") else self.max_n
        )
        self.tokenizer, self.lowercase, self.include_self = tokenizer, bool(lowercase), include_self
        self._tok = get_tokenizer(tokenizer, lowercase)
        self.lengths = np.zeros(0, np.int64)  # lengths[L] = number of sentences of L tokens
        empty = (np.zeros(0, np.uint64),) + (np.zeros(0, np.int64),) * 3
        # per order: (keys, c1, m1, c2), see the class docstring
        self.tables: dict[int, tuple[np.ndarray, ...]] = {
            n: empty for n in range(1, self.n_orders + 1)
        }
        # the kept sentences: their lengths in input order, and per order (keys, sentence, count)
        self.keep = bool(keep)
        self.kept_lengths = np.zeros(0, np.int64)
        self.kept = {
            n: (np.zeros(0, np.uint64),) + (np.zeros(0, np.int64),) * 2 for n in self.tables
        }

    def settings(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "max_n": self.max_n,
            "smoothing": self.smoothing,
            "tokenizer": self.tokenizer,
            "lowercase": self.lowercase,
            "include_self": self.include_self,
        }

    @property
    def n_texts(self) -> int:
        return int(self.lengths.sum())

    def _sentence_counts(self, texts: Sequence[str]):
        """Per order: the distinct (key, sentence) pairs of the batch and their counts."""
        from ..text.ngrams import text_of_positions

        texts = list(texts)
        if not all(isinstance(t, str) for t in texts):
            raise InputError("a Self-BLEU state takes a list of texts (str)")
        tids = encode_texts(texts, self._tok)
        hashes = token_hashes(tids.vocab)
        out = {}
        for n in range(1, self.n_orders + 1):
            starts = ngram_starts(tids, n)
            keys = ngram_keys(tids.ids, hashes, starts, n)
            sent = text_of_positions(tids, starts)
            order = np.lexsort((sent, keys))
            keys, sent = keys[order], sent[order]
            new = np.ones(keys.size, dtype=bool)
            new[1:] = (keys[1:] != keys[:-1]) | (sent[1:] != sent[:-1])
            at = np.flatnonzero(new)
            counts = np.diff(np.append(at, keys.size))
            out[n] = (keys[at], sent[at].astype(np.int64), counts.astype(np.int64))
        return np.asarray(tids.lengths, dtype=np.int64), out

    def update(self, texts: Sequence[str]) -> None:
        lengths, per_order = self._sentence_counts(texts)
        self._merge_lengths(np.bincount(lengths, minlength=1) if lengths.size else None)
        for n, (keys, _, counts) in per_order.items():
            self.tables[n] = self._combine(self.tables[n], keys, counts, np.ones_like(counts))
        if self.keep:
            self._keep([(self.kept_lengths, self.kept), (lengths, per_order)])

    def _keep(self, parts: list) -> None:
        """Concatenate kept sentences of consecutive parts (sentence numbers offset)."""
        offsets = np.cumsum([0] + [lengths.size for lengths, _ in parts])
        self.kept_lengths = np.concatenate([lengths for lengths, _ in parts])
        self.kept = {
            n: (
                np.concatenate([kept[n][0] for _, kept in parts]),
                np.concatenate([kept[n][1] + off for (_, kept), off in zip(parts, offsets)]),
                np.concatenate([kept[n][2] for _, kept in parts]),
            )
            for n in self.tables
        }

    def _merge_lengths(self, hist: np.ndarray | None) -> None:
        if hist is None:
            return
        size = max(self.lengths.size, hist.size)
        merged = np.zeros(size, np.int64)
        merged[: self.lengths.size] += self.lengths
        merged[: hist.size] += hist
        self.lengths = merged

    @staticmethod
    def _combine(table, keys, counts, mult):
        k, c1, m1, c2 = table
        has2 = c2 > 0
        return _top2(
            np.concatenate([k, k[has2], keys]),
            np.concatenate([c1, c2[has2], counts]),
            np.concatenate([m1, np.ones(int(has2.sum()), np.int64), mult]),
        )

    def _like(self, keep: bool) -> SelfBleuState:
        return SelfBleuState(
            self.max_n, self.smoothing, self.tokenizer, self.lowercase, self.include_self, keep
        )

    def summary(self) -> SelfBleuState:
        """This state without its kept sentences: what pass 2 of any batch needs (for an engine
        that runs pass 2 where the sentences are)."""
        out = self._like(keep=False)
        out.lengths, out.tables = self.lengths, dict(self.tables)
        return out

    def merge(self, *others: SelfBleuState) -> SelfBleuState:
        """A new state for the union of this input and the others' (one top-2 pass per order,
        however many states; kept sentences in the order given), as :meth:`NgramState.merge`."""
        from ..state import check_mergeable

        check_mergeable(self, others)
        everyone = (self, *others)
        out = self._like(keep=all(s.keep for s in everyone))
        for state in everyone:
            out._merge_lengths(state.lengths)
        for n in out.tables:
            keys, counts, mult = [], [], []
            for state in others:
                k, c1, m1, c2 = state.tables[n]
                has2 = c2 > 0  # each table row stands for its c1 (m1 times) and its c2 (once)
                keys += [k, k[has2]]
                counts += [c1, c2[has2]]
                mult += [m1, np.ones(int(has2.sum()), np.int64)]
            if others:
                out.tables[n] = self._combine(
                    self.tables[n],
                    np.concatenate(keys),
                    np.concatenate(counts),
                    np.concatenate(mult),
                )
            else:
                out.tables[n] = self.tables[n]
        if out.keep:
            out._keep([(s.kept_lengths, s.kept) for s in everyone])
        return out

    def _closest_other_length(self, lengths: np.ndarray) -> np.ndarray:
        """nltk's closest reference length among the other sentences (shorter wins a tie)."""
        if self.include_self:
            return lengths.copy()
        present = np.flatnonzero(self.lengths)
        own = self.lengths[lengths]
        lo = np.searchsorted(present, lengths, side="left")  # present[lo] == length
        lower = present[np.maximum(lo - 1, 0)]
        upper = present[np.minimum(lo + 1, present.size - 1)]
        has_lower = lo > 0
        has_upper = lo + 1 < present.size
        use_lower = has_lower & (~has_upper | (lengths - lower <= upper - lengths))
        closest = np.where(use_lower, lower, upper)
        return np.where(own >= 2, lengths, closest)

    def score(self, texts: Sequence[str]) -> np.ndarray:
        """Pass 2: the Self-BLEU of each of ``texts`` (sentences counted in this state) against
        all the other sentences of the merged input."""
        return self._score_counts(*self._sentence_counts(texts))

    def _score_counts(self, lengths: np.ndarray, per_order: dict) -> np.ndarray:
        from ..text.bleu import bleu_from_counts, resolve_weights

        need = 1 if self.include_self else 2
        if self.n_texts < need:
            raise InputError(
                f"Self-BLEU needs at least {need} responses in the corpus, got {self.n_texts}"
            )
        if (
            lengths.size
            and int(lengths.max()) >= self.lengths.size
            or np.any(self.lengths[lengths] == 0)
        ):
            raise InputError("pass 2 scores sentences that pass 1 did not count")
        num = np.zeros((lengths.size, self.n_orders), np.int64)
        for n, (keys, sent, counts) in per_order.items():
            k, c1, m1, c2 = self.tables[n]
            at = np.searchsorted(k, keys)
            if keys.size and (at.max() >= k.size or np.any(k[at] != keys)):
                raise InputError("pass 2 scores sentences that pass 1 did not count")
            if self.include_self:
                clipped = counts
            else:
                others = np.where((counts == c1[at]) & (m1[at] < 2), c2[at], c1[at])
                clipped = np.minimum(counts, others)
            num[:, n - 1] = np.bincount(sent, weights=clipped, minlength=lengths.size)
        orders = np.arange(1, self.n_orders + 1)
        den = np.maximum(1, lengths[:, None] - orders[None, :] + 1)  # nltk: max(1, #n-grams)
        _, weights = resolve_weights(self.max_n, None)
        p5 = (num[:, 4], den[:, 4]) if self.n_orders >= 5 else None
        ref = self._closest_other_length(lengths)
        n = self.max_n
        return bleu_from_counts(
            num[:, :n], den[:, :n], lengths, ref, weights, self.smoothing, p5=p5
        )

    def dump(self) -> tuple[dict[str, Any], dict[str, Any]]:
        arrays: dict[str, np.ndarray] = {"lengths": self.lengths}
        for n, table in self.tables.items():
            arrays.update({f"{name}_{n}": a for name, a in zip(("keys", "c1", "m1", "c2"), table)})
        if self.keep:
            arrays["kept_lengths"] = self.kept_lengths
            for n, kept in self.kept.items():
                names = ("kept_keys", "kept_sent", "kept_counts")
                arrays.update({f"{name}_{n}": a for name, a in zip(names, kept)})
        return {"keep": self.keep}, arrays

    @classmethod
    def restore(cls, header: dict[str, Any], data: Mapping[str, Any]) -> SelfBleuState:
        state = cls(
            header["max_n"],
            header["smoothing"],
            header["tokenizer"],
            header["lowercase"],
            header["include_self"],
            header.get("keep", False),
        )
        state.lengths = np.asarray(data["lengths"], dtype=np.int64)
        for n in state.tables:
            k = np.asarray(data[f"keys_{n}"], dtype=np.uint64)
            rest = (np.asarray(data[f"{name}_{n}"], dtype=np.int64) for name in ("c1", "m1", "c2"))
            state.tables[n] = (k, *rest)
        if state.keep:
            state.kept_lengths = np.asarray(data["kept_lengths"], dtype=np.int64)
            for n in state.tables:
                state.kept[n] = (
                    np.asarray(data[f"kept_keys_{n}"], dtype=np.uint64),
                    np.asarray(data[f"kept_sent_{n}"], dtype=np.int64),
                    np.asarray(data[f"kept_counts_{n}"], dtype=np.int64),
                )
        return state

    def save(self, path: str | Path) -> None:
        save_state(path, self, *self.dump())

    @classmethod
    def load(cls, path: str | Path) -> SelfBleuState:
        return load_state(path, cls.kind, cls.restore)

    def result(self, per_sentence: np.ndarray | None = None) -> Score:
        """The corpus Score from the pass-2 values of every sentence (in input order), or, with
        none given, from the sentences this state kept (it kept them all, from every part)."""
        if per_sentence is None:
            if not self.keep or self.kept_lengths.size != self.n_texts:
                raise InputError(
                    "this Self-BLEU state did not keep every sentence: give result() the pass-2 "
                    "values of every sentence"
                )
            per_sentence = self._score_counts(self.kept_lengths, self.kept)
        per = np.asarray(per_sentence, dtype=float)
        if per.size != self.n_texts:
            raise InputError(f"{per.size} sentence scores for a corpus of {self.n_texts}")
        sig = make_signature(
            "self-bleu",
            n=self.max_n,
            smooth=self.smoothing,
            self=True if self.include_self else None,
            **self._tok.signature,
            setting=CORPUS,
        )
        return Score("self-bleu", float(per.mean()), sig, CORPUS, per, {})


def self_bleu_state(max_n: int):
    """The state factory of a Self-BLEU row: ``options -> SelfBleuState`` (two passes)."""

    def make(options: dict[str, Any]) -> SelfBleuState:
        tokenizer = options.get("tokenizer", "whitespace")
        if not isinstance(tokenizer, str):
            raise InputError(
                "a split run names its tokenizer (a string), so that states can be saved"
            )
        return SelfBleuState(
            max_n,
            options.get("smoothing", "method1"),
            tokenizer,
            bool(options.get("lowercase")),
        )

    return make
