"""The mergeable two-pass state of corpus Self-BLEU, for inputs split over shards or machines.

Self-BLEU scores each sentence against all the others, so no part of the corpus can be scored
alone; but what a sentence needs of the others is small (see :mod:`diveval.lexical.self_bleu`): per
n-gram, the largest count any sentence has, how many sentences have it and the largest count below
it, plus the histogram of sentence lengths. Pass 1 builds that table; pass 2 scores sentences
against the merged table. A state also keeps its own sentences' n-gram keys and counts, so that a
shard file carries what pass 2 needs and ``merge`` then ``result()`` gives the one-process Score.
Both are declared fields (:class:`~diveval.state.DeclaredState`): the tables combine by their own
reduction (:data:`TOP2`), the kept sentences are concatenated.
The keys are those of :mod:`diveval.text.stable_keys` (same collision bound).
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from ..constants import DEFAULT_SMOOTHING, DEFAULT_TOKENIZER
from ..errors import InputError
from ..results import CORPUS, Score
from ..state import CAT, PADDED_SUM, DeclaredState, Reduction
from ..text.bleu import resolve_smoothing, resolve_weights
from ..text.ngrams import ngram_starts, text_of_positions
from ..text.prepared import encode_texts, signature_keys
from ..text.stable_keys import ngram_keys, token_hashes
from ..text.tokenizers import get_tokenizer, state_tokenizer
from .self_bleu import (
    bleu_of_matches,
    bleu_orders,
    closest_other_length,
    self_bleu_signature,
)

#: One row per distinct n-gram: its key, the largest count any sentence has (c1), how many
#: sentences hold c1 (m1) and the largest count below c1 (c2, 0 if none).
TABLE = np.dtype([("key", np.uint64), ("c1", np.int64), ("m1", np.int64), ("c2", np.int64)])


def _top2(keys: np.ndarray, counts: np.ndarray, mult: np.ndarray) -> np.ndarray:
    """The table of entries (key, count, multiplicity): per distinct key, c1, m1 and c2."""
    if keys.size == 0:
        return np.zeros(0, TABLE)
    order = np.lexsort((-counts, keys))
    k, c, m = keys[order], counts[order], mult[order]
    first = np.empty(k.size, dtype=bool)
    first[0] = True
    np.not_equal(k[1:], k[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    run = np.cumsum(first) - 1
    c1 = c[starts]
    is_top = c == c1[run]
    table = np.empty(starts.size, TABLE)
    table["key"] = k[starts]
    table["c1"] = c1
    table["m1"] = np.bincount(run, weights=np.where(is_top, m, 0), minlength=starts.size)
    table["c2"] = np.maximum.reduceat(np.where(is_top, 0, c), starts)
    return table


def _entries(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The entries a table stands for: each row's c1 (m1 times) and its c2 (once, if any)."""
    has2 = table["c2"] > 0
    return (
        np.concatenate([table["key"], table["key"][has2]]),
        np.concatenate([table["c1"], table["c2"][has2]]),
        np.concatenate([table["m1"], np.ones(int(has2.sum()), np.int64)]),
    )


def _combine_tables(tables: list[np.ndarray]) -> np.ndarray:
    if len(tables) == 1:
        return tables[0]
    keys, counts, mult = zip(*map(_entries, tables))
    return _top2(np.concatenate(keys), np.concatenate(counts), np.concatenate(mult))


#: The tables of consecutive parts combine into the table of their union (one top-2 pass,
#: however many parts); no torch reduction means the same: gathered, then this.
TOP2 = Reduction("top2", _combine_tables)


