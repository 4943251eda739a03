"""One BLEU engine for the whole package, on sufficient statistics that add up.

Two conventions are offered over the same statistics:

* **nltk** (``sentence_bleu``, ``corpus_bleu``): the numbers of
  ``nltk.translate.bleu_score.sentence_bleu`` / ``corpus_bleu``, including nltk's quirks, which we
  reproduce on purpose because Self-BLEU and many published numbers are defined by them:

  - clipped counts against the *maximum* count of the n-gram in any one reference;
  - the precision denominator of a segment is ``max(1, number of hypothesis n-grams)``, so a
    segment shorter than n adds 1 to the corpus denominator (kept here as ``BleuStats.empty``);
  - the closest reference length, and on ties the *shorter* reference;
  - if the corpus has no matching unigram the score is exactly 0, whatever the smoothing;
  - an order whose smoothed precision is 0 is left out of the geometric mean (this only happens
    with method4 when the hypothesis has a single token);
  - method0 replaces a zero precision by the smallest normal float, so the score is tiny
    (about 1e-77 for BLEU-4) rather than exactly 0, and warns;
  - method5 and method7 use the 5-gram precision of the (last) segment whatever ``max_n`` is.

* **sacrebleu** (``sacrebleu_corpus_bleu``): the number ``sacrebleu.corpus_bleu(...).score``
  returns (0-100 scale), with sacrebleu's smoothing methods ('exp' by default).

Argument order: diveval puts the hypothesis first (``sentence_bleu(hyp, refs)``), nltk puts the
references first. Tokens are any hashable values compared by equality (normally ``str``).
"""

from __future__ import annotations

import math
import sys
import warnings
from collections import Counter
from dataclasses import dataclass
from typing import Any, Hashable, Iterable, Sequence

import numpy as np

from ..constants import DEFAULT_SMOOTHING
from ..signature_copy import same_options

__all__ = [
    "BleuStats",
    "SMOOTHING_METHODS",
    "SACREBLEU_SMOOTHING",
    "uniform_weights",
    "resolve_weights",
    "resolve_smoothing",
    "segment_stats",
    "corpus_stats",
    "sentence_bleu",
    "corpus_bleu",
    "bleu_from_counts",
    "brevity_penalty",
    "closest_ref_length",
    "sacrebleu_corpus_bleu",
    "sacrebleu_score",
]

Tokens = Sequence[Hashable]

#: nltk smoothing methods offered (nltk's ``SmoothingFunction().methodK``). method6 is left out:
#: nltk asserts on a zero trigram precision, so it is undefined on much ordinary input.
SMOOTHING_METHODS = tuple(f"method{k}" for k in (0, 1, 2, 3, 4, 5, 7))

#: sacrebleu smoothing methods and their default values.
SACREBLEU_SMOOTHING = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}

# nltk's stand-in for a zero precision under method0 (log of it is about -708.4).
_FLOAT_MIN = sys.float_info.min
# sacrebleu's floor for log(0).
_SACRE_LOG0 = -9999999999


def uniform_weights(max_n: int) -> tuple[float, ...]:
    """(1/max_n, ..., 1/max_n), the weights nltk users pass for BLEU-n."""
    return tuple(1.0 / max_n for _ in range(max_n))


def resolve_weights(
    max_n: int | None, weights: Sequence[float] | None
) -> tuple[int, tuple[float, ...]]:
    """Return (max_n, weights); ``weights`` wins when given and must agree with ``max_n``."""
    if weights is not None:
        weights = tuple(float(w) for w in weights)
        if not weights:
            raise ValueError("weights must not be empty")
        if max_n is not None and max_n != len(weights):
            raise ValueError(f"max_n={max_n} disagrees with {len(weights)} weights")
        return len(weights), weights
    if max_n is None:
        max_n = 4
    if isinstance(max_n, bool) or not isinstance(max_n, (int, np.integer)) or max_n < 1:
        raise ValueError(f"max_n must be a positive integer, got {max_n!r}")
    return int(max_n), uniform_weights(int(max_n))


