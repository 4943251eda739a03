"""How two identical responses compare in the similarity and equivalence metrics: one rule.

``identical=``:

- ``"one"``: two responses with the same text have similarity 1 (and are one class), without
  asking the model;
- ``"model"``: the pair is scored like any other pair, by the model or judge (an NLI model may
  give a sentence and itself P(entailment) = 0.81; NoveltyBench's BLEU judge calls two copies of a
  text under 4 words different).

The diagonal (a response with itself) is 1 under both rules. Each metric's default is its
reference code's rule: ``one`` for the spectral measures (zlin7/UQ-NLG scores each distinct
answer once and gives a repeated answer the diagonal's entailment, ``recover_sim_mat_new``),
semantic entropy (Kuhn et al. 2023's code groups exact matches before asking the NLI model), the
similarity-sensitive Hill numbers (identical responses must count as one kind: D = 1), and the
embedding kernels (Vendi & co: two copies of a text have the same embedding, cosine 1 under both
rules up to round-off); ``model`` for the homogenization metrics. Equivalence classes
(NoveltyBench) depend on the judge: its ``partition.py`` asks the judge about every pair, which
reproduces its numbers only with its own classifier (the ``hf:`` judge: ``model``); any other
judge (the NLI judge, BLEU, a callable) would put its own errors into a number that reads as the
benchmark's, splitting answers such as ten copies of "4" into several classes, so under those
identical texts are one class (``one``). The rule a score used is in its signature,
``ident:one`` or ``ident:model``; under ``model``, a partition that splits identical texts says
how many pairs it split (:func:`split_warning`).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from ..errors import InputError
from ..options import OPTION

ONE, MODEL = "one", "model"
RULES = (ONE, MODEL)


def default_rule(metric: str, **given: Any) -> str:
    """The rule ``metric`` uses when none is given: its reference's (the module docstring), as
    the ``identical`` option declares it; ``given``: the call's other options (the judge)."""
    rule: str = OPTION["identical"].default_for(metric, **given)
    return rule


def check_identical(identical: Optional[str], metric: str, **given: Any) -> str:
    """The rule to use: ``identical``, or the metric's default when it is None (``given``: the
    call's options that default depends on, e.g. ``judge=``)."""
    rule = default_rule(metric, **given) if identical is None else identical
    if rule not in RULES:
        raise InputError(f"{metric}: identical must be one of {', '.join(RULES)}, got {rule!r}")
    return rule


def same_text(texts: Sequence[str]) -> np.ndarray:
    """[k, k] bool: whether responses i and j have the same text (the diagonal included)."""
    index: dict[str, int] = {}
    codes = np.array([index.setdefault(t, len(index)) for t in texts], dtype=np.int64)
    return codes[:, None] == codes[None, :]


def set_identical_to_one(matrix: np.ndarray, texts: Sequence[str]) -> np.ndarray:
    """``matrix`` with every entry of two identical texts set to 1 (in place; returned)."""
    matrix[same_text(texts)] = 1.0
    return matrix


def split_pairs(texts: Sequence[str], labels: Sequence[int]) -> int:
    """The pairs (i < j) of identical texts that ``labels`` puts into different classes."""
    by_text: dict[str, list[int]] = {}
    for t, c in zip(texts, labels):
        by_text.setdefault(t, []).append(c)
    split = 0
    for classes in by_text.values():
        n = len(classes)
        together = sum(m * (m - 1) // 2 for m in np.unique(classes, return_counts=True)[1])
        split += n * (n - 1) // 2 - together
    return split


#: What a user can do about a judge that splits identical texts.
ONE_HINT = "identical='one' (--identical one) makes identical answers one class"


def split_warning(
    sets: Sequence[Sequence[str]],
    labels: Sequence[Sequence[int]],
    who: str = "the judge",
    hint: str = ONE_HINT,
) -> Optional[str]:
    """A warning when ``labels`` (the classes of each set) split identical texts: how many pairs
    of identical texts, in how many sets, ended in different classes, then ``hint``; None when
    none did."""
    counts = [split_pairs(s, lab) for s, lab in zip(sets, labels)]
    pairs = sum(counts)
    if not pairs:
        return None
    where = sum(1 for c in counts if c)
    return (
        f"{who} put {pairs} pair{'s' if pairs > 1 else ''} of identical answers into different "
        f"classes (in {where} of {len(counts)} sets); {hint}"
    )
