"""Self-repetition (Salkar et al. 2022) and the n-gram diversity score, as the ``diversity``
package (Shaib et al., 0.3.1) defines them, on diveval's shared token ids (numpy, no Python loop
over n-grams).

Self-repetition: for each document d, S(d) = sum over the *distinct* n-grams g of d (n = 4) of
the number of *other* documents that contain g; the score is the mean over documents of
log(S(d) + 1). Higher = more repetitive (direction "lower"). A document shorter than n has S = 0
and still counts in the mean, as in the package.

N-gram diversity score: the documents are joined into ONE token sequence (n-grams cross the
boundaries between documents) and the score is the SUM over n = 1..4 of unique n-grams / all
n-grams of that sequence, so it ranges over (0, 4], not [0, 1]. diveval's Distinct-n differs in
both ways: it counts only n-grams inside one response, and it is one order (avg-distinct is the
mean of orders 1..5, not the sum). The documents are joined in the order given, as the package
does (``join="given"``, the default); the boundary n-grams depend on that order, and
``join="sorted"`` joins them in code-point order instead (signature ``join:given`` /
``join:sorted``). Differences from the package: tokens come from diveval's tokenizer
(``whitespace`` = ``str.split()``, the default), where the package splits the joined string on
single spaces, so two spaces in a row give it an empty token and a tab or newline stays inside a
token: ``['a  b c', 'a b c']`` scores 2.85 with ``whitespace`` and 3.405 in the package.
``tokenizer="space"`` (``--tokenizer space``) splits as the package does and reproduces it on any
text; the two tokenizers agree on text with single spaces and no other white space. Also: an
order with no n-gram contributes 0 where the package divides by zero; no rounding to 3
decimals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..results import Score
from ..text.ngrams import NgramCounts, TokenIds, factorize, ngram_codes, text_of_positions
from ..text.prepared import Prepared, TextOptions, prepare
from .counts import lexical_score
from .groups import check_join
from .richness import joined_ids

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it


def _per_group_mean(values: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    sizes = np.bincount(group, minlength=n_groups)
    sums = np.bincount(group, weights=values, minlength=n_groups)
    out = np.zeros(n_groups)
    np.divide(sums, sizes, out=out, where=sizes > 0)
    return out


def self_repetition_per_text(prep: Prepared, n: int = 4) -> np.ndarray:
    """log(S(d) + 1) of every text; other documents are those of the same set (sets setting)."""
    tids = prep.tids
    group = prep.group_of_texts
    codes, starts, _ = ngram_codes(tids, n)
    out = np.zeros(tids.n_texts)
    if codes.size == 0:
        return out
    _, dense = factorize(codes)
    k = int(dense.max()) + 1
    text = text_of_positions(tids, starts)
    # each (text, n-gram) once: the package takes the set of a document's n-grams
    pairs = np.unique(text * k + dense)
    pair_text, pair_gram = pairs // k, pairs % k
    # documents holding each (set, n-gram); minus one: the document itself
    key = group[pair_text] * k + pair_gram
    _, inverse, holders = np.unique(key, return_inverse=True, return_counts=True)
    others = holders[inverse] - 1
    sums = np.bincount(pair_text, weights=others, minlength=tids.n_texts)
    return np.log(sums + 1.0)


def self_repetition(texts: Any, n: int = 4, **text: Unpack[TextOptions]) -> Score:
    """Mean over documents of log(1 + occurrences of their n-grams in other documents)."""
    prep = prepare(texts, **text)
    per_text = self_repetition_per_text(prep, n)
    values = _per_group_mean(per_text, prep.group_of_texts, prep.n_groups)
    return lexical_score("self-repetition", values, prep, {"n": n}, {"per_text": per_text})


def ngram_diversity_of_ids(joined: TokenIds, max_n: int = 4) -> float:
    """Sum over n = 1..max_n of unique / all n-grams of one token sequence."""
    total = 0.0
    for n in range(1, max_n + 1):
        counts = NgramCounts.from_token_ids(joined, n)
        if counts.total:
            total += counts.distinct / counts.total
    return total


def ngram_diversity(
    texts: Any, max_n: int = 4, join: str = "given", **text: Unpack[TextOptions]
) -> Score:
    """The ``diversity`` package's n-gram diversity score: sum over n = 1..max_n of the distinct
    ratio of the documents joined into one sequence, as given (``join="sorted"``: in code-point
    order; see the module's docstring)."""
    check_join(join)
    prep = prepare(texts, **text)
    vocab = prep.tids.vocab
    values = np.array(
        [
            ngram_diversity_of_ids(TokenIds(ids, np.array([0, ids.size]), vocab), max_n)
            for ids in joined_ids(prep, join)
        ]
    )
    sig = {"n": f"1-{max_n}", "sum": "yes", "join": join}
    return lexical_score("ngram-diversity", values, prep, sig)
