"""Aligners for the LSDSCC metrics: how well one hypothesis matches one group of references.

The LSDSCC paper (Xu et al., NAACL 2018) aligns each hypothesis to the reference group with the
highest "Multi-BLEU", which it does not specify; the authors' public repository
(neural-dialogue-metrics/LSDSCC) made the aligner pluggable. An aligner here is any object with a
``name`` (it goes into the signature) that scores ``(hypothesis, references) -> float``; higher
means closer. Plain callables with that signature are accepted and wrapped (``as_aligner``).

Offered by name (``get_aligner``):

* ``bleu`` (default), the authors' repository's BLEU: BLEU-4 of the hypothesis against the group's
  references as multiple references, n-gram counts clipped by the maximum count in any one
  reference, add-one smoothing ``(m + 1) / (p + 1)`` on *every* order (including unigrams, and
  including orders the hypothesis is too short to have: there p = m = 0 and the precision is 1),
  uniform weights, **no brevity penalty**. ``p`` is the number of hypothesis n-grams
  (``BleuStats.totals``), not nltk's ``max(1, p)``.
* ``nltk-bleu``: nltk ``sentence_bleu`` (brevity penalty against the closest reference length)
  on diveval's BLEU engine, smoothing method1 by default.
* ``nist``: nltk ``sentence_nist`` with n = 5; orders the hypothesis has no n-gram of count 0
  (nltk divides by zero there, so it is called with ``n = min(5, hypothesis length)``, which is
  the same number wherever nltk's is defined).
* ``embedding``: cosine between the hypothesis and the *nearest* reference of the group under a
  sentence embedder (an ``Embedder`` of ``diveval.models.base``; default all-MiniLM-L6-v2).

All n-gram aligners split on whitespace (the LSDSCC data is tokenized and lower-cased already).

Every aligner scores a whole hypothesis set against a whole list of groups at once
(``score_matrix`` -> [hypotheses, groups]); the n-gram aligners count each group's reference
n-grams once per set rather than once per pair, and the embedding aligner encodes every text of a
corpus in one batch (``score_sets``).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Callable, Hashable, Optional, Sequence

import numpy as np

from ..constants import DEFAULT_SMOOTHING
from ..errors import InputError, MissingDependencyError
from ..models.devices import ModelSettings, SettingsKeywords, settings_of
from ..models.embedders import default_embedder, resolve_embedder  # torch only when used
from ..text.bleu import BleuStats, bleu_from_counts, resolve_smoothing

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

__all__ = [
    "Aligner",
    "BleuAligner",
    "NltkBleuAligner",
    "NistAligner",
    "EmbeddingAligner",
    "CallableAligner",
    "ALIGNERS",
    "get_aligner",
    "as_aligner",
    "group_stats",
    "addone_bleu",
    "addone_bleu_from_stats",
]

#: Aligner names ``get_aligner`` knows.
ALIGNERS = ("bleu", "nltk-bleu", "nist", "embedding")


class Aligner:
    """Base class: subclasses implement ``score_matrix`` (or ``__call__``)."""

    name: str = "aligner"

    def __call__(self, hypothesis: str, references: Sequence[str]) -> float:
        return float(self.score_matrix([hypothesis], [list(references)])[0, 0])

    def score_matrix(
        self, hypotheses: Sequence[str], groups: Sequence[Sequence[str]]
    ) -> np.ndarray:
        """Scores [len(hypotheses), len(groups)]: entry (i, k) = self(hypotheses[i], groups[k])."""
        out = np.empty((len(hypotheses), len(groups)), dtype=np.float64)
        for i, h in enumerate(hypotheses):
            for k, g in enumerate(groups):
                out[i, k] = self(h, g)
        return out

    def score_sets(
        self, sets: Sequence[tuple[Sequence[str], Sequence[Sequence[str]]]]
    ) -> list[np.ndarray]:
        """``score_matrix`` of many (hypotheses, groups) pairs; overridden where batching pays."""
        return [self.score_matrix(h, g) for h, g in sets]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class CallableAligner(Aligner):
    """Wraps a plain ``(hypothesis, references) -> float`` callable."""

    def __init__(self, fn: Callable[[str, Sequence[str]], float], name: str | None = None):
        self.fn = fn
        self.name = (
            name
            or getattr(fn, "name", None)
            or f"callable({getattr(fn, '__qualname__', type(fn).__name__)})"
        )

    def __call__(self, hypothesis: str, references: Sequence[str]) -> float:
        return float(self.fn(hypothesis, list(references)))


# --------------------------------------------------------------------------------------------
# n-gram statistics of a hypothesis against a group, counted once per group


def _ngrams(tokens: Sequence[Hashable], max_n: int) -> list[Counter]:
    # zip of shifted views yields each n-gram as a tuple (no per-n-gram slicing)
    return [Counter(zip(*(tokens[i:] for i in range(n)))) for n in range(1, max_n + 1)]


class _Group:
    """A group's references counted once: per order, n-gram -> max count in any one reference."""

    __slots__ = ("max_counts", "lengths")

    def __init__(self, references: Sequence[Sequence[Hashable]], max_n: int):
        self.max_counts: list[dict] = [{} for _ in range(max_n)]
        self.lengths = [len(r) for r in references]
        for ref in references:
            for table, counts in zip(self.max_counts, _ngrams(ref, max_n)):
                for g, c in counts.items():
                    if c > table.get(g, 0):
                        table[g] = c


