"""The GEM benchmark's lexical measures (Gehrmann et al. 2021, GEM-metrics' ``ngrams.py`` and
``msttr.py``) and intra-distinct.

All of them count the tokens of the run's tokenizer (``whitespace`` by default), like Distinct-n.
GEM-metrics itself lower-cases nltk ``word_tokenize`` tokens: give ``lowercase=True`` (CLI
``--lowercase``) and a tokenizer that splits punctuation off (``13a``) to come close to its
numbers. Its "-nopunct" variants drop every token that is one character of Python's
``string.punctuation`` (a token such as ``...`` or ``don't`` stays); the rows named ``*-nopunct``
do the same, and their signature says ``punct:no``.

* n-grams are counted inside each response, never across two (GEM's ``nltk.ngrams`` per
  instance), over the corpus or over each set (then the mean over sets). Logarithms are base 2.
* entropy-n: the Shannon entropy of the n-gram distribution.
* cond-entropy-n: GEM's "language-model style" conditional entropy of the last word of an n-gram
  given the n-1 before it. As GEM computes it, the distribution of the n-1 words before counts
  every (n-1)-gram, also those that end a response and so start no n-gram: on short responses
  the value can be negative (one response "a b" scores -1).
* unique-n: the number of distinct n-grams seen exactly once (a count, so it grows with the
  amount of text; compare samples of equal size).
* msttr-100: the responses joined into one token sequence (in the order given; ``join="sorted"``:
  in code-point order), cut into segments of 100 tokens, the last partial segment dropped; the
  mean type/token ratio of the segments (Johnson 1944; GEM's MSTTR-100).
* GEM's fifth lexical measure, local recall against references, is ``ref-local-recall``
  (:mod:`diveval.reference.local_recall`).
* intra-distinct-n: the mean over responses of each response's own Distinct-n (the "intra-dist"
  of dialogue papers, e.g. Gu et al. 2019), unlike ``distinct-n``, which pools the n-grams of the
  whole corpus or set. GEM's own distinct-n is diveval's ``distinct-n`` (pooled).

Splitting (shards, ``--stream-memory`` streaming, Ray): the corpus setting of entropy-n, cond-entropy-n,
unique-n and intra-distinct-n merges from states (:mod:`diveval.lexical.gem_state`); msttr-100 has
none (its segments run across any cut of the joined sequence). The rows of one run share their
n-gram counts (``context``).

Undefined cases (rules):

* no n-gram of order n in the corpus or a set: entropy-n, cond-entropy-n and unique-n are 0.0
  (GEM's sums over nothing), counted in ``details["empty_sets"]``;
* msttr-100 of a sequence shorter than one segment: GEM returns NaN; diveval shrinks the segment
  to the sequence, i.e. its type/token ratio (MATTR's rule here), counts it in
  ``details["short_sets"]`` and warns; an empty sequence is 0.0;
* intra-distinct-n: responses with no n-gram of order n (fewer than n tokens) are left out of the
  mean and counted in ``details["empty_responses"]``; a corpus or set with none left is 0.0
  (Distinct-n's rule), counted in ``details["empty_sets"]``.
"""

from __future__ import annotations

import dataclasses
import string
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..context import RunContext
from ..errors import InputError
from ..results import CORPUS, SETS, Score, make_signature
from ..text.ngrams import (
    TokenIds,
    distinct_per_group,
    group_code_keys,
    ngram_codes,
)
from ..text.prepared import Prepared, TextOptions, prepare
from .counts import lexical_score
from .groups import check_join, values_score
from .richness import joined_ids

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

#: The tokens GEM's "-nopunct" variants drop: one character of ``string.punctuation``.
PUNCTUATION = frozenset(string.punctuation)


def is_punctuation(token: str) -> bool:
    """Whether GEM's "-nopunct" token lists drop ``token``: one ASCII punctuation character."""
    return token in PUNCTUATION


def drop_punctuation(tids: TokenIds) -> TokenIds:
    """The same texts without their punctuation tokens (the vocabulary is kept: ids stay valid)."""
    if not tids.vocab:
        return tids
    punct = np.fromiter(map(is_punctuation, tids.vocab), dtype=bool, count=len(tids.vocab))
    if not punct.any():
        return tids
    keep = ~punct[tids.ids]
    kept_before = np.zeros(tids.ids.size + 1, dtype=np.int64)
    np.cumsum(keep, out=kept_before[1:])
    return TokenIds(tids.ids[keep], kept_before[tids.offsets], tids.vocab)