def resolve_smoothing(smoothing: str | int | None) -> str:
    """Normalise 'method1' / 1 / None (= method0, nltk's default) to a name in SMOOTHING_METHODS."""
    if smoothing is None:
        return "method0"
    if isinstance(smoothing, (int, np.integer)) and not isinstance(smoothing, bool):
        smoothing = f"method{int(smoothing)}"
    if isinstance(smoothing, str):
        name = smoothing.strip().lower()
        if name.isdigit():
            name = "method" + name
        if name in SMOOTHING_METHODS:
            return name
    raise ValueError(
        f"unknown smoothing {smoothing!r}; choose one of {', '.join(SMOOTHING_METHODS)}"
    )


# --------------------------------------------------------------------------------------------
# sufficient statistics


@dataclass(frozen=True)
class BleuStats:
    """Sufficient statistics of BLEU over one or more segments; they add up with ``+``.

    matches[k]: clipped (k+1)-gram matches, summed over segments.
    totals[k]:  hypothesis (k+1)-grams, summed over segments (sacrebleu's denominator).
    empty[k]:   segments with no (k+1)-gram at all; nltk's denominator is ``totals + empty``
                because nltk uses max(1, count) per segment.
    hyp_len:    hypothesis tokens; ref_len: closest reference lengths, summed.
    segments:   number of segments.
    """

    matches: tuple[int, ...]
    totals: tuple[int, ...]
    empty: tuple[int, ...]
    hyp_len: int
    ref_len: int
    segments: int = 1

    def __post_init__(self) -> None:
        if not (len(self.matches) == len(self.totals) == len(self.empty)):
            raise ValueError("matches, totals and empty must have one entry per n-gram order")

    @property
    def max_n(self) -> int:
        return len(self.matches)

    @classmethod
    def zero(cls, max_n: int = 4) -> BleuStats:
        z = (0,) * max_n
        return cls(z, z, z, 0, 0, 0)

    def __add__(self, other: BleuStats) -> BleuStats:
        if not isinstance(other, BleuStats):
            return NotImplemented
        if other.max_n != self.max_n:
            raise ValueError(
                f"cannot merge BLEU statistics of max_n {self.max_n} and {other.max_n}"
            )
        return BleuStats(
            tuple(a + b for a, b in zip(self.matches, other.matches)),
            tuple(a + b for a, b in zip(self.totals, other.totals)),
            tuple(a + b for a, b in zip(self.empty, other.empty)),
            self.hyp_len + other.hyp_len,
            self.ref_len + other.ref_len,
            self.segments + other.segments,
        )

    def __radd__(self, other):  # lets sum(stats_list) work
        if other == 0:
            return self
        return self.__add__(other)

    def truncate(self, max_n: int) -> BleuStats:
        """The statistics of the first ``max_n`` orders."""
        if max_n > self.max_n:
            raise ValueError(f"statistics only go up to order {self.max_n}")
        return BleuStats(
            self.matches[:max_n],
            self.totals[:max_n],
            self.empty[:max_n],
            self.hyp_len,
            self.ref_len,
            self.segments,
        )

    @property
    def nltk_denominators(self) -> tuple[int, ...]:
        return tuple(t + e for t, e in zip(self.totals, self.empty))

    def nltk_score(
        self,
        weights: Sequence[float] | None = None,
        smoothing=DEFAULT_SMOOTHING,
        *,
        epsilon: float = 0.1,
        k: int = 5,
        p5: tuple[int, int] | None = None,
    ) -> float:
        """nltk BLEU from these statistics (see ``bleu_from_counts``).

        method5/method7 need ``p5`` = (numerator, denominator) of the 5-gram precision of the
        segment nltk would use (the last one); it is taken from the statistics themselves when
        they hold a single segment up to order >= 5 and the weights use fewer orders.
        """
        n_w, weights = resolve_weights(None if weights is not None else self.max_n, weights)
        if n_w > self.max_n:
            raise ValueError(f"{n_w} weights but statistics only up to order {self.max_n}")
        smoothing = resolve_smoothing(smoothing)
        if smoothing in ("method5", "method7") and p5 is None:
            if self.segments == 1 and self.max_n >= 5:
                p5 = (self.matches[4], self.totals[4] + self.empty[4])
            else:
                raise ValueError(
                    f"{smoothing} needs p5 (nltk uses the 5-gram precision of the last segment)"
                )
        den = self.nltk_denominators
        out = bleu_from_counts(
            np.array([self.matches[:n_w]]),
            np.array([den[:n_w]]),
            np.array([self.hyp_len]),
            np.array([self.ref_len]),
            weights=weights,
            smoothing=smoothing,
            epsilon=epsilon,
            k=k,
            p5=None if p5 is None else (np.array([p5[0]]), np.array([p5[1]])),
        )
        return float(out[0])