def _closest(lengths: Sequence[int], hyp_len: int) -> int:
    # nltk's closest reference length: smallest |r - c|, the shorter one on ties
    return min(lengths, key=lambda r: (abs(r - hyp_len), r))


def _match_arrays(hyp_tokens: Sequence[Sequence[Hashable]], groups: Sequence[_Group], max_n: int):
    """matches [h, g, K], totals [h, K], hyp_len [h], closest ref_len [h, g]."""
    H, G = len(hyp_tokens), len(groups)
    matches = np.zeros((H, G, max_n), dtype=np.int64)
    totals = np.zeros((H, max_n), dtype=np.int64)
    hyp_len = np.fromiter(map(len, hyp_tokens), dtype=np.int64, count=H)
    ref_len = np.zeros((H, G), dtype=np.int64)
    for i, toks in enumerate(hyp_tokens):
        counts = _ngrams(toks, max_n)
        for n in range(max_n):
            totals[i, n] = max(0, len(toks) - n)
        for k, grp in enumerate(groups):
            row = matches[i, k]
            for n, (cnt, table) in enumerate(zip(counts, grp.max_counts)):
                m = 0
                for g, c in cnt.items():
                    r = table.get(g)
                    if r:
                        m += c if c < r else r
                row[n] = m
            ref_len[i, k] = _closest(grp.lengths, len(toks))
    return matches, totals, hyp_len, ref_len


def group_stats(
    hypothesis: Sequence[Hashable], references: Sequence[Sequence[Hashable]], max_n: int = 4
) -> BleuStats:
    """The BLEU engine's statistics (``diveval.text.bleu.BleuStats``) of one tokenized
    hypothesis against one group, computed the way the aligners compute them."""
    if len(references) == 0:
        raise ValueError("a group needs at least one reference")
    m, t, h, r = _match_arrays(
        [list(hypothesis)], [_Group([list(x) for x in references], max_n)], max_n
    )
    totals = tuple(int(x) for x in t[0])
    return BleuStats(
        tuple(int(x) for x in m[0, 0]),
        totals,
        tuple(int(x == 0) for x in totals),
        int(h[0]),
        int(r[0, 0]),
        1,
    )


