"""Self-BLEU (Zhu et al. 2018, Texygen), exact and in time linear in the number of n-grams.

Definition (GUIDE section 2): each sentence is the hypothesis and *all other* sentences are its
references, scored with nltk ``sentence_bleu`` semantics (clipping by the maximum reference count,
closest reference length with shorter-on-ties, uniform weights up to ``max_n``, smoothing method1
by default); Self-BLEU is the mean over sentences.

Why not call nltk per sentence: that is O(N^2) (every sentence is re-counted as a reference of
every other one: ~240 s for 2,000 sentences). Nothing quadratic is needed:

* the clipped count of n-gram g in sentence i is min(c_i(g), max_{j != i} c_j(g)); the max over
  the others is the corpus-wide max of g, except for the sentence holding it, which sees the
  second-largest count (equal to the max when two sentences share it);
* the closest length among the others comes from the sorted list of lengths with sentence i's
  own length removed once.

Each order costs one sort of n-gram keys (ties kept in position order, so equal (n-gram,
sentence) pairs are adjacent); the keys of order n are built from the dense ranks of order n - 1,
so they stay exact int64 values (no hashing, no collisions). A position whose (n-1)-gram occurs in
one sentence only cannot match at order n and is dropped, which removes most of the work at
higher orders. With ``include_self`` every n-gram matches itself, so no counting is needed.

Edge cases, as nltk: an empty hypothesis scores 0; an empty sentence still counts as a reference
(of length 0, which matters for the brevity penalty of short hypotheses); a sentence shorter than
n has precision 0/1 at order n (smoothed like any other zero).
"""

from __future__ import annotations

from itertools import chain
from typing import Any, Hashable, Sequence

import numpy as np

from ..constants import DEFAULT_SMOOTHING, DEFAULT_TOKENIZER
from ..errors import InputError
from ..results import CORPUS, SETS, Score, make_signature
from ..text.bleu import bleu_from_counts, resolve_smoothing, resolve_weights
from ..text.ngrams import unique_counts
from ..text.prepared import prepare

__all__ = ["self_bleu", "self_bleu_tokens", "self_bleu_ids", "sample_indices"]


def _encode(token_lists: Sequence[Sequence[Hashable]]) -> tuple[np.ndarray, np.ndarray]:
    """Token lists -> (flat int64 ids, int64 lengths); ids in order of first occurrence."""
    if isinstance(token_lists, (str, bytes)):
        raise TypeError("self_bleu_tokens expects a list of token lists, not a string")
    token_lists = list(token_lists)
    for i, t in enumerate(token_lists):
        if isinstance(t, (str, bytes)):
            raise TypeError(f"item {i} is a string, not a list of tokens (tokenize first)")
    lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    flat = list(chain.from_iterable(token_lists))
    index = {t: i for i, t in enumerate(dict.fromkeys(flat))}
    ids = np.fromiter(map(index.__getitem__, flat), dtype=np.int64, count=len(flat))
    return ids, lengths


def sample_indices(n_sentences: int, sample: int | None, seed: int = 0) -> np.ndarray:
    """Indices of the hypotheses scored: all (``sample=None``) or ``min(sample, n)`` drawn without
    replacement with ``numpy.random.default_rng(seed)``, in ascending order."""
    if sample is None:
        return np.arange(n_sentences)
    if isinstance(sample, bool) or not isinstance(sample, (int, np.integer)) or sample < 1:
        raise ValueError(f"sample must be a positive integer or None, got {sample!r}")
    if sample >= n_sentences:
        return np.arange(n_sentences)
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(n_sentences, size=int(sample), replace=False))


def closest_other_length(
    lengths: np.ndarray, codes: np.ndarray, present: np.ndarray, held: np.ndarray, base: int
) -> np.ndarray:
    """nltk's closest reference length of each sentence among the *other* sentences of its group
    (shorter wins a tie), from the histogram of (group, length): ``present``, the sorted distinct
    codes group * ``base`` + length; ``held``, how many sentences have each; ``codes``, each
    sentence's own code. Another sentence of the same length is at distance 0."""
    at = np.searchsorted(present, codes)  # present[at] == codes
    group_base = codes - lengths
    lower = present[np.maximum(at - 1, 0)] - group_base
    upper = present[np.minimum(at + 1, present.size - 1)] - group_base
    has_lower = (at > 0) & (lower >= 0)
    has_upper = (at + 1 < present.size) & (upper < base)
    use_lower = has_lower & (~has_upper | (lengths - lower <= upper - lengths))
    return np.where(held[at] >= 2, lengths, np.where(use_lower, lower, upper))