def without_punctuation(prep: Prepared) -> Prepared:
    """``prep`` without its punctuation tokens."""
    return dataclasses.replace(prep, tids=drop_punctuation(prep.tids))


class GemOptions(TextOptions, total=False):
    """:class:`~diveval.text.prepared.TextOptions` and ``keep_punctuation`` (default True; False
    drops GEM's punctuation tokens, signature ``punct:no``)."""

    keep_punctuation: bool


def _prepared(texts: Any, options: GemOptions, context: RunContext | None) -> tuple[Prepared, bool]:
    """(the run's tokens, without punctuation tokens where asked (filtered once per run); whether
    punctuation was kept)."""
    text = options.copy()
    keep = bool(text.pop("keep_punctuation", True))
    prep = prepare(texts, **cast(TextOptions, text))
    if keep:
        return prep, keep
    if context is None:
        return without_punctuation(prep), keep
    # the memo holds ``prep`` itself, so its id cannot be reused by another input in this run
    key = ("gem-nopunct", id(prep))
    return context.memo(key, lambda: (prep, without_punctuation(prep)))[1], keep


@dataclasses.dataclass(frozen=True)
class _Grams:
    """The n-grams of order n of every group: one row per distinct (group, n-gram)."""

    owner: np.ndarray  # the group of each distinct n-gram
    counts: np.ndarray  # its occurrences in that group
    inverse: np.ndarray  # for each n-gram position, the index of its distinct n-gram
    starts: np.ndarray  # the positions
    totals: np.ndarray  # n-grams per group


def _grams(prep: Prepared, n: int) -> _Grams:
    tids, n_groups = prep.tids, prep.n_groups
    codes, starts, exact = ngram_codes(tids, n)
    # each token's text by a repeat (linear; a search per position was the slowest step here)
    text_of_token = np.repeat(np.arange(tids.n_texts, dtype=np.int64), tids.lengths)
    group = prep.group_of_texts[text_of_token[starts]]
    keys = group_code_keys(codes, exact, group, n_groups)
    # one argsort gives the runs of equal keys and each position's run (a sort plus a search,
    # as factorize does, was measured 9x slower on 1M codes: the search is random access)
    order = np.argsort(keys)
    first = np.ones(keys.size, dtype=bool)
    if keys.size:
        np.not_equal(keys[order[1:]], keys[order[:-1]], out=first[1:])
    inverse = np.empty(keys.size, dtype=np.int64)
    inverse[order] = np.cumsum(first) - 1
    run_starts = np.flatnonzero(first)
    counts = np.diff(np.append(run_starts, keys.size)).astype(np.int64)
    owner = group[order[run_starts]]
    totals = np.bincount(group, minlength=n_groups).astype(np.int64)
    return _Grams(owner, counts, inverse, starts, totals)


def _shared_grams(prep: Prepared, n: int, context: RunContext | None) -> _Grams:
    """The n-grams of ``prep``, counted once per run for all the rows that read them."""
    if context is None:
        return _grams(prep, n)
    # the memo holds ``prep`` itself, so its id cannot be reused by another input in this run
    return context.memo(("gem-grams", id(prep), n), lambda: (prep, _grams(prep, n)))[1]


def _per_group(weights: np.ndarray, owner: np.ndarray, n_groups: int) -> np.ndarray:
    return np.bincount(owner, weights=weights, minlength=n_groups).astype(float)


def _check_n(n: int, least: int = 1) -> None:
    if not isinstance(n, (int, np.integer)) or n < least:
        raise InputError(f"n must be an integer of at least {least}, got {n!r}")


@dataclasses.dataclass(frozen=True)
class GemCounts:
    """What GEM's n-gram measures read: one entry per distinct (group, n-gram), however counted
    (one process's exact codes, or a state's merged keys)."""

    owner: np.ndarray  # the group of each distinct n-gram
    counts: np.ndarray  # its occurrences in that group
    totals: np.ndarray  # n-grams per group
    # cond-entropy-n: the occurrences of each n-gram's first n-1 words in its group, and the
    # (n-1)-grams per group
    prefix_counts: np.ndarray | None = None
    prefix_totals: np.ndarray | None = None