def _ngram_counter(tokens: Tokens, n: int) -> Counter:
    if len(tokens) < n:
        return Counter()
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def closest_ref_length(ref_lens: Iterable[int], hyp_len: int) -> int:
    """Length of the reference closest to ``hyp_len``; on a tie the shorter one (nltk and sacrebleu)."""
    best = None
    for r in ref_lens:
        if best is None or (abs(r - hyp_len), r) < (abs(best - hyp_len), best):
            best = r
    if best is None:
        raise ValueError("no references")
    return best


def brevity_penalty(closest_ref_len: float, hyp_len: float) -> float:
    """nltk's brevity penalty: 1 if the hypothesis is longer, 0 if it is empty, else exp(1 - r/c)."""
    if hyp_len > closest_ref_len:
        return 1.0
    if hyp_len == 0:
        return 0.0
    return math.exp(1 - closest_ref_len / hyp_len)


def _as_token_list(x, what: str) -> list:
    if isinstance(x, str):
        raise TypeError(f"{what} must be a sequence of tokens, not a string (tokenize it first)")
    return list(x)


def segment_stats(hypothesis: Tokens, references: Sequence[Tokens], max_n: int = 4) -> BleuStats:
    """Statistics of one hypothesis against its references (clipped by the max reference count)."""
    hyp = _as_token_list(hypothesis, "hypothesis")
    if isinstance(references, str) or len(references) == 0:
        raise ValueError("references must be a non-empty list of token sequences")
    refs = [_as_token_list(r, "each reference") for r in references]
    matches, totals, empty = [], [], []
    for n in range(1, max_n + 1):
        counts = _ngram_counter(hyp, n)
        best: dict = {}
        for ref in refs:
            rc = _ngram_counter(ref, n)
            for g in counts:
                c = rc.get(g, 0)
                if c > best.get(g, 0):
                    best[g] = c
        matches.append(sum(min(c, best.get(g, 0)) for g, c in counts.items()))
        t = max(0, len(hyp) - n + 1)
        totals.append(t)
        empty.append(1 if t == 0 else 0)
    return BleuStats(
        tuple(matches),
        tuple(totals),
        tuple(empty),
        len(hyp),
        closest_ref_length((len(r) for r in refs), len(hyp)),
        1,
    )


def corpus_stats(
    hypotheses: Sequence[Tokens], list_of_references: Sequence[Sequence[Tokens]], max_n: int = 4
) -> BleuStats:
    """Sum of ``segment_stats`` over hypotheses and their references."""
    if len(hypotheses) != len(list_of_references):
        raise ValueError(
            f"{len(hypotheses)} hypotheses but {len(list_of_references)} lists of references"
        )
    total = BleuStats.zero(max_n)
    for hyp, refs in zip(hypotheses, list_of_references):
        total = total + segment_stats(hyp, refs, max_n)
    return total


# --------------------------------------------------------------------------------------------
# scoring (vectorised: one row per score)


