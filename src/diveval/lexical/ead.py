"""Expectation-Adjusted Distinct (Liu et al. 2022).

EAD = N / (V * (1 - ((V-1)/V)^C)): the distinct count N divided by its expectation when C tokens
are drawn uniformly from a vocabulary of V, so that, unlike Distinct, it does not fall as
responses get longer. (1 - 1/V)^C is computed as exp(C * log1p(-1/V)) and the difference as
-expm1(...), which stays exact for C up to 1e9 and beyond (no underflow, no 0/0).

EAD-n (n > 1) is the same formula over n-grams: N distinct n-grams, C n-grams, V**n possible
n-grams. This extension is diveval's, documented as such; the paper defines the unigram case.

Rule for empty input: no token (C = 0) gives EAD 0.0, like Distinct.

When N nears or exceeds V (V**n for EAD-n), EAD means little and can exceed 1 (a 5 MB line of
fresh tokens scores 14.7 against BERT's 30522): the Score then carries a warning in
``details["warnings"]`` (the CLI prints it) saying which vocabulary to give instead.

EAD also passes 1 on small sets far from V: the expectation E[N] = V(1 - (1 - 1/V)^C) is below C
for every C >= 2 (uniform draws repeat a token now and then: about C(C-1)/(2V) repeats), so a set
whose C tokens are all distinct has N = C > E[N] and EAD up to about 1 + (C-1)/(2V) (5 distinct
tokens, V = 30522: 1.00007). Such a Score carries a warning too, and ``details["above_one"]``
counts the sets (or the corpus) above 1.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Sequence, Union

import numpy as np

from ..constants import BERT_VOCAB_SIZE
from ..errors import InputError
from ..results import SETS, Score
from ..text.prepared import TextOptions, prepare
from ..text.tokenizers import Tokenizer
from .counts import Counts, Finish, counts_score, prepared_counts

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

Vocab = Union[int, str, Sequence[str]]


def expected_distinct(total: float, vocab_size: float) -> float:
    """E[number of distinct items] after ``total`` uniform draws from ``vocab_size`` items."""
    if total <= 0:
        return 0.0
    if vocab_size <= 1:  # one possible item: the first draw finds it (log1p(-1) is -inf)
        return 1.0
    return vocab_size * -math.expm1(total * math.log1p(-1.0 / vocab_size))


def ead_value(distinct_count: float, total: float, vocab_size: float) -> float:
    """N / E[N]; 0.0 when there is nothing to count."""
    expected = expected_distinct(total, vocab_size)
    return distinct_count / expected if expected > 0 else 0.0


def resolve_vocab_size(vocab: Vocab | None, tokenizer: Tokenizer) -> tuple[int, str]:
    """(V, how V was chosen for the signature). None: the default, BERT's 30522, except for the
    tokenizers of languages written without spaces (zh, ja-mecab, ko-mecab), whose own
    vocabulary is the default (``Tokenizer.ead_default``): as the EAD authors advise, V is the
    vocabulary of the systems compared or of a third-party tokenizer of the language, and
    English BERT's says nothing of Chinese characters or Japanese morphemes."""
    if vocab is None:
        vocab = "tokenizer" if tokenizer.ead_default else BERT_VOCAB_SIZE
    if isinstance(vocab, bool):
        raise InputError("vocab must be an integer, 'tokenizer', or a list of texts")
    if isinstance(vocab, (int, np.integer)):
        if vocab < 1:
            raise InputError(f"vocabulary size must be at least 1, got {vocab}")
        return int(vocab), str(int(vocab))
    if isinstance(vocab, str):
        if vocab != "tokenizer":
            raise InputError(
                f"vocab must be an integer, 'tokenizer' or a list of texts, got {vocab!r}"
            )
        if tokenizer.vocab_size is None:
            raise InputError(
                f"the {tokenizer.name} tokenizer has no fixed vocabulary; "
                "give vocab as an integer or a corpus"
            )
        return tokenizer.vocab_size, f"{tokenizer.name}({tokenizer.vocab_size})"
    texts = list(vocab)
    if not texts or not all(isinstance(t, str) for t in texts):
        raise InputError("a vocabulary corpus must be a non-empty list of texts")
    size = len({tok for toks in tokenizer.tokenize_many(texts) for tok in toks})
    if size == 0:
        raise InputError("the vocabulary corpus has no tokens")
    return size, f"corpus({size})"


def ead_of_counts(vocab_size: tuple[int, str]) -> Finish:
    """EAD's formula over counts (:data:`~diveval.lexical.counts.Finish`) against the vocabulary
    ``vocab_size``, V and how it was chosen (:func:`resolve_vocab_size`): the function form and
    the merged or streamed state finish through it."""
    size, how = vocab_size

    def finish(counts: Counts, n: int, setting: str) -> tuple[np.ndarray, dict, dict]:
        uniq, total = counts(n)
        space = float(size) ** n
        values = np.array([ead_value(u, c, space) for u, c in zip(uniq, total)])
        distinct_max = int(np.max(uniq)) if len(uniq) else 0
        details = ead_details(values, distinct_max, size, setting == SETS, n)
        return values, {"n": n, "V": how}, details

    return finish