def gem_ngram_score(
    metric: str,
    n: int,
    keep_punctuation: bool,
    stats: GemCounts,
    setting: str,
    signature_keys: dict[str, Any],
) -> Score:
    """The Score of ``entropy``, ``cond-entropy`` or ``unique`` (order n) from their counts, per
    group (the mean over sets); ``signature_keys``: the tokenizer's and the setting."""
    n_groups = stats.totals.size
    details: dict[str, Any] = {"empty_sets": int((stats.totals == 0).sum())}
    if metric == "unique":
        values = _per_group((stats.counts == 1).astype(float), stats.owner, n_groups)
        distinct = np.bincount(stats.owner, minlength=n_groups)
        details = {
            "distinct_ngrams": distinct if setting != CORPUS else int(stats.counts.size),
            **details,
        }
    elif stats.counts.size == 0:
        values = np.zeros(n_groups)
    else:
        p = stats.counts / stats.totals[stats.owner]
        if metric == "entropy":
            terms = p * np.log2(p)
        else:  # cond-entropy
            assert stats.prefix_counts is not None and stats.prefix_totals is not None
            q = stats.prefix_counts / stats.prefix_totals[stats.owner]
            terms = p * np.log2(p / q)
        values = -_per_group(terms, stats.owner, n_groups)
    sig = make_signature(metric, n=n, punct=bool(keep_punctuation), **signature_keys)
    return values_score(metric, values + 0.0, setting, sig, details)


def _gem_counts(metric: str, prep: Prepared, n: int, context: RunContext | None) -> GemCounts:
    g = _shared_grams(prep, n, context)
    if metric != "cond-entropy" or not g.counts.size:
        return GemCounts(g.owner, g.counts, g.totals)
    h = _shared_grams(prep, n - 1, context)
    # one position of each distinct n-gram; its prefix is the (n-1)-gram at the same position
    first = np.empty(g.counts.size, dtype=np.int64)
    first[g.inverse] = np.arange(g.inverse.size)
    index_at = np.empty(prep.tids.n_tokens, dtype=np.int64)  # position -> its (n-1)-gram
    index_at[h.starts] = np.arange(h.starts.size)
    at = index_at[g.starts[first]]
    return GemCounts(g.owner, g.counts, g.totals, h.counts[h.inverse[at]], h.totals)


def _gem_measure(
    metric: str, texts: Any, n: int, context: RunContext | None, options: GemOptions
) -> Score:
    _check_n(n, 2 if metric == "cond-entropy" else 1)
    prep, keep = _prepared(texts, options, context)
    stats = _gem_counts(metric, prep, n, context)
    return gem_ngram_score(metric, n, keep, stats, prep.setting, prep.signature_keys())


def entropy(
    texts: Any, n: int = 1, context: RunContext | None = None, **options: Unpack[GemOptions]
) -> Score:
    """Shannon entropy (bits) of the n-gram distribution of the corpus or of each set (GEM's
    entropy-n), then the mean over sets. Higher = more diverse.

    entropy-n = -sum_g (c(g) / N) log2(c(g) / N)

    >>> entropy(["a b a c"], n=1).value
    1.5
    """
    return _gem_measure("entropy", texts, n, context, options)


def cond_entropy(
    texts: Any, n: int = 2, context: RunContext | None = None, **options: Unpack[GemOptions]
) -> Score:
    """GEM's conditional entropy (bits) of the n-th word given the n-1 before it, over the corpus
    or each set, then the mean over sets. Higher = more diverse.

    cond-entropy-n = -sum_g (c(g) / N_n) log2((c(g) / N_n) / (c(g[:-1]) / N_(n-1)))
    """
    return _gem_measure("cond-entropy", texts, n, context, options)


def unique_ngrams(
    texts: Any, n: int = 1, context: RunContext | None = None, **options: Unpack[GemOptions]
) -> Score:
    """GEM's unique-n: the number of n-grams that occur exactly once in the corpus or the set
    (then the mean over sets). A count: it grows with the amount of text. Higher = more diverse.

    unique-n = |{g : c(g) = 1}|

    >>> unique_ngrams(["a b a c"], n=1).value
    2.0
    """
    return _gem_measure("unique", texts, n, context, options)