def bleu_from_counts(
    num,
    den,
    hyp_len,
    ref_len,
    weights: Sequence[float],
    smoothing=DEFAULT_SMOOTHING,
    *,
    epsilon: float = 0.1,
    k: int = 5,
    p5=None,
) -> np.ndarray:
    """nltk BLEU for many rows at once.

    num, den: (m, K) integer arrays: clipped matches and nltk denominators (sum of max(1, count))
    per order 1..K; hyp_len, ref_len: (m,) hypothesis and closest reference lengths;
    weights: K weights, or an (m, K) array; p5: ((m,), (m,)) numerator and denominator of the
    5-gram precision, needed by method5/method7 only (nltk always takes order 5 there).
    Returns an (m,) float array.
    """
    smoothing = resolve_smoothing(smoothing)
    method = int(smoothing[len("method") :])  # k of nltk's SmoothingFunction().method<k>
    num = np.asarray(num, dtype=np.int64)
    den = np.asarray(den, dtype=np.int64)
    if num.ndim != 2 or num.shape != den.shape:
        raise ValueError("num and den must be (m, K) arrays of the same shape")
    m, K = num.shape
    h = np.asarray(hyp_len, dtype=np.float64).reshape(m)
    r = np.asarray(ref_len, dtype=np.float64).reshape(m)
    w = np.broadcast_to(np.asarray(weights, dtype=np.float64), (m, K))
    numf = num.astype(np.float64)
    denf = den.astype(np.float64)
    zero = num == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        p = numf / denf
        if method == 0:
            if zero.any():
                warnings.warn(
                    "BLEU: some hypotheses have 0 matching n-grams of an order; with no "
                    "smoothing (method0) their score is ~0 (nltk substitutes the smallest "
                    "float for the zero precision). Consider smoothing.",
                    UserWarning,
                    stacklevel=3,
                )
            p = np.where(zero, _FLOAT_MIN, p)
        elif method == 1:
            p = np.where(zero, (0 + epsilon) / denf, p)
        elif method == 2:
            p[:, 1:] = (numf[:, 1:] + 1) / (denf[:, 1:] + 1)
        elif method == 3:
            # k-th zero order (counted from the left) gets 1 / (2^k * den)
            kth = np.cumsum(zero, axis=1)
            p = np.where(zero, 1.0 / (np.exp2(kth) * denf), p)
        elif method in (4, 5, 7):
            if method in (4, 7):
                p = _method4(p, zero, denf, h, k)
            if method in (5, 7):
                if p5 is None:
                    raise ValueError(f"{smoothing} needs the 5-gram precision p5")
                p5n = np.asarray(p5[0], dtype=np.float64).reshape(m)
                p5d = np.asarray(p5[1], dtype=np.float64).reshape(m)
                p = _method5(p, p5n / p5d)
        logp = np.where(p > 0, w * np.log(np.where(p > 0, p, 1.0)), 0.0)
        s = logp.sum(axis=1)
        bp = np.where(h > r, 1.0, np.where(h == 0, 0.0, np.exp(1 - r / np.where(h == 0, 1.0, h))))
        out = bp * np.exp(s)
    # no matching unigram at all: nltk returns 0 before smoothing
    return np.where(num[:, 0] == 0, 0.0, out)


def _method4(p, zero, denf, h, k):
    # Chen & Cherry method 4 as nltk computes it: the j-th zero order gets
    # 1 / (2^j * k / ln(hyp_len)) / den; only when hyp_len > 1 (else the zero stays and is skipped).
    kth = np.cumsum(zero, axis=1)
    hl = np.where(h > 1, h, 2.0)[:, None]
    val = (1.0 / ((np.exp2(kth) * k) / np.log(hl))) / denf
    return np.where(zero & (h[:, None] > 1), val, p)


