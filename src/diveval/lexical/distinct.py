"""Distinct-n (Li et al. 2016), avg-distinct (Tevet & Berant 2021) and EAD-n (Liu et al. 2022,
:mod:`diveval.lexical.ead`): n-gram counts, then one finisher, :func:`ngram_score`, that writes the
value, the details and the signature, however the counts were obtained: the exact codes of one
process (the function forms here), or the hashed keys of a state, merged or streamed
(:mod:`diveval.lexical.ngram_state`).

Distinct-n: unique n-grams / total n-grams, pooled over a corpus or a set.

Rule for empty input: a corpus or set with no n-gram of order n has distinct-n 0.0 (as in
Tevet & Berant's code), and the number of such sets is reported in ``details["empty_sets"]``.
The per-response mean some repositories report is a different metric, offered under its own name,
``intra-distinct-n`` (:func:`diveval.lexical.gem.intra_distinct`).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence, Unpack

import numpy as np

from ..errors import InputError
from ..results import CORPUS, SETS, Score, make_signature
from ..text.prepared import Prepared, TextOptions, prepare
from .counts import ngram_statistics, safe_ratio
from .ead import Vocab, ead_details, ead_value, resolve_vocab_size
from .groups import values_score

#: The metrics :func:`ngram_score` finishes.
NGRAM_METRICS = ("distinct", "avg-distinct", "ead")

#: ``counts(order) -> (distinct n-grams, total n-grams)``: arrays of one element (a corpus) or
#: one per set.
Counts = Callable[[int], tuple[np.ndarray, np.ndarray]]


def ngram_score(
    metric: str,
    n: int,
    counts: Counts,
    setting: str,
    signature_keys: dict[str, Any],
    vocab_size: tuple[int, str] | None = None,
    details_extra: Callable[[int], dict[str, Any]] | None = None,
) -> Score:
    """The Score of ``distinct`` (order n), ``avg-distinct`` (orders 1..n) or ``ead`` (order n;
    ``vocab_size``: V and how it was chosen, :func:`~diveval.lexical.ead.resolve_vocab_size`) from
    ``counts``. ``signature_keys``: the tokenizer's, the setting and any approximation;
    ``details_extra(order)``: details of how the counts were made (a sketch's error bounds)."""
    sig: dict[str, Any] = {"n": n}
    details: dict[str, Any] = {}
    if metric == "avg-distinct":
        per_n = np.vstack([safe_ratio(*counts(k)) for k in range(1, n + 1)])
        values = per_n.mean(axis=0)
        sig["n"] = f"1-{n}"
    elif metric == "distinct":
        uniq, total = counts(n)
        values = safe_ratio(uniq, total)
        sets = setting != CORPUS
        details = {
            "distinct_ngrams": uniq if sets else int(uniq[0]),
            "total_ngrams": total if sets else int(total[0]),
            "empty_sets": int((total == 0).sum()),
        }
    elif metric == "ead" and vocab_size is not None:
        uniq, total = counts(n)
        size, sig["V"] = vocab_size
        space = float(size) ** n
        values = np.array([ead_value(u, c, space) for u, c in zip(uniq, total)])
        distinct_max = int(np.max(uniq)) if len(uniq) else 0
        details = ead_details(values, distinct_max, size, setting == SETS, n)
    else:
        raise InputError(
            f"n-gram counts give distinct, avg-distinct or ead (with V), not {metric!r}"
        )
    if details_extra is not None:
        details.update(details_extra(n))
    signature = make_signature(metric, **sig, **signature_keys)
    return values_score(metric, values, setting, signature, details)


def _counted(prep: Prepared, orders: Sequence[int]) -> Counts:
    return ngram_statistics(prep, orders).__getitem__


def distinct(texts: Any, n: int = 2, **text: Unpack[TextOptions]) -> Score:
    """Distinct-n of a corpus (list of str) or of each set (list of lists of str), then the mean.

    >>> distinct(["a b a b"], n=1).value
    0.5
    """
    prep = prepare(texts, **text)
    counts = _counted(prep, [n])
    return ngram_score("distinct", n, counts, prep.setting, prep.signature_keys())


def avg_distinct(texts: Any, n_max: int = 5, **text: Unpack[TextOptions]) -> Score:
    """Tevet & Berant's averaged distinct-n: the mean of distinct-1..n_max (per set, then mean)."""
    prep = prepare(texts, **text)
    counts = _counted(prep, range(1, n_max + 1))
    return ngram_score("avg-distinct", n_max, counts, prep.setting, prep.signature_keys())


def ead(texts: Any, n: int = 1, vocab: Vocab | None = None, **text: Unpack[TextOptions]) -> Score:
    """EAD of a corpus, or of each set then the mean (:mod:`diveval.lexical.ead`).

    vocab: an integer V (default 30522, BERT's; for the zh, ja-mecab and ko-mecab tokenizers,
    their own vocabulary), ``"tokenizer"`` for the tokenizer's vocabulary size, or a list of
    texts whose distinct tokens (under the same tokenizer) give V.
    """
    prep = prepare(texts, **text)
    size = resolve_vocab_size(vocab, prep.tokenizer)
    counts = _counted(prep, [n])
    return ngram_score("ead", n, counts, prep.setting, prep.signature_keys(), size)
