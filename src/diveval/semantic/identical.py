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
rules up to round-off); ``model`` for NoveltyBench's equivalence classes (its ``partition.py`` asks
the judge about every pair). The rule a score used is in its signature, ``ident:one`` or
``ident:model``.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from ..errors import InputError
from ..options import OPTION

ONE, MODEL = "one", "model"
RULES = (ONE, MODEL)


def default_rule(metric: str) -> str:
    """The rule ``metric`` uses when none is given: its reference's (the module docstring), as
    the ``identical`` option declares it."""
    rule: str = OPTION["identical"].default_for(metric)
    return rule


def check_identical(identical: Optional[str], metric: str) -> str:
    """The rule to use: ``identical``, or the metric's default when it is None."""
    rule = default_rule(metric) if identical is None else identical
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