class SelfBleuState(DeclaredState):
    """Corpus Self-BLEU in two passes, for inputs split over shards or machines.

    Pass 1 (``update``/``merge``): per n-gram of every order, the largest count any sentence has
    (c1), how many sentences have it (m1) and the largest count below it (c2), plus the histogram of
    sentence lengths. That is all a sentence needs to know of the *others*: the clipping count of
    n-gram g in sentence i is c1, or c2 when i is the only sentence holding c1 (see
    :mod:`diveval.lexical.self_bleu`). Pass 2 (``score``) scores any batch of sentences against the
    merged table, and ``result(values)`` finishes from the values of every sentence.

    With ``keep`` the state also keeps its own sentences (their lengths in input order and, per
    order, each sentence's distinct n-gram keys and counts, sentence by sentence): after a merge,
    ``result()`` scores the kept sentences against the merged table, so shard files need no second
    pass over the input. :meth:`summary` is the state without them (``keep`` is a setting: a
    summary merges with summaries). Same values as :func:`diveval.self_bleu` to 1e-12, up to the
    key collision bound of :mod:`diveval.text.stable_keys`.

    Fields: ``lengths`` (``lengths[L]`` = sentences of L tokens, :data:`~diveval.state.PADDED_SUM`),
    ``table_{n}`` (:data:`TABLE` rows, :data:`TOP2`) and, kept, ``kept_lengths``, ``kept_keys_{n}``,
    ``kept_counts_{n}``, ``kept_grams_{n}`` (distinct n-grams per sentence), all concatenated.
    """

    kind: ClassVar[str] = "self-bleu"
    SETTINGS = ("max_n", "smoothing", "tokenizer", "lowercase", "include_self", "keep")

    def __init__(
        self,
        max_n: int = 4,
        smoothing: str | int | None = DEFAULT_SMOOTHING,
        tokenizer: str = DEFAULT_TOKENIZER,
        lowercase: bool = False,
        include_self: bool = False,
        keep: bool = True,
    ):
        try:
            self.max_n, _ = resolve_weights(max_n, None)
            self.smoothing = resolve_smoothing(smoothing)
        except ValueError as exc:
            raise InputError(str(exc)) from None
        self.n_orders = bleu_orders(self.max_n, self.smoothing)
        self.tokenizer, self.lowercase = tokenizer, bool(lowercase)
        self.include_self, self.keep = bool(include_self), bool(keep)
        self._tok = get_tokenizer(tokenizer, lowercase)
        self._unpacked: dict[int, tuple[np.ndarray, ...]] = {}
        self.lengths = np.zeros(0, np.int64)
        self.kept_lengths = np.zeros(0, np.int64)
        for n in self.orders:
            setattr(self, f"table_{n}", np.zeros(0, TABLE))
            setattr(self, f"kept_keys_{n}", np.zeros(0, np.uint64))
            setattr(self, f"kept_counts_{n}", np.zeros(0, np.int64))
            setattr(self, f"kept_grams_{n}", np.zeros(0, np.int64))

    @property
    def orders(self) -> range:
        return range(1, self.n_orders + 1)

    def fields(self) -> Mapping[str, Reduction]:
        out: dict[str, Reduction] = {"lengths": PADDED_SUM}
        out.update({f"table_{n}": TOP2 for n in self.orders})
        if self.keep:
            out["kept_lengths"] = CAT
            for n in self.orders:
                out.update({f"kept_{what}_{n}": CAT for what in ("keys", "counts", "grams")})
        return out

    def table(self, n: int) -> np.ndarray:
        """The top-2 table of order n (:data:`TABLE` rows, by key)."""
        return getattr(self, f"table_{n}")

    @property
    def n_texts(self) -> int:
        return int(self.lengths.sum())

    def _sentence_counts(self, texts: Sequence[str]) -> tuple[np.ndarray, dict]:
        """The batch's lengths and, per order, its distinct (key, sentence) pairs and their
        counts, sentence by sentence: (keys, sentence of each, counts)."""
        texts = list(texts)
        if not all(isinstance(t, str) for t in texts):
            raise InputError("a Self-BLEU state takes a list of texts (str)")
        tids = encode_texts(texts, self._tok)
        hashes = token_hashes(tids.vocab)
        out = {}
        for n in self.orders:
            starts = ngram_starts(tids, n)
            keys = ngram_keys(tids.ids, hashes, starts, n)
            sent = text_of_positions(tids, starts)
            order = np.lexsort((keys, sent))
            keys, sent = keys[order], sent[order]
            new = np.ones(keys.size, dtype=bool)
            new[1:] = (keys[1:] != keys[:-1]) | (sent[1:] != sent[:-1])
            at = np.flatnonzero(new)
            counts = np.diff(np.append(at, keys.size))
            out[n] = (keys[at], sent[at].astype(np.int64), counts.astype(np.int64))
        return np.asarray(tids.lengths, dtype=np.int64), out

    def update(self, texts: Sequence[str]) -> None:
        lengths, per_order = self._sentence_counts(texts)
        self._unpacked.clear()
        if lengths.size:
            self.lengths = PADDED_SUM.combine([self.lengths, np.bincount(lengths)])
        for n, (keys, sent, counts) in per_order.items():
            entries = _entries(self.table(n))
            setattr(
                self,
                f"table_{n}",
                _top2(
                    np.concatenate([entries[0], keys]),
                    np.concatenate([entries[1], counts]),
                    np.concatenate([entries[2], np.ones_like(counts)]),
                ),
            )
            if self.keep:
                grams = np.bincount(sent, minlength=lengths.size)
                for what, value in (("keys", keys), ("counts", counts), ("grams", grams)):
                    name = f"kept_{what}_{n}"
                    setattr(self, name, np.concatenate([getattr(self, name), value]))
        if self.keep:
            self.kept_lengths = np.concatenate([self.kept_lengths, lengths])

    def summary(self) -> SelfBleuState:
        """This state without its kept sentences: what pass 2 of any batch needs (for an engine
        that runs pass 2 where the sentences are)."""
        out = self._like(keep=False)
        for name in out.fields():
            setattr(out, name, getattr(self, name))
        return out

    def _closest_other_length(self, lengths: np.ndarray) -> np.ndarray:
        """nltk's closest reference length among the other sentences (shorter wins a tie)."""
        if self.include_self:
            return lengths.copy()
        present = np.flatnonzero(self.lengths)
        held = self.lengths[present]
        return closest_other_length(lengths, lengths, present, held, self.lengths.size)

    def score(self, texts: Sequence[str]) -> np.ndarray:
        """Pass 2: the Self-BLEU of each of ``texts`` (sentences counted in this state) against
        all the other sentences of the merged input."""
        return self._score_counts(*self._sentence_counts(texts))

    def _columns(self, n: int) -> tuple[np.ndarray, ...]:
        """The table of order n as contiguous columns (key, c1, m1, c2), made once per state:
        pass 2 searches the keys of every batch."""
        if n not in self._unpacked:
            table = self.table(n)
            self._unpacked[n] = tuple(
                np.ascontiguousarray(table[c]) for c in ("key", "c1", "m1", "c2")
            )
        return self._unpacked[n]

    def _score_counts(self, lengths: np.ndarray, per_order: dict) -> np.ndarray:
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
            k, c1, m1, c2 = self._columns(n)
            at = np.searchsorted(k, keys)
            if keys.size and (at.max() >= k.size or np.any(k[at] != keys)):
                raise InputError("pass 2 scores sentences that pass 1 did not count")
            if self.include_self:
                clipped = counts
            else:
                others = np.where((counts == c1[at]) & (m1[at] < 2), c2[at], c1[at])
                clipped = np.minimum(counts, others)
            num[:, n - 1] = np.bincount(sent, weights=clipped, minlength=lengths.size)
        _, weights = resolve_weights(self.max_n, None)
        ref = self._closest_other_length(lengths)
        return bleu_of_matches(num, lengths, ref, weights, self.smoothing)

    def result(self, per_sentence: np.ndarray | None = None) -> Score:
        """The corpus Score from the pass-2 values of every sentence (in input order), or, with
        none given, from the sentences this state kept (it kept them all, from every part)."""
        if per_sentence is None:
            if not self.keep or self.kept_lengths.size != self.n_texts:
                raise InputError(
                    "this Self-BLEU state did not keep every sentence: give result() the pass-2 "
                    "values of every sentence"
                )
            sentences = np.arange(self.kept_lengths.size)
            kept = {
                n: (
                    getattr(self, f"kept_keys_{n}"),
                    np.repeat(sentences, getattr(self, f"kept_grams_{n}")),
                    getattr(self, f"kept_counts_{n}"),
                )
                for n in self.orders
            }
            per_sentence = self._score_counts(self.kept_lengths, kept)
        per = np.asarray(per_sentence, dtype=float)
        if per.size != self.n_texts:
            raise InputError(f"{per.size} sentence scores for a corpus of {self.n_texts}")
        keys = signature_keys(self._tok, CORPUS)
        sig = self_bleu_signature(self.max_n, self.smoothing, self.include_self, keys)
        return Score("self-bleu", float(per.mean()), sig, CORPUS, per, {})


def self_bleu_state(max_n: int):
    """The state factory of a Self-BLEU row: ``options -> SelfBleuState`` (two passes)."""

    def make(options: dict[str, Any]) -> SelfBleuState:
        return SelfBleuState(
            max_n,
            options.get("smoothing", DEFAULT_SMOOTHING),
            state_tokenizer(options),
            bool(options.get("lowercase")),
        )

    return make
