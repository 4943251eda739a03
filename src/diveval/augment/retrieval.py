"""SCARCE retrieval (Gangal et al. 2021): turns of a dialogue corpus whose past, response and
future resemble those of the reference turn.

Every candidate turn t of a corpus dialogue has three fields: its *past* (up to ``window`` = 2
turns before it), the *response* (turn t) and its *future* (up to 2 turns after it). A query has
the same three fields (the context's last turns, the human reference, the turns that follow it).
Each field has its own BM25 index (k1 = 0.5, b = 0.7 by default, as the paper states) and

    Sim(query, candidate) = log BM25(past, past') + log BM25(resp, resp') + log BM25(future, future').

Rules (documented choices the paper leaves open):

* **zero scores** (``zero=``): a field whose BM25 score is 0 has log = -inf, so with
  ``"drop"`` (default) the candidate is dropped: a turn must share an indexed word with the query
  in all three fields. ``"floor"`` replaces the score by ``floor`` (default 1e-3, below any
  positive BM25 score of the lucene variant in practice) so partial matches rank below full ones.
* **empty query fields**: a query field with no indexed token (e.g. a first turn has no past, a
  last one no future, or all its words are stopwords) is left out of the sum for every candidate.
* **exclusions**: candidates from the query's own dialogue (same source and id), candidates from
  any corpus dialogue that shares a turn of at least ``min_shared_words`` words with the query's
  dialogue (``Query.own_turns``: the same dialogue reached through another corpus, e.g. a
  DailyDialog++ context cut from a DailyDialog test dialogue), candidates whose past is an exact
  duplicate of the query's past (after lower-casing and keeping only word characters), and empty
  responses. Among results, a response text seen before (same normalisation) is skipped, so
  the top-k are k distinct responses.
* tokens: lower-cased words of 2+ word characters (bm25s's default pattern), English stopwords
  removed by default (``stopwords=None`` keeps them).

Why ``bm25s``: it scores eagerly (BM25 of every token in every document is computed once at
index time and kept as a sparse matrix), so a query is a sum of a few sparse rows; rank_bm25
recomputes every document's score per query in Python (far too slow over 258k turns), and
pyserini needs a Java runtime. bm25s's own top-k search ranks one field; we need the three fields
of *every* candidate, so we sum the rows of its index ourselves (``numpy.bincount``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from ..errors import InputError, MissingDependencyError
from .corpus import Dialogue, DialogueCorpus, window

_TOKEN = re.compile(r"(?u)\b\w\w+\b")
_WORD = re.compile(r"\w+")
FIELDS = ("past", "response", "future")


def normalise(text: str) -> str:
    """Lower-cased word characters joined by one space (what "exact duplicate" compares)."""
    return " ".join(_WORD.findall(text.lower()))


@dataclass(frozen=True)
class Query:
    """What retrieval matches: the reference turn's past, the reference itself and its future.

    dialogue_id / source: the query's own dialogue in the corpus, excluded from the results;
    own_turns: all turns of the query's dialogue, to exclude copies of it held under another id.
    """

    past: str
    response: str
    future: str = ""
    dialogue_id: str | None = None
    source: str | None = None
    own_turns: tuple[str, ...] = ()

    @classmethod
    def from_turns(
        cls,
        turns: Sequence[str],
        t: int,
        reference: str | None = None,
        size: int = 2,
        dialogue_id: str | None = None,
        source: str | None = None,
    ) -> Query:
        """The query of turn ``t`` of a dialogue (``reference`` replaces ``turns[t]`` if given)."""
        past, future = window(turns, t, size)
        return cls(
            past,
            turns[t] if reference is None else reference,
            future,
            dialogue_id,
            source,
            tuple(turns),
        )


@dataclass(frozen=True)
class Retrieved:
    text: str
    score: float  # Sim: the sum of the logs of the field scores used
    field_scores: tuple[float, float, float]  # BM25 of past, response, future
    dialogue_id: str
    source: str
    turn: int
    dialogue_index: int = -1  # position of the dialogue in the retriever's corpus

    def to_dict(self) -> dict:
        return {
            "text": self.text,
            "score": self.score,
            "bm25": dict(zip(FIELDS, self.field_scores)),
            "dialogue": self.dialogue_id,
            "source": self.source,
            "turn": self.turn,
        }


@dataclass
class _Field:
    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    vocab: dict
    model: object = None  # the bm25s.BM25 that built it


class BM25Retriever:
    """Three-field BM25 retrieval over the turns of a dialogue corpus (see the module docstring)."""

    def __init__(
        self,
        corpus: DialogueCorpus,
        window: int = 2,
        k1: float = 0.5,
        b: float = 0.7,
        zero: str = "drop",
        floor: float = 1e-3,
        stopwords: str | None = "en",
        min_shared_words: int = 5,
        show_progress: bool = False,
    ):
        if zero not in ("drop", "floor"):
            raise InputError(f"unknown zero-score rule {zero!r}; choose drop or floor")
        if window < 1:
            raise InputError("window must be at least 1 turn")
        self.corpus = corpus
        self.window, self.k1, self.b, self.zero, self.floor = window, k1, b, zero, floor
        self.stopwords = stopwords
        self.min_shared_words = min_shared_words
        self._stop = _stopword_set(stopwords)
        # each turn is tokenized once; a window's tokens are its turns' tokens concatenated
        owner, turn_idx, past, fut = [], [], [], []
        resp_tok: list[list[str]] = []
        for d_i, d in enumerate(corpus):
            toks = [self.tokens(t) for t in d.turns]
            for t in range(d.respond_from, len(d.turns)):
                owner.append(d_i)
                turn_idx.append(t)
                past.append([w for x in toks[max(0, t - window) : t] for w in x])
                resp_tok.append(toks[t])
                fut.append([w for x in toks[t + 1 : t + 1 + window] for w in x])
        if not resp_tok:
            raise InputError(f"corpus {corpus.name!r} has no turns to retrieve")
        self.owner = np.array(owner, dtype=np.int64)
        self.turn = np.array(turn_idx, dtype=np.int64)
        self.n = len(resp_tok)
        self._fields = [self._index(x, show_progress) for x in (past, resp_tok, fut)]
        self._turn_owner: dict[str, set] | None = None
        self._by_id: dict[str, list] = {}
        for i, d in enumerate(corpus):
            self._by_id.setdefault(d.id, []).append((d.source, i))
        self._X: dict = {}

    # ---------------------------------------------------------------- index
    def tokens(self, text: str) -> list[str]:
        return [w for w in _TOKEN.findall(text.lower()) if w not in self._stop]

    def _response(self, c: int) -> str:
        return self.corpus[int(self.owner[c])].turns[int(self.turn[c])]

    def _past_key(self, c: int) -> str:
        d = self.corpus[int(self.owner[c])]
        t = int(self.turn[c])
        return normalise(" ".join(d.turns[max(0, t - self.window) : t]))

    def _index(self, toks: list[list[str]], show_progress: bool) -> _Field:
        try:
            import bm25s
        except ImportError:
            raise MissingDependencyError("SCARCE retrieval (bm25s)", "reference") from None
        model = bm25s.BM25(k1=self.k1, b=self.b, method="lucene")
        model.index(toks, show_progress=show_progress)
        s = model.scores
        return _Field(
            np.asarray(s["data"], dtype=np.float64),
            np.asarray(s["indices"], dtype=np.int64),
            np.asarray(s["indptr"], dtype=np.int64),
            dict(model.vocab_dict),
            model,
        )

    def field_scores(self, f: int, text: str) -> np.ndarray | None:
        """Dense BM25 of every candidate's field ``f`` (0 past, 1 response, 2 future) for ``text``;
        None when no token of ``text`` is indexed. A query token counts once (as bm25s's
        ``get_scores``); postings of one token hold distinct documents, so a bincount sums them."""
        fld = self._fields[f]
        ids = sorted({fld.vocab[w] for w in self.tokens(text) if w in fld.vocab})
        if not ids:
            return None
        if len(ids) == 1:
            a, b = fld.indptr[ids[0]], fld.indptr[ids[0] + 1]
            idx, val = fld.indices[a:b], fld.data[a:b]
        else:
            idx = np.concatenate([fld.indices[fld.indptr[i] : fld.indptr[i + 1]] for i in ids])
            val = np.concatenate([fld.data[fld.indptr[i] : fld.indptr[i + 1]] for i in ids])
        return np.bincount(idx, weights=val, minlength=self.n)

    # ---------------------------------------------------------------- query
    def _excluded_dialogues(self, q: Query) -> set[int]:
        out: set[int] = set()
        if q.dialogue_id is not None:
            for src, i in self._by_id.get(q.dialogue_id, ()):
                if q.source is None or src == q.source:
                    out.add(i)
        if q.own_turns:
            if self._turn_owner is None:
                self._turn_owner = {}
                for i, d in enumerate(self.corpus):
                    for t in d.turns:
                        key = normalise(t)
                        if key.count(" ") + 1 >= self.min_shared_words:
                            self._turn_owner.setdefault(key, set()).add(i)
            for t in q.own_turns:
                out |= self._turn_owner.get(normalise(t), set())
        return out

    def search(self, query: Query, k: int = 10) -> list[Retrieved]:
        """The top-k distinct responses by Sim (highest first); fewer when fewer candidates pass."""
        if k < 1:
            raise InputError("k must be at least 1")
        return self._rank(query, k)

    def search_many(self, queries: Iterable[Query], k: int = 10) -> list[list[Retrieved]]:
        return [self.search(q, k) for q in queries]

    def _rank(self, query: Query, k: int) -> list[Retrieved]:
        scores = [
            self.field_scores(f, t)
            for f, t in enumerate((query.past, query.response, query.future))
        ]
        present = {f: s for f, s in enumerate(scores) if s is not None}
        used = list(present)
        if not used:
            return []
        mask = present[used[0]] > 0
        for f in used[1:]:
            if self.zero == "drop":
                mask &= present[f] > 0
            else:
                mask |= present[f] > 0
        cand = np.flatnonzero(mask)
        vals = {f: s[cand] for f, s in present.items()}
        sim = np.zeros(cand.size)
        for f in used:
            sim += np.log(vals[f] if self.zero == "drop" else np.maximum(vals[f], self.floor))
        if cand.size == 0:
            return []
        bad = self._excluded_dialogues(query)
        qpast = normalise(query.past)
        out: list[Retrieved] = []
        seen: set[str] = set()
        # rank a few times k first (ties broken by position); fall back to a full sort if needed
        for limit in (min(cand.size, 20 * k + 50), cand.size):
            top = (
                np.argpartition(-sim, limit - 1)[:limit]
                if limit < cand.size
                else np.arange(cand.size)
            )
            top = top[np.lexsort((cand[top], -sim[top]))]
            out, seen = [], set()
            for j in top:
                c = int(cand[j])
                d_i = int(self.owner[c])
                if d_i in bad or (qpast and self._past_key(c) == qpast):
                    continue
                text = self._response(c)
                key = normalise(text)
                if not key or key in seen:
                    continue
                seen.add(key)
                d: Dialogue = self.corpus[d_i]
                fs = (
                    float(vals[0][j]) if 0 in vals else 0.0,
                    float(vals[1][j]) if 1 in vals else 0.0,
                    float(vals[2][j]) if 2 in vals else 0.0,
                )
                out.append(
                    Retrieved(text, float(sim[j]), fs, d.id, d.source, int(self.turn[c]), d_i)
                )
                if len(out) == k:
                    return out
            if limit == cand.size:
                break
        return out

    @property
    def signature(self) -> dict:
        return {
            "k1": self.k1,
            "b": self.b,
            "window": self.window,
            "zero": self.zero,
            "floor": self.floor if self.zero == "floor" else None,
            "stop": self.stopwords or "none",
            "corpus": self.corpus.name,
            "turns": self.n,
        }


def _stopword_set(stopwords: str | Iterable[str] | None) -> frozenset:
    if stopwords is None:
        return frozenset()
    if isinstance(stopwords, str):
        if stopwords != "en":
            raise InputError(
                f"unknown stopword list {stopwords!r}; use 'en', None or a list of words"
            )
        try:
            from bm25s.stopwords import STOPWORDS_EN
        except ImportError:
            raise MissingDependencyError("SCARCE retrieval (bm25s)", "reference") from None
        return frozenset(STOPWORDS_EN)
    return frozenset(w.lower() for w in stopwords)