def addone_bleu(matches: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """The authors' BLEU from clipped matches and hypothesis n-gram counts ([..., K] arrays):
    exp(mean_k log((m_k + 1) / (p_k + 1))), no brevity penalty."""
    m = np.asarray(matches, dtype=np.float64)
    p = np.asarray(totals, dtype=np.float64)
    return np.exp(np.mean(np.log((m + 1.0) / (p + 1.0)), axis=-1))


def addone_bleu_from_stats(stats: BleuStats) -> float:
    """``addone_bleu`` of engine statistics (uses ``totals``, not nltk's denominators)."""
    return float(addone_bleu(np.array(stats.matches), np.array(stats.totals)))


class _NgramAligner(Aligner):
    max_n: int

    def _orders(self) -> int:
        return self.max_n

    def score_matrix(self, hypotheses, groups) -> np.ndarray:
        K = self._orders()
        hyp_tokens = [h.split() for h in hypotheses]
        prepared = [_Group([r.split() for r in g], K) for g in groups]
        return self._score(*_match_arrays(hyp_tokens, prepared, K))

    def _score(self, matches, totals, hyp_len, ref_len) -> np.ndarray:
        raise NotImplementedError


class BleuAligner(_NgramAligner):
    """The authors' repository's BLEU (default aligner): add-one smoothing on every order, no
    brevity penalty, clipped by the maximum reference count, uniform weights up to ``max_n``."""

    def __init__(self, max_n: int = 4):
        if isinstance(max_n, bool) or not isinstance(max_n, (int, np.integer)) or max_n < 1:
            raise ValueError(f"max_n must be a positive integer, got {max_n!r}")
        self.max_n = int(max_n)
        self.name = "bleu" if self.max_n == 4 else f"bleu(n={self.max_n})"

    def _score(self, matches, totals, hyp_len, ref_len):
        return addone_bleu(matches, totals[:, None, :])


class NltkBleuAligner(_NgramAligner):
    """nltk ``sentence_bleu`` (with brevity penalty) on diveval's BLEU engine."""

    def __init__(self, max_n: int = 4, smoothing: str | int | None = DEFAULT_SMOOTHING):
        if isinstance(max_n, bool) or not isinstance(max_n, (int, np.integer)) or max_n < 1:
            raise ValueError(f"max_n must be a positive integer, got {max_n!r}")
        self.max_n = int(max_n)
        self.smoothing = resolve_smoothing(smoothing)
        extra = "" if self.max_n == 4 else f",n={self.max_n}"
        self.name = f"nltk-bleu({self.smoothing}{extra})"

    def _orders(self) -> int:
        # method5/method7 read the 5-gram precision whatever max_n is (as nltk does)
        return max(self.max_n, 5) if self.smoothing in ("method5", "method7") else self.max_n

    def _score(self, matches, totals, hyp_len, ref_len):
        H, G, K = matches.shape
        n = self.max_n
        num = matches[:, :, :n].reshape(H * G, n)
        tot = np.broadcast_to(totals[:, None, :], (H, G, K))
        den_all = tot + (tot == 0)  # nltk: max(1, count) per segment
        den = den_all[:, :, :n].reshape(H * G, n)
        p5 = None
        if K >= 5 and self.smoothing in ("method5", "method7"):
            p5 = (matches[:, :, 4].reshape(-1), den_all[:, :, 4].reshape(-1))
        h = np.repeat(hyp_len, G)
        out = bleu_from_counts(
            num, den, h, ref_len.reshape(-1), weights=[1.0 / n] * n, smoothing=self.smoothing, p5=p5
        )
        return out.reshape(H, G)


class NistAligner(Aligner):
    """nltk ``sentence_nist``; orders longer than the hypothesis contribute 0 (see module doc)."""

    def __init__(self, n: int = 5):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n must be a positive integer, got {n!r}")
        self.n = int(n)
        self.name = f"nist(n={self.n})"
        self._nist: Callable[..., float] | None = None

    def __call__(self, hypothesis: str, references: Sequence[str]) -> float:
        if self._nist is None:
            try:
                from nltk.translate.nist_score import sentence_nist  # nltk only when used
            except ImportError:
                raise MissingDependencyError("the nist aligner (nltk)", "reference") from None
            self._nist = sentence_nist
        hyp = hypothesis.split()
        refs = [r.split() for r in references]
        if not hyp or not any(refs):
            return 0.0
        nist = self._nist
        return float(nist(refs, hyp, n=min(self.n, len(hyp))))


class EmbeddingAligner(Aligner):
    """Cosine between the hypothesis and the nearest reference of the group.

    embedder: any ``Embedder`` (``name``, ``fingerprint``, ``encode(texts) -> [n, d]``); None loads
    ``diveval.models.embedders.default_embedder()`` on first use. A zero vector has cosine 0.
    """

    def __init__(self, embedder: Any = None):
        self._embedder = embedder

    @property
    def embedder(self):
        if self._embedder is None:
            self._embedder = default_embedder()
        return self._embedder

    @property
    def name(self) -> str:  # type: ignore[override]
        e = self.embedder
        return f"embedding({e.name}@{e.fingerprint})"

    def _unit(self, texts: list[str]) -> dict[str, np.ndarray]:
        uniq = list(dict.fromkeys(texts))
        if not uniq:
            return {}
        emb = np.asarray(self.embedder.encode(uniq), dtype=np.float64)
        if emb.ndim != 2 or emb.shape[0] != len(uniq):
            raise ValueError(
                f"embedder {self.embedder.name!r} returned shape {emb.shape} for {len(uniq)} texts"
            )
        norms = np.linalg.norm(emb, axis=1, keepdims=True)
        emb = np.divide(emb, norms, out=np.zeros_like(emb), where=norms > 0)
        return dict(zip(uniq, emb))

    def score_sets(self, sets):
        texts = [t for hyps, groups in sets for t in list(hyps) + [r for g in groups for r in g]]
        unit = self._unit(texts)
        out = []
        for hyps, groups in sets:
            H = np.array([unit[h] for h in hyps]).reshape(len(hyps), -1)
            row = np.empty((len(hyps), len(groups)), dtype=np.float64)
            for k, g in enumerate(groups):
                R = np.array([unit[r] for r in g]).reshape(len(g), -1)
                row[:, k] = (H @ R.T).max(axis=1)
            out.append(row)
        return out

    def score_matrix(self, hypotheses, groups):
        return self.score_sets([(hypotheses, groups)])[0]


def get_aligner(
    name: str = "bleu",
    *,
    embedding_model: str | None = None,
    settings: Optional[ModelSettings] = None,
    **keywords: Unpack[SettingsKeywords],
) -> Aligner:
    """An aligner by name: ``bleu`` (default), ``nltk-bleu``, ``nist``, ``embedding``.

    embedding_model and settings (the run's, or their keywords: device, batch_size, ...): for
    ``embedding`` only (a sentence-transformers name or folder; None = the offline default
    all-MiniLM-L6-v2).
    """
    key = (name or "bleu").strip().lower()
    if key == "bleu":
        return BleuAligner()
    if key == "nltk-bleu":
        return NltkBleuAligner()
    if key == "nist":
        return NistAligner()
    if key == "embedding":
        loading = settings_of(settings, **keywords).for_loading()
        if embedding_model is None and loading == ModelSettings():
            return EmbeddingAligner()  # the default model, loaded on first use
        return EmbeddingAligner(resolve_embedder(embedding_model, loading))
    raise InputError(
        f"unknown aligner {name!r}; choose one of {', '.join(ALIGNERS)}, "
        "or pass a callable (hypothesis, references) -> float"
    )


def as_aligner(aligner: Any = "bleu", **options: Any) -> Aligner:
    """An ``Aligner`` from a name, an ``Aligner``, or a ``(hypothesis, references) -> float`` callable."""
    if aligner is None or isinstance(aligner, str):
        return get_aligner(aligner or "bleu", **options)
    if isinstance(aligner, Aligner):
        return aligner
    if callable(aligner):
        return CallableAligner(aligner)

    raise InputError(
        f"aligner must be a name, an Aligner or a callable, got {type(aligner).__name__}"
    )