def _method5(p, p5):
    # average of the previous smoothed value, this order and the next *unsmoothed-by-5* value;
    # the next value of the last order is the 5-gram precision (nltk's choice, whatever K is).
    K = p.shape[1]
    nxt = np.concatenate([p[:, 1:], p5[:, None]], axis=1)
    out = np.empty_like(p)
    prev = p[:, 0] + 1
    for i in range(K):
        out[:, i] = (prev + p[:, i] + nxt[:, i]) / 3
        prev = out[:, i]
    return out


def _auto_reweigh(weights: tuple[float, ...], hyp_len: int) -> tuple[float, ...]:
    if hyp_len < 4 and weights == (0.25, 0.25, 0.25, 0.25):
        return (1 / hyp_len,) * hyp_len
    return weights


def _score_stats(stats: BleuStats, weights, smoothing, epsilon, k, auto_reweigh, p5) -> float:
    if stats.matches[0] == 0:
        return 0.0
    if auto_reweigh:
        weights = _auto_reweigh(weights, stats.hyp_len)
        if len(weights) < stats.max_n:  # nltk zips weights with the precisions: shorter wins
            stats = stats.truncate(len(weights))
        else:
            weights = weights[: stats.max_n]
    return stats.nltk_score(weights, smoothing, epsilon=epsilon, k=k, p5=p5)


def corpus_bleu(
    hypotheses: Sequence[Tokens],
    list_of_references: Sequence[Sequence[Tokens]],
    max_n: int | None = 4,
    weights: Sequence[float] | None = None,
    smoothing: str | int | None = DEFAULT_SMOOTHING,
    *,
    epsilon: float = 0.1,
    k: int = 5,
    auto_reweigh: bool = False,
) -> float:
    """Corpus BLEU (micro-averaged precisions), equal to nltk's
    ``corpus_bleu(list_of_references, hypotheses, weights, smoothing_function)``.

    As in nltk, method4 uses the corpus hypothesis length, and method5/method7 the 5-gram
    precision of the last segment.
    """
    if len(hypotheses) == 0:
        raise ValueError("corpus_bleu needs at least one hypothesis")
    if weights is not None:
        max_n = None
    n, weights = resolve_weights(max_n, weights)
    smoothing = resolve_smoothing(smoothing)
    stats = corpus_stats(hypotheses, list_of_references, n)
    p5 = None
    if smoothing in ("method5", "method7"):
        p5 = last_segment_p5(hypotheses, list_of_references)
    return _score_stats(stats, weights, smoothing, epsilon, k, auto_reweigh, p5)


@same_options(corpus_bleu)
def sentence_bleu(
    hypothesis: Tokens, references: Sequence[Tokens], *args: Any, **options: Any
) -> float:
    """BLEU of one hypothesis against one or more references, equal to nltk's
    ``sentence_bleu(references, hypothesis, weights, SmoothingFunction(epsilon, k=k).<smoothing>)``:
    as in nltk, the corpus BLEU of one segment (:func:`corpus_bleu`'s options).

    ``weights`` default to uniform up to ``max_n``. Note the default smoothing here is method1
    (Self-BLEU's); nltk's own default is no smoothing, ``smoothing="method0"`` or ``None``.
    """
    return corpus_bleu([hypothesis], [references], *args, **options)


def last_segment_p5(
    hypotheses: Sequence[Tokens], list_of_references: Sequence[Sequence[Tokens]]
) -> tuple[int, int]:
    """(numerator, nltk denominator) of the last segment's 5-gram precision: what nltk's method5
    and method7 take from the last segment of a corpus."""
    last = segment_stats(hypotheses[-1], list_of_references[-1], 5)
    return last.matches[4], last.totals[4] + last.empty[4]


def nltk_corpus_bleu_from_stats(
    stats: BleuStats,
    smoothing: str | int | None = DEFAULT_SMOOTHING,
    p5: tuple[int, int] | None = None,
) -> float:
    """nltk's corpus BLEU with uniform weights up to ``stats.max_n`` from summed statistics (what
    a sharded run adds up); p5: the last segment's 5-gram precision, for method5/method7 only."""
    smoothing = resolve_smoothing(smoothing)
    weights = resolve_weights(stats.max_n, None)[1]
    return _score_stats(stats, weights, smoothing, 0.1, 5, False, p5)


