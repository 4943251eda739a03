"""Lexical features of a pair of answers, for the shipped answer-equivalence judge's head.

Plain Python and the standard library only: the training recipe
(``training/train_answers_judge.py``) loads this file by its path, so the features a judge was
fitted on and the features it is run on are one definition.

Words are rouge-score's tokens without stemming (lower-cased runs of a-z and 0-9), so "4." and
"4" are one word, as NoveltyBench's ``unigram`` judge reads them.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Optional

_WORD = re.compile(r"[a-z0-9]+")

#: NoveltyBench's current code decides pairs of at most 5 words by word overlap, not by its
#: classifier (``short_pair_rule``)
SHORT_WORDS = 5

#: The order of ``pair_features``'s values (the head's weights follow it). ``short_pair`` (1 when
#: the longer answer has at most SHORT_WORDS words) and its product with the cosine let the head
#: judge short answers apart: the benchmark's stored classes were made without the word rule, and
#: merge most short pairs it would split (574 of the 784 pairs it splits in the shared data).
FEATURES = (
    "cosine",
    "unigram_f1",
    "bigram_f1",
    "abs_log_length_ratio",
    "short_pair",
    "short_pair_cosine",
)


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _f1(a: Counter, b: Counter) -> float:
    na, nb = sum(a.values()), sum(b.values())
    if not na or not nb:
        return 0.0
    return 2 * sum((a & b).values()) / (na + nb)


def pair_features(cosine: float, a: str, b: str) -> list[float]:
    """[cosine of the two answers' embeddings, unigram F1 (clipped counts), bigram F1,
    |log((words of a + 1) / (words of b + 1))|, short (1.0 when the longer of the two has at
    most SHORT_WORDS white-space words, as NoveltyBench counts them, else 0.0), short x cosine];
    symmetric in a and b."""
    wa, wb = words(a), words(b)
    # the longer over the shorter: log(x / y) and log(y / x) can differ in the last bit
    longer, shorter = sorted((len(wa) + 1, len(wb) + 1), reverse=True)
    short = float(max(len(a.split()), len(b.split())) <= SHORT_WORDS)
    return [
        float(cosine),
        _f1(Counter(wa), Counter(wb)),
        _f1(Counter(zip(wa, wa[1:])), Counter(zip(wb, wb[1:]))),
        math.log(longer / shorter),
        short,
        short * float(cosine),
    ]


def short_pair_rule(a: str, b: str, max_words: int = SHORT_WORDS) -> Optional[bool]:
    """NoveltyBench's rule for short responses: when the longer of the two has at most
    ``max_words`` words (lower-cased, split on white space), they are equivalent iff twice the
    number of distinct words they share is at least the longer one's word count; None (the
    classifier decides) for longer pairs."""
    wa, wb = a.strip().lower().split(), b.strip().lower().split()
    longer = max(len(wa), len(wb))
    if longer > max_words:
        return None
    return 2 * len(set(wa) & set(wb)) >= longer
