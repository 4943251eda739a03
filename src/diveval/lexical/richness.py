"""Lexical richness with length control: MATTR, MTLD, HD-D (equal to ``lexicalrichness`` on the
same tokens) and distinct@k curves.

The responses of a corpus, or of one set, are joined into ONE token sequence, in the order given
(``join="given"``, the default: the published definitions score one text, and ``lexicalrichness``
scores the responses joined as listed). MATTR windows and MTLD segments cross response boundaries,
so both depend on that order; ``join="sorted"`` joins the responses in code-point order of their
tokens instead, which makes the score a property of the collection, not of its listing (signature
``join:given`` / ``join:sorted``). HD-D depends only on the token counts: no order, no ``join``.
Tokens come from diveval's tokenizer (``whitespace`` by default); ``lexicalrichness`` lower-cases
and drops digits, dashes and punctuation first: give it the same tokens to compare.

* MATTR (Covington & McFall 2010): mean type/token ratio of every window of ``window`` tokens
  (default 50). Rule for a sequence shorter than the window (``lexicalrichness`` raises): the window
  shrinks to the sequence, i.e. its type/token ratio.
* MTLD (McCarthy & Jarvis 2010): tokens / factors, where a factor ends when the running TTR falls to
  the threshold (0.72), plus a partial factor for the rest; forward and backward averaged, exactly
  as ``lexicalrichness`` 0.5 counts (including its rule when no factor completes).
* HD-D (McCarthy & Jarvis 2007): sum over types of P(type among ``draws`` tokens drawn without
  replacement) / draws, with draws = 42. Rule for fewer tokens than draws (``lexicalrichness``
  raises): draws = the number of tokens, which makes HD-D the type/token ratio.
* distinct@k: Distinct-n of random subsets of k responses (drawn without replacement, ``samples``
  draws, numpy seed ``seed``), its mean and the percentile interval of the draws: how Distinct-n
  grows with the number of responses, so collections of different sizes compare at equal k.

Every measure of an empty sequence is 0.0. Higher = more diverse for all of them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..constants import DEFAULT_CONFIDENCE
from ..errors import InputError
from ..results import SETS, Score
from ..text.ngrams import factorize, ngram_codes, text_of_positions
from ..text.prepared import Prepared, TextOptions, prepare
from .counts import lexical_score
from .groups import check_join

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it


def members_in_order(prep: Prepared, join: str = "given") -> list[list[int]]:
    """Per group (the corpus, or each set), its texts' indices as given, or (``"sorted"``) in
    code-point order of the texts (their tokens joined by one space)."""
    group = prep.group_of_texts
    members = [np.flatnonzero(group == g).tolist() for g in range(prep.n_groups)]
    if check_join(join) == "given":
        return members
    tids = prep.tids
    off, vocab, ids = tids.offsets, tids.vocab, tids.ids.tolist()
    texts = [" ".join(vocab[t] for t in ids[off[i] : off[i + 1]]) for i in range(tids.n_texts)]
    return [sorted(m, key=texts.__getitem__) for m in members]


def joined_ids(prep: Prepared, join: str = "given") -> list[np.ndarray]:
    """Per group, the token ids of its texts joined in the order ``join`` says."""
    tids = prep.tids
    off = tids.offsets
    out = []
    for members in members_in_order(prep, join):
        parts = [tids.ids[off[i] : off[i + 1]] for i in members]
        out.append(np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64))
    return out


def mattr_of_ids(ids: np.ndarray, window: int = 50) -> float:
    """Moving-average type/token ratio of one sequence (vectorised over windows)."""
    n = ids.size
    if n == 0:
        return 0.0
    w = min(window, n)
    _, dense = factorize(ids)
    # prev[p]: the previous position of the token at p (-1 if none)
    prev = np.full(n, -1, dtype=np.int64)
    order = np.lexsort((np.arange(n), dense))
    same = dense[order[1:]] == dense[order[:-1]]
    prev[order[1:][same]] = order[:-1][same]
    # types in the window starting at s = w - (positions p of the window whose previous
    # occurrence is also inside it, i.e. s <= prev[p]); position p is such a repeat for the
    # windows s in [p - w + 1, prev[p]]: one difference array adds them all up
    n_windows = n - w + 1
    p = np.flatnonzero((prev >= 0) & (np.arange(n) - prev < w))
    lo = np.maximum(p - w + 1, 0)
    hi = np.minimum(prev[p], n_windows - 1)
    valid = lo <= hi
    diff = np.zeros(n_windows + 1, dtype=np.int64)
    np.add.at(diff, lo[valid], 1)
    np.add.at(diff, hi[valid] + 1, -1)
    repeats = np.cumsum(diff)[:n_windows]
    return float(np.mean((w - repeats) / w))


def _mtld_one_way(tokens: Sequence[int], threshold: float, n_types: int) -> float:
    terms: set[int] = set()
    count = 0
    factors = 0.0
    ttr = 1.0
    for tok in tokens:
        count += 1
        terms.add(tok)
        ttr = len(terms) / count
        if ttr <= threshold:
            count = 0
            terms = set()
            factors += 1
    if count > 0:
        factors += (1 - ttr) / (1 - threshold)
    if factors == 0:  # lexicalrichness: the TTR of the whole text decides
        whole = n_types / len(tokens)
        factors += 1 if whole == 1 else (1 - whole) / (1 - threshold)
    return len(tokens) / factors


def mtld_of_ids(ids: np.ndarray, threshold: float = 0.72) -> float:
    """MTLD of one sequence: forward and backward, averaged."""
    if ids.size == 0:
        return 0.0
    tokens = ids.tolist()
    n_types = len(set(tokens))
    forward = _mtld_one_way(tokens, threshold, n_types)
    backward = _mtld_one_way(tokens[::-1], threshold, n_types)
    return (forward + backward) / 2


def hdd_of_ids(ids: np.ndarray, draws: int = 42) -> float:
    """HD-D of one sequence: sum over types of (1 - P(0 of the type in ``draws`` draws)) / draws."""
    from scipy.special import gammaln  # here: see lexical.expected's miss_probability

    n = ids.size
    if n == 0:
        return 0.0
    d = min(draws, n)
    _, freq = np.unique(ids, return_counts=True)
    # P(0) = C(n - f, d) / C(n, d), in logs; zero when n - f < d
    log_c = math.lgamma(n + 1) - math.lgamma(d + 1) - math.lgamma(n - d + 1)
    rest = n - freq
    p0 = np.zeros(freq.size)
    ok = rest >= d
    r = rest[ok].astype(float)
    p0[ok] = np.exp(gammaln(r + 1) - gammaln(d + 1) - gammaln(r - d + 1) - log_c)
    return float(np.sum((1 - p0) / d))


def _richness(
    name: str, of_ids, parameter: dict, join: str | None, texts: Any, text: TextOptions
) -> Score:
    """``of_ids(ids, **parameter)`` of each joined text. ``join``: None for a measure that does not
    depend on the order (HD-D): no signature key."""
    if join is not None:
        check_join(join)
    prep = prepare(texts, **text)
    values = np.array([of_ids(ids, **parameter) for ids in joined_ids(prep, join or "given")])
    return lexical_score(name, values, prep, {**parameter, "join": join})


def mattr(texts: Any, window: int = 50, join: str = "given", **text: Unpack[TextOptions]) -> Score:
    """Moving-average type/token ratio (Covington & McFall 2010), window 50 by default, of the
    responses joined as given (``join="sorted"``: in code-point order)."""
    if window < 1:
        raise InputError(f"MATTR's window must be a positive number of tokens, got {window}")
    return _richness("mattr", mattr_of_ids, {"window": window}, join, texts, text)


def mtld(
    texts: Any, threshold: float = 0.72, join: str = "given", **text: Unpack[TextOptions]
) -> Score:
    """Measure of textual lexical diversity (McCarthy & Jarvis 2010), threshold 0.72, of the
    responses joined as given (``join="sorted"``: in code-point order)."""
    return _richness("mtld", mtld_of_ids, {"threshold": threshold}, join, texts, text)


def hdd(texts: Any, draws: int = 42, **text: Unpack[TextOptions]) -> Score:
    """HD-D (McCarthy & Jarvis 2007), 42 draws: a function of the token counts only, so the
    order of the responses does not matter (no ``join``)."""
    return _richness("hdd", hdd_of_ids, {"draws": draws}, None, texts, text)


def distinct_curve_of_group(
    codes: np.ndarray,
    text_of_code: np.ndarray,
    members: np.ndarray,
    ks: Sequence[int],
    samples: int,
    rng: np.random.Generator,
    confidence: float,
) -> list[dict[str, float]]:
    """Distinct-n of ``samples`` random subsets of k of ``members`` for each k (capped at the
    group's size): mean, lower and upper percentile."""
    in_group = np.isin(text_of_code, members)
    # the group's n-gram codes sorted by text: a subset's codes are k slices, gathered in O(k +
    # its n-grams) instead of a mask over the whole group per subset (minutes on 1M responses)
    order = np.argsort(text_of_code[in_group], kind="stable")
    g_text, g_codes = text_of_code[in_group][order], codes[in_group][order]
    curve = []
    for k in ks:
        k_eff = min(int(k), members.size)
        values = np.empty(samples)
        for s in range(samples):
            chosen = rng.choice(members, size=k_eff, replace=False)
            first = np.searchsorted(g_text, chosen, side="left")
            lengths = np.searchsorted(g_text, chosen, side="right") - first
            total = int(lengths.sum())
            shift = np.repeat(first - np.cumsum(lengths) + lengths, lengths)
            picked = g_codes[shift + np.arange(total)]
            values[s] = np.unique(picked).size / picked.size if picked.size else 0.0
        tail = (1 - confidence) / 2 * 100
        low, high = np.percentile(values, [tail, 100 - tail])
        curve.append(
            {"k": k_eff, "mean": float(values.mean()), "low": float(low), "high": float(high)}
        )
    return curve


MAX_CURVE = 4096  # responses: the largest subset size of the default distinct@k curve


def distinct_at_k(
    texts: Any,
    k: int = 10,
    n: int = 2,
    ks: Sequence[int] | None = None,
    samples: int = 200,
    seed: int = 0,
    confidence: float = DEFAULT_CONFIDENCE,
    **text: Unpack[TextOptions],
) -> Score:
    """Mean Distinct-n of ``samples`` random subsets of ``k`` responses (seeded), per corpus or
    set. ``details["curve"]``: per group, the curve over ``ks`` (default 1, 2, 4, ... up to the
    group's size, and ``k``) with its percentile interval; ``details["interval"]``: the interval
    at ``k``. A group smaller than k is scored at its own size (every subset is the group), i.e.
    its plain Distinct-n, which is not comparable with distinct@k of larger groups: the Score then
    carries a warning and ``details["smaller_than_k"]``, the number of such groups."""
    prep = prepare(texts, **text)
    codes, starts, _ = ngram_codes(prep.tids, n)
    text_of_code = text_of_positions(prep.tids, starts)
    rng = np.random.default_rng(seed)
    values, lows, highs, curves, sizes = [], [], [], [], []
    # subsets are drawn from the texts in code-point order: the draws, like the score, do not
    # depend on the order the responses were listed in (distinct@k joins nothing)
    for ordered in members_in_order(prep, "sorted"):
        members = np.array(ordered, dtype=np.int64)
        size = members.size
        sizes.append(size)
        # the default curve stops at MAX_CURVE responses: on a corpus of 1M responses, 200
        # subsets at every power of two up to its size took minutes for one k = 10 value
        top = min(size, MAX_CURVE)
        default = [2**i for i in range(int(math.log2(max(top, 1))) + 1)] + [top]
        grid = sorted({*(ks or default), min(k, size)})
        curve = distinct_curve_of_group(
            codes, text_of_code, members, grid, samples, rng, confidence
        )
        at_k = next(c for c in curve if c["k"] == min(k, size))
        values.append(at_k["mean"])
        lows.append(at_k["low"])
        highs.append(at_k["high"])
        curves.append(curve)
    sig = {"n": n, "k": k, "samples": samples, "seed": seed}
    details: dict[str, Any] = {
        "interval": (float(np.mean(lows)), float(np.mean(highs))),
        "confidence": confidence,
        "curve": curves[0] if prep.n_groups == 1 else curves,
    }
    small = [size for size in sizes if size < k]
    if small:
        # the value of such a group is its Distinct-n, which falls with size: a mean over sets of
        # different sizes below k, or a comparison with sets of k or more, is not at equal k
        where = (
            f"{len(small)} of {prep.n_groups} sets have"
            if prep.setting == SETS
            else "the corpus has"
        )
        details["smaller_than_k"] = len(small)
        details["warnings"] = [
            f"{where} fewer than k = {k} responses (smallest: {min(small)}): scored at their own "
            f"size, i.e. plain Distinct-{n} of the whole set, not at k = {k}"
        ]
    return lexical_score("distinct-at-k", np.array(values), prep, sig, details)