def msttr_of_ids(ids: np.ndarray, window: int = 100) -> tuple[float, int]:
    """(MSTTR, number of full segments) of one token sequence; fewer tokens than ``window``:
    the type/token ratio of the whole sequence and 0 segments (0.0 when empty)."""
    segments = ids.size // window
    if segments == 0:
        return (np.unique(ids).size / ids.size if ids.size else 0.0), 0
    rows = np.sort(ids[: segments * window].reshape(segments, window), axis=1)
    types = 1 + np.count_nonzero(rows[:, 1:] != rows[:, :-1], axis=1)
    return float(np.mean(types / window)), segments


def msttr(
    texts: Any,
    window: int = 100,
    join: str = "given",
    context: RunContext | None = None,
    **options: Unpack[GemOptions],
) -> Score:
    """Mean segmental type/token ratio (GEM's MSTTR-100): the responses joined as given
    (``join="sorted"``: in code-point order), segments of ``window`` tokens, the last partial one
    dropped, the mean of their type/token ratios. Higher = more diverse.

    MSTTR = mean over full segments s of |types(s)| / window
    """
    if not isinstance(window, (int, np.integer)) or window < 1:
        raise InputError(f"MSTTR's segment must be a positive number of tokens, got {window!r}")
    check_join(join)
    prep, keep_punctuation = _prepared(texts, options, context)
    results = [msttr_of_ids(ids, window) for ids in joined_ids(prep, join)]
    values = np.array([v for v, _ in results])
    segments = [s for _, s in results]
    short = sum(1 for s in segments if s == 0)
    details: dict[str, Any] = {
        "segments": segments[0] if prep.setting == CORPUS else np.array(segments),
        "short_sets": short,
    }
    if short:
        where = (
            f"{short} of {prep.n_groups} sets have" if prep.setting == SETS else "the corpus has"
        )
        details["warnings"] = [
            f"{where} fewer than {window} tokens, no full MSTTR segment: scored by the type/token"
            " ratio of all their tokens (GEM-metrics gives NaN)"
        ]
    sig = {"window": window, "punct": bool(keep_punctuation), "join": join}
    return lexical_score("msttr", values, prep, sig, details)


def per_response_distinct(tids: TokenIds, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(each response's own Distinct-n, whether it has an n-gram of order n: 0.0 where not)."""
    m = tids.n_texts
    uniq, total = distinct_per_group(tids, n, np.arange(m, dtype=np.int64), m)
    has = total > 0
    return np.divide(uniq, total, out=np.zeros(m), where=has), has


def intra_distinct_score(
    n: int,
    sums: np.ndarray,
    counted: np.ndarray,
    empty_responses: int,
    setting: str,
    signature_keys: dict[str, Any],
) -> Score:
    """The Score of intra-distinct-n from, per group, the sum of its responses' Distinct-n and
    the number of responses with an n-gram (``empty_responses``: those without, in all)."""
    values = np.divide(sums, counted, out=np.zeros(sums.size), where=counted > 0)
    details = {"empty_responses": int(empty_responses), "empty_sets": int((counted == 0).sum())}
    sig = make_signature("intra-distinct", n=n, **signature_keys)
    return values_score("intra-distinct", values, setting, sig, details)


def intra_distinct(texts: Any, n: int = 1, **text: Unpack[TextOptions]) -> Score:
    """Intra-distinct-n: the mean over responses of each response's own Distinct-n (its unique
    n-grams / its n-grams), over the corpus or each set (then the mean over sets). Responses with
    no n-gram of order n are left out of the mean (``details["empty_responses"]``). Higher = more
    diverse.

    intra-distinct-n = mean over responses r with an n-gram of distinct_n(r) / total_n(r)

    >>> intra_distinct(["a a", "a b"], n=1).value
    0.75
    """
    _check_n(n)
    prep = prepare(texts, **text)
    ratio, has = per_response_distinct(prep.tids, n)
    group = prep.group_of_texts[has]
    sums = np.bincount(group, weights=ratio[has], minlength=prep.n_groups)
    counted = np.bincount(group, minlength=prep.n_groups)
    empty = int((~has).sum())
    return intra_distinct_score(n, sums, counted, empty, prep.setting, prep.signature_keys())