def _closest_other_lengths(
    lengths: np.ndarray, group: np.ndarray, include_self: bool
) -> np.ndarray:
    """:func:`closest_other_length` of every sentence against the other sentences of its group."""
    if include_self or lengths.size == 0:
        return lengths.copy()  # the hypothesis itself is a reference at distance 0
    base = int(lengths.max()) + 1
    codes = group * base + lengths
    present, held = unique_counts(codes)
    return closest_other_length(lengths, codes, present, held, base)


# Sorted arrays are processed in slices of about this many elements (cut at n-gram boundaries):
# the temporaries of a slice stay in cache and are recycled by malloc, where whole-corpus
# temporaries (120 MB each at 1M sentences) cost a fresh mmap and page faults every time.
_CHUNK = 1 << 19
# Keys are packed with their index into int64 values below 2**_PACK_BITS (room for key + 1).
_PACK_BITS = 62


class _Sorted:
    """Keys sorted with ties in input order (hence by position, hence by sentence), read back in
    slices as (keys, original indices)."""

    def __init__(self, key: np.ndarray):
        m = key.size
        self.size = m
        # either `packed` is set, or `keys` and `order` hold the sorted keys and permutation
        self.packed: np.ndarray | None = None
        self.keys = self.order = np.empty(0, np.int64)
        self.bits = max(1, (m - 1).bit_length())
        if m and int(key.max()) < (1 << (_PACK_BITS - self.bits)):
            # pack the index into the low bits: a plain value sort (SIMD, several times faster
            # than argsort) then yields both the sorted keys and the permutation
            packed = key << self.bits
            for a in range(0, m, _CHUNK):  # the indices slice by slice: no array of all of them
                packed[a : a + _CHUNK] |= np.arange(a, min(a + _CHUNK, m), dtype=np.int64)
            packed.sort()
            self.packed = packed
        else:  # keys too large to pack: stable argsort
            self.order = np.argsort(key, kind="stable")
            self.keys = key[self.order]

    def first_of(self, i: int) -> int:
        """Index of the first element whose key equals the key at i."""
        if self.packed is not None:
            k = int(self.packed[i]) >> self.bits
            return int(np.searchsorted(self.packed, k << self.bits, side="left"))
        return int(np.searchsorted(self.keys, self.keys[i], side="left"))

    def after_run(self, i: int) -> int:
        """Index just past the run of elements whose key equals the key at i."""
        if self.packed is not None:
            k = int(self.packed[i]) >> self.bits
            return int(np.searchsorted(self.packed, (k + 1) << self.bits, side="left"))
        return int(np.searchsorted(self.keys, self.keys[i], side="right"))

    def chunks(self, step: int):
        """Slices [a, b) of about ``step`` elements that never split a run of equal keys."""
        a = 0
        while a < self.size:
            b = a + step
            if b >= self.size:
                b = self.size
            else:
                b = self.first_of(b)
                if b <= a:  # one run longer than the step
                    b = self.after_run(a)
            yield a, b
            a = b

    def read(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        if self.packed is not None:
            v = self.packed[a:b]
            return v >> self.bits, v & ((1 << self.bits) - 1)
        return self.keys[a:b], self.order[a:b]


def _clipped_matches(ids, lengths, group, n_orders, include_self):
    """(N, n_orders) clipped match counts of every sentence against the others of its group."""
    N = lengths.size
    P = ids.size
    orders = np.arange(1, n_orders + 1)
    if include_self:
        # the hypothesis is one of its references, so every n-gram is clipped by a count >= its
        # own: all of its n-grams match
        return np.maximum(0, lengths[:, None] - orders[None, :] + 1)
    num = np.zeros((N, n_orders), dtype=np.int64)
    if P == 0:
        return num
    # positions, sentences and ranks are int32 when they fit: a quarter of the memory of a
    # large corpus goes to these arrays
    sent_dtype = np.int32 if N < 2**31 else np.int64
    pos_dtype = np.int32 if P < 2**31 else np.int64
    sent = np.repeat(np.arange(N, dtype=sent_dtype), lengths)  # sentence of each token
    # tokens from each position to the end of its sentence: order n is valid where rem >= n
    pos = np.arange(P, dtype=pos_dtype)
    rem = np.repeat(np.cumsum(lengths), lengths)
    rem -= pos
    if int(lengths.max()) < 2**15:
        rem = rem.astype(np.int16)
    vocab = int(ids.max()) + 1
    key = ids if group is None else group[sent] * vocab + ids
    rank = None
    for n in range(1, n_orders + 1):
        if n > 1:
            # an n-gram can only match another sentence if its first n-1 tokens do: positions
            # whose (n-1)-gram is in one sentence only are dropped (rank -1) - exact, and most
            # of the work at higher orders on varied text
            keep = (rank >= 0) & (rem >= n)
            # one array at a time, so that each old one goes before the next new one is made
            pos = pos[keep]
            rem = rem[keep]
            sent = sent[keep]
            rank = rank[keep]
            del keep
            if pos.size == 0:
                break
            # n-gram = (dense rank of its first n-1 tokens, last token): exact and compact
            key = np.multiply(rank, vocab, dtype=np.int64)
            for a in range(0, key.size, _CHUNK):
                key[a : a + _CHUNK] += ids[pos[a : a + _CHUNK] + (n - 1)]
        srt = _Sorted(key)
        del key
        last = n == n_orders
        if not last:
            rank = np.empty(srt.size, dtype=pos_dtype)
        n_keys = 0  # dense rank offset of the current slice
        for a, b in srt.chunks(_CHUNK):
            sent_s, clip, ranks = _slice_stats(srt, a, b, sent, not last)
            if clip.size:
                # summed slice by slice: the hits of a whole order would take ~150 MB per
                # million sentences (integer sums in float64 are exact below 2**53)
                num[:, n - 1] += np.bincount(sent_s, weights=clip, minlength=N).astype(np.int64)
            if not last:
                local, order, distinct = ranks
                local[local >= 0] += n_keys
                rank[order] = local
                n_keys += distinct
        del srt
    return num


def _slice_stats(srt: _Sorted, a: int, b: int, sent: np.ndarray, want_rank: bool):
    """Clipped matches found in sorted slice [a, b) (which holds whole n-gram runs).

    Returns (sentences, clipped counts) of the pairs with a non-zero clipped count, and, when
    ``want_rank``, (local dense rank per element or -1 for n-grams of a single sentence, original
    indices, number of distinct n-grams in the slice).
    """
    ks, order = srt.read(a, b)
    ss = sent[order]
    m = ks.size
    key_start = np.empty(m, dtype=bool)
    key_start[0] = True
    np.not_equal(ks[1:], ks[:-1], out=key_start[1:])
    del ks
    pair_start = key_start.copy()
    pair_start[1:] |= ss[1:] != ss[:-1]
    # runs of equal (n-gram, sentence) = pairs, with the n-gram's count in that sentence
    pstart = np.flatnonzero(pair_start)
    cnt = np.diff(pstart, append=m)
    psent = ss[pstart]
    # runs of equal n-gram among the pairs; n-grams of one sentence only match nothing
    gstart = np.flatnonzero(key_start[pstart])
    gsize = np.diff(gstart, append=pstart.size)
    multi = gsize >= 2
    shared = np.repeat(multi, gsize)
    c, sp = cnt[shared], psent[shared]
    gs = gsize[multi]
    if c.size:
        gst = np.cumsum(gs) - gs
        gid = np.repeat(np.arange(gs.size), gs)
        m1 = np.maximum.reduceat(c, gst)[gid]
        is_max = c == m1
        n_max = np.add.reduceat(is_max.astype(np.int32), gst)[gid]
        m2 = np.maximum.reduceat(np.where(is_max, 0, c), gst)[gid]
        # the single holder of the max sees the second largest; everyone else sees the max
        clipped = np.minimum(c, np.where(is_max & (n_max == 1), m2, m1))
        nz = clipped > 0
        hits = (sp[nz], clipped[nz])
    else:
        hits = (sp, c)
    if not want_rank:
        return hits[0], hits[1], None
    el_rank = np.cumsum(key_start, dtype=np.int64) - 1
    el_rank[~np.repeat(shared, cnt)] = -1
    return hits[0], hits[1], (el_rank, order, int(gstart.size))


def bleu_orders(max_n: int, smoothing: str) -> int:
    """The n-gram orders whose matches BLEU-``max_n`` reads: method5/method7 use the 5-gram
    precision whatever max_n is (nltk)."""
    return max(max_n, 5) if smoothing in ("method5", "method7") else max_n


def bleu_of_matches(
    num: np.ndarray,
    lengths: np.ndarray,
    ref: np.ndarray,
    weights: Sequence[float],
    smoothing: str,
) -> np.ndarray:
    """nltk ``sentence_bleu`` of each sentence from its clipped matches ``num`` (one column per
    order, :func:`bleu_orders` of them), its length and its closest reference length, however the
    matches were counted (in one pass, or against a merged state's table)."""
    orders = np.arange(1, num.shape[1] + 1)
    den = np.maximum(1, lengths[:, None] - orders[None, :] + 1)  # nltk: max(1, #n-grams)
    n = len(weights)
    p5 = (num[:, 4], den[:, 4]) if num.shape[1] >= 5 else None
    return bleu_from_counts(num[:, :n], den[:, :n], lengths, ref, weights, smoothing, p5=p5)


def self_bleu_signature(
    max_n: int,
    smoothing: str,
    include_self: bool,
    signature_keys: dict[str, Any],
    sample: int | None = None,
    seed: int = 0,
) -> str:
    """Every choice that changes a Self-BLEU figure, however it was scored (in one pass, or in two
    over a merged state); ``signature_keys``: the tokenizer's and the setting."""
    return make_signature(
        "self-bleu",
        n=max_n,
        smooth=smoothing,
        sample=sample,
        seed=seed if sample is not None else None,
        self=True if include_self else None,
        **signature_keys,
    )


def self_bleu_ids(
    ids: np.ndarray,
    lengths: np.ndarray,
    group: np.ndarray | None = None,
    max_n: int = 4,
    smoothing: str | int | None = DEFAULT_SMOOTHING,
    hypotheses: np.ndarray | None = None,
    include_self: bool = False,
    weights: Sequence[float] | None = None,
) -> np.ndarray:
    """Per-sentence Self-BLEU from encoded input.

    ids: flat int64 token ids of all sentences; lengths: tokens per sentence; group: the group
    (set) of each sentence, references are the other sentences of the same group (None = one
    group); hypotheses: indices of the sentences to score (None = all).
    Returns the scores of ``hypotheses`` in their order.
    """
    ids = np.asarray(ids, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    N = lengths.size
    if int(lengths.sum()) != ids.size:
        raise ValueError("lengths do not add up to the number of ids")
    if group is None:
        group_arr = np.zeros(N, dtype=np.int64)
    else:
        group_arr = np.asarray(group, dtype=np.int64)
        if group_arr.shape != (N,):
            raise ValueError("group needs one entry per sentence")
        if N and group_arr.min() < 0:
            raise ValueError("group ids must be >= 0")
    need = 1 if include_self else 2
    sizes = np.bincount(group_arr, minlength=1) if N else np.zeros(1, dtype=np.int64)
    present = sizes[sizes > 0]
    if N == 0 or present.min() < need:
        what = "a corpus" if group is None else "every set"
        raise ValueError(
            f"Self-BLEU needs {what} of at least {need} sentence{'s' if need > 1 else ''}"
            + ("" if include_self else " (each sentence is scored against the others)")
            + f"; got {int(present.min()) if present.size else 0}"
        )
    n, weights = resolve_weights(None if weights is not None else max_n, weights)
    smoothing = resolve_smoothing(smoothing)
    num = _clipped_matches(
        ids, lengths, None if group is None else group_arr, bleu_orders(n, smoothing), include_self
    )
    ref = _closest_other_lengths(lengths, group_arr, include_self)
    hyp = np.arange(N) if hypotheses is None else np.asarray(hypotheses, dtype=np.int64)
    return bleu_of_matches(num[hyp], lengths[hyp], ref[hyp], weights, smoothing)


def self_bleu_tokens(
    token_lists: Sequence[Sequence[Hashable]],
    max_n: int = 4,
    smoothing: str | int | None = DEFAULT_SMOOTHING,
    sample: int | None = None,
    seed: int = 0,
    include_self: bool = False,
) -> tuple[float, np.ndarray]:
    """Self-BLEU of tokenized sentences: (mean, per-sentence scores).

    Every sentence (or, with ``sample=K``, K sentences drawn with ``seed``, see ``sample_indices``)
    is scored with nltk ``sentence_bleu`` against all *other* sentences; the result equals that
    loop to ~1e-15. ``include_self=True`` is the Texygen variant that leaves the hypothesis among
    its own references (then a single sentence is allowed; otherwise at least 2 are needed).
    ``per_sentence[j]`` belongs to sentence ``sample_indices(len(token_lists), sample, seed)[j]``.
    """
    ids, lengths = _encode(token_lists)
    hyp = sample_indices(lengths.size, sample, seed) if lengths.size else None
    scores = self_bleu_ids(ids, lengths, None, max_n, smoothing, hyp, include_self)
    return float(scores.mean()), scores


# --------------------------------------------------------------------------------------------
# user-facing metric (tokenizer, settings, Score with signature)


def self_bleu(
    texts,
    max_n: int = 4,
    smoothing: str | int = DEFAULT_SMOOTHING,
    tokenizer=DEFAULT_TOKENIZER,
    lowercase: bool = False,
    sample: int | None = None,
    seed: int = 0,
    include_self: bool = False,
    setting: str | None = None,
):
    """Self-BLEU of a corpus (list of str) or of each set (list of lists of str, then the mean).

    Lower is more diverse. ``items`` holds the per-sentence scores in the corpus setting (of the
    sampled sentences, listed in ``details["hypotheses"]``, when ``sample`` is given) and the
    per-set means in the sets setting (per-sentence scores in ``details["per_sentence"]``).
    Options that change the number are in the signature: ``n``, ``smooth``, ``sample``/``seed``
    (Texygen/cotk score K random hypotheses against all others), ``self:yes`` (the Texygen
    variant that keeps the hypothesis among its references), tokenizer, lower-casing, setting.

    >>> self_bleu(["the cat sat", "the cat sat", "a dog ran"], max_n=2).signature.split("|diveval")[0]
    'self-bleu|n:2|smooth:method1|tok:whitespace|lc:no|setting:corpus'
    """
    try:
        n, _ = resolve_weights(max_n, None)
        smooth = resolve_smoothing(smoothing)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    prep = prepare(texts, tokenizer, lowercase, setting)
    tids = prep.tids
    lengths = tids.lengths
    need = 1 if include_self else 2
    keys = prep.signature_keys()
    if prep.setting == CORPUS:
        if lengths.size < need:
            raise InputError(
                f"Self-BLEU needs at least {need} responses in the corpus (each is scored "
                f"against the others), got {lengths.size}"
            )
        try:
            hyp = sample_indices(lengths.size, sample, seed)
        except ValueError as exc:
            raise InputError(str(exc)) from None
        per = self_bleu_ids(tids.ids, lengths, None, n, smooth, hyp, include_self)
        details = {"hypotheses": hyp} if sample is not None else {}
        signature = self_bleu_signature(n, smooth, include_self, keys, sample, seed)
        return Score("self-bleu", float(per.mean()), signature, CORPUS, per, details)
    if sample is not None:
        raise InputError(
            "sample= applies to the corpus setting (one list of responses), not to sets"
        )
    sizes = np.bincount(prep.set_index, minlength=prep.n_groups)
    small = np.flatnonzero(sizes < need)
    if small.size:
        raise InputError(
            f"Self-BLEU needs at least {need} responses per set; set {int(small[0])} has "
            f"{int(sizes[small[0]])} ({small.size} such set{'s' if small.size > 1 else ''})"
        )
    # all sets in one pass: the set id is part of every n-gram key, references stay inside a set
    per = self_bleu_ids(tids.ids, lengths, prep.set_index, n, smooth, None, include_self)
    per_set = np.bincount(prep.set_index, weights=per, minlength=prep.n_groups) / sizes
    signature = self_bleu_signature(n, smooth, include_self, keys)
    return Score(
        "self-bleu", float(per_set.mean()), signature, SETS, per_set, {"per_sentence": per}
    )