# --------------------------------------------------------------------------------------------
# sacrebleu convention


def sacrebleu_score(
    stats: BleuStats,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    use_effective_order: bool = False,
) -> float:
    """``sacrebleu``'s BLEU (0-100) from statistics (its ``BLEU.compute_bleu``)."""
    if smooth_method not in SACREBLEU_SMOOTHING:
        raise ValueError(
            f"unknown sacrebleu smoothing {smooth_method!r}; choose one of {list(SACREBLEU_SMOOTHING)}"
        )
    # the value matters to "floor" and "add-k" only ("none" and "exp" have none)
    value = (
        float(SACREBLEU_SMOOTHING[smooth_method] or 0.0) if smooth_value is None else smooth_value
    )
    K = stats.max_n
    correct: list[float] = list(stats.matches)
    total: list[float] = list(stats.totals)
    sys_len, ref_len = stats.hyp_len, stats.ref_len
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    if not any(correct):
        return 0.0
    precisions = [0.0] * K
    mteval = 1.0
    eff_order = K
    for n in range(1, K + 1):
        if smooth_method == "add-k" and n > 1:
            correct[n - 1] += value
            total[n - 1] += value
        if total[n - 1] == 0:
            break
        if use_effective_order:
            eff_order = n
        if correct[n - 1] == 0:
            if smooth_method == "exp":
                mteval *= 2
                precisions[n - 1] = 100.0 / (mteval * total[n - 1])
            elif smooth_method == "floor":
                precisions[n - 1] = 100.0 * value / total[n - 1]
        else:
            precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1]
    logs = [math.log(q) if q != 0.0 else _SACRE_LOG0 for q in precisions[:eff_order]]
    return bp * math.exp(sum(logs) / eff_order)


def sacrebleu_corpus_bleu(
    hypotheses: Sequence[str | Tokens],
    list_of_references: Sequence[Sequence[str | Tokens]],
    tokenize: str | None = "13a",
    lowercase: bool = False,
    max_n: int = 4,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    use_effective_order: bool = False,
) -> float:
    """Corpus BLEU on sacrebleu's 0-100 scale, equal to ``sacrebleu.corpus_bleu(...).score``.

    Strings are tokenized with sacrebleu's own tokenizer ``tokenize`` (sacrebleu is imported
    then), after optional lowercasing, and split on whitespace as sacrebleu does; token lists are
    used as they are (``tokenize`` must then be None or 'none'). References are given per
    hypothesis (``list_of_references[i]`` = the references of hypothesis i), not as sacrebleu's
    reference streams; a hypothesis may have any number (>= 1) of references.
    """
    if len(hypotheses) != len(list_of_references):
        raise ValueError(
            f"{len(hypotheses)} hypotheses but {len(list_of_references)} lists of references"
        )
    tok = None

    def prep(x):
        nonlocal tok
        if isinstance(x, str):
            if tok is None:
                from sacrebleu.metrics.bleu import _get_tokenizer  # heavy import, only here

                tok = _get_tokenizer("none" if tokenize is None else tokenize)()
            s = x.lower() if lowercase else x
            return tok(s.rstrip()).split()
        if tokenize not in (None, "none"):
            raise ValueError("token lists are already tokenized: pass tokenize=None")
        return [t.lower() for t in x] if lowercase else list(x)

    stats = BleuStats.zero(max_n)
    for hyp, refs in zip(hypotheses, list_of_references):
        if isinstance(refs, str):
            raise TypeError("each entry of list_of_references must be a list of references")
        stats = stats + segment_stats(prep(hyp), [prep(r) for r in refs], max_n)
    return sacrebleu_score(stats, smooth_method, smooth_value, use_effective_order)
