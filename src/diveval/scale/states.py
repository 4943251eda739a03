"""Mergeable metric states: ``update(batch)``, ``merge(other)``, ``result()``, saved and loaded.

A state holds what a corpus metric needs to be finished later, from any split of the input:
shards of one file on a Slurm array, batches of a stream, Ray tasks. Merging the states of the
shards, in any order and grouping, gives the state of the whole input, so ``result()`` gives the
value and signature of the one-process run.

Corpus Distinct-n and EAD-n (:class:`NgramState`) keep, per order, the set of n-gram keys and the
n-gram count. A key must mean the same n-gram in every shard, so it cannot be the per-run token id
of :mod:`diveval.text.ngrams`: each token is hashed from its text (BLAKE2b, 64 bits) and the n
token hashes are chained through the same bijective 64-bit mixer as the n-gram engine. Collision
bound: two different n-grams share a key with probability at most n * 2**-64, so among D distinct
n-grams the expected number of merged pairs is below n * D**2 / 2**65 (under 1e-5 for D = 10M,
about 0.1 for D = 10 billion at n = 4); each merged pair lowers a distinct count by one. The
one-process metric counts exactly while its codes fit in 64 bits, so the two agree except for such
a collision.

States are saved as ``.npz`` (numpy arrays plus a JSON header, no pickle: a state file from a
cluster node is data, never code) with a format version; loading another version or merging
states of different settings is an :class:`~diveval.errors.InputError`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, ClassVar, Sequence

import numpy as np

from ..errors import InputError
from ..lexical.ead import BERT_VOCAB_SIZE, ead_value
from ..results import CORPUS, Score, make_signature
from ..text.ngrams import HASH_STEP, mix64, ngram_starts, unique_sorted
from ..text.prepared import encode_texts
from ..text.tokenizers import get_tokenizer

STATE_FORMAT = 1


def token_hashes(vocab: Sequence[str]) -> np.ndarray:
    """A 64-bit hash of each token's text, the same in every process and on every machine."""
    out = np.empty(len(vocab), dtype=np.uint64)
    for i, token in enumerate(vocab):
        digest = hashlib.blake2b(token.encode("utf-8", "surrogatepass"), digest_size=8).digest()
        out[i] = int.from_bytes(digest, "little")
    return out


def ngram_keys(ids: np.ndarray, hashes: np.ndarray, starts: np.ndarray, n: int) -> np.ndarray:
    """Shard-independent keys (uint64) of the n-grams that start at ``starts``."""
    keys = hashes[ids[starts]]
    for k in range(1, n):
        mix64(keys)
        keys *= HASH_STEP
        keys += hashes[ids[starts + k]]
    return keys


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
        for n in self.orders:
            starts = ngram_starts(tids, n)
            self.totals[n] += int(starts.size)
            if starts.size:
                self._add(n, unique_sorted(ngram_keys(tids.ids, hashes, starts, n)))

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

    def merge(self, other: NgramState) -> NgramState:
        """A new state for the union of both inputs."""
        if not isinstance(other, NgramState) or other.settings() != self.settings():
            theirs = other.settings() if isinstance(other, NgramState) else type(other).__name__
            raise InputError(
                f"cannot merge states of different settings: {self.settings()} and {theirs}"
            )
        out = NgramState(self.orders, self.tokenizer, self.lowercase)
        out.n_texts = self.n_texts + other.n_texts
        for n in self.orders:
            out.totals[n] = self.totals[n] + other.totals[n]
            out._keys[n] = unique_sorted(np.concatenate([self.keys(n), other.keys(n)]))
        return out

    # -- results -------------------------------------------------------------------------------
    def counts(self, n: int) -> tuple[int, int]:
        """(distinct n-grams, total n-grams) of order n."""
        if n not in self.totals:
            raise InputError(f"this state counts orders {self.orders}, not {n}")
        return int(self.keys(n).size), self.totals[n]

    def result(self, metric: str, n: int = 2, vocab: int = BERT_VOCAB_SIZE) -> Score:
        """The corpus Score of ``distinct`` (order n) or ``ead`` (order n, vocabulary size V),
        with the signature the one-process metric gives."""
        distinct, total = self.counts(n)
        sig_keys = {**self._tok.signature, "setting": CORPUS}
        if metric == "distinct":
            value = distinct / total if total else 0.0
            details = {
                "distinct_ngrams": distinct,
                "total_ngrams": total,
                "empty_sets": int(total == 0),
            }
            sig = make_signature("distinct", n=n, **sig_keys)
        elif metric == "ead":
            if isinstance(vocab, bool) or not isinstance(vocab, (int, np.integer)) or vocab < 1:
                raise InputError(
                    f"a state's EAD takes an integer vocabulary size V >= 1, got {vocab!r}"
                )
            value = ead_value(distinct, total, float(vocab) ** n)
            details = {}
            sig = make_signature("ead", n=n, V=str(int(vocab)), **sig_keys)
        else:
            raise InputError(f"an n-gram state gives 'distinct' or 'ead', not {metric!r}")
        return Score(metric, value, sig, CORPUS, None, details)

    # -- files ---------------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        header = {
            "format": STATE_FORMAT,
            **self.settings(),
            "n_texts": self.n_texts,
            "totals": {str(n): t for n, t in self.totals.items()},
        }
        arrays: dict[str, Any] = {f"keys_{n}": self.keys(n) for n in self.orders}
        with open(path, "wb") as fh:  # a file object: np.savez would add ".npz" to a bare name
            np.savez(fh, header=np.array(json.dumps(header)), **arrays)

    @classmethod
    def load(cls, path: str | Path) -> NgramState:
        try:
            with np.load(path, allow_pickle=False) as data:
                header = json.loads(str(data["header"]))
                if header.get("format") != STATE_FORMAT or header.get("kind") != cls.kind:
                    raise InputError(
                        f"{path}: a state of format {header.get('format')!r} and kind "
                        f"{header.get('kind')!r}; this diveval reads format {STATE_FORMAT}, "
                        f"kind {cls.kind!r}"
                    )
                state = cls(header["orders"], header["tokenizer"], header["lowercase"])
                state.n_texts = int(header["n_texts"])
                for n in state.orders:
                    state.totals[n] = int(header["totals"][str(n)])
                    state._keys[n] = np.asarray(data[f"keys_{n}"], dtype=np.uint64)
        except (OSError, ValueError, KeyError, json.JSONDecodeError) as exc:
            raise InputError(f"{path}: not a diveval state file ({exc})") from None
        return state