def ead(texts: Any, n: int = 1, vocab: Vocab | None = None, **text: Unpack[TextOptions]) -> Score:
    """EAD of a corpus, or of each set then the mean.

    vocab: an integer V (default 30522, BERT's; for the zh, ja-mecab and ko-mecab tokenizers,
    their own vocabulary), ``"tokenizer"`` for the tokenizer's vocabulary size, or a list of
    texts whose distinct tokens (under the same tokenizer) give V.
    """
    prep = prepare(texts, **text)
    finish = ead_of_counts(resolve_vocab_size(vocab, prep.tokenizer))
    counts = prepared_counts(prep, [n])
    return counts_score("ead", finish, n, counts, prep.setting, prep.signature_keys())


def ead_details(values: Any, distinct_max: int, vocab_size: int, sets: bool, n: int) -> dict:
    """EAD's details: the largest distinct count (the corpus's, or the largest set's) and V, the
    count and largest value of the EAD values above 1, and the warnings these call for. The
    figures travel with the Score, so that parts of a run (shards, Ray batches), joined by the
    rule of :func:`diveval.state.join_scores` (``*_max`` by the max, counts added, ``*_size``
    equal), give the whole input's warnings (:func:`joined_warnings`), not one per part."""
    values = np.asarray(values, dtype=float)
    details: dict[str, Any] = {"distinct_max": int(distinct_max), "vocab_size": int(vocab_size)}
    above = int((values > 1.0).sum())
    if above:
        details["above_one"] = above
        details["above_one_max"] = float(values.max())
    warnings = ead_warnings(details, n, sets, values.size)
    if warnings:
        details["warnings"] = warnings
    return details


def ead_warnings(details: dict[str, Any], n: int, sets: bool, count: int | None = None) -> list:
    """The warnings of EAD details: the distinct count nears V (a vocabulary too small); or,
    where that does not already explain it, values above 1. ``count``: how many sets were scored
    (None after a join, where the text then gives the sets above 1 alone)."""
    if "distinct_max" in details:
        warnings = vocabulary_warnings(
            details["distinct_max"], float(details["vocab_size"]) ** n, n
        )
    else:  # shard files written before the figures travelled: their own warnings
        warnings = list(details.get("warnings", []))
    above = details.get("above_one", 0)
    if above and not warnings and "above_one_max" in details:
        what = "tokens" if n == 1 else f"{n}-grams"
        if sets:
            where = f"{above} of {count} sets" if count is not None else f"{above} sets"
            where += f" (at most {details['above_one_max']:.6g})"
        else:
            where = f"the corpus ({details['above_one_max']:.6g})"
        warnings = [
            f"{ABOVE_ONE} {where}: the expected distinct count "
            f"V(1 - (1 - 1/V)^C) of C uniform draws is below C for any C >= 2, so {what} that "
            "(almost) never repeat score above 1, up to about 1 + (C-1)/(2V) when C is far below "
            "V; it means fewer repeats than random draws, not more than maximal diversity"
        ]
    return warnings


ABOVE_ONE = "EAD is above 1 on"


def explained_by_tokens(warning: str) -> str:
    """An above-1 warning, short, for a Score whose tokenizer left a script unsegmented (its
    own warning says so): any other warning as it is."""
    if not warning.startswith(ABOVE_ONE):
        return warning
    head = warning.partition(": ")[0]
    return f"{head}: its tokens are whole runs of text, which hardly repeat (see the warning above)"


def joined_warnings(details: dict[str, Any], n: int, count: int | None = None) -> list[str]:
    """The warnings of joined parts' details, ``count`` sets in all (sets: a corpus is never
    joined, its state merges)."""
    return ead_warnings(details, n, sets=True, count=count)


#: N / V^n at which EAD warns: its expectation E[N] is then far from the many-draws regime the
#: paper's correction assumes, and EAD can pass 1 (values above 1 mean V is too small, not that
#: the text is "more than maximally" diverse).
NEAR_VOCABULARY = 0.5


def vocabulary_warnings(distinct_count: int, space: float, n: int) -> list[str]:
    """A warning when the distinct count nears or exceeds the vocabulary (V**n) it is measured
    against; empty when it does not."""
    if space <= 0 or distinct_count < NEAR_VOCABULARY * space:
        return []
    what = "tokens" if n == 1 else f"{n}-grams"
    return [
        f"{distinct_count} distinct {what} is {distinct_count / space:.0%} of the vocabulary "
        f"size V{'' if n == 1 else f'**{n}'} = {space:.0f}: EAD is only meaningful when V is much "
        "larger than the distinct count, and exceeds 1 past it; give the real vocabulary "
        "(--vocab tokenizer for a tokenizer's, --vocab FILE for a corpus's, or an integer)"
    ]
