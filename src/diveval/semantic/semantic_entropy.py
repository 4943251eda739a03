"""Semantic entropy (Kuhn, Gal & Farquhar 2023; Farquhar et al. 2024), a sets-only metric.

The k responses of a set are grouped into meaning classes c by an equivalence judge, and

    SE = -sum_c p(c) log p(c)      (natural log: nats)

- count-weighted (the discrete estimator, the reference code's ``cluster_assignment_entropy``):
  p(c) = |c| / k;
- likelihood-weighted, when sequence log-probabilities l_i are given (one per response, the
  input's ``logprobs`` field; the reference pipeline passes the mean token log-likelihood of each
  response): p(c) = sum_{i in c} exp(l_i) / sum_j exp(l_j), the members' probabilities normalised
  over the set (its ``logsumexp_by_id(..., agg="sum_normalized")`` then
  ``predictive_entropy_rao``), computed with the log-probabilities shifted by their largest, so
  nothing that matters underflows.

Classes are formed as the reference code's ``get_semantic_ids`` forms them: responses are visited
in order; one not yet in a class opens a class, and every *later* response the judge calls
equivalent to it is (re)assigned to that class, so a response equivalent to several class openers
ends in the last one's class. (NoveltyBench's partition, ``equivalence-classes``, keeps the first;
the two differ only for a judge that is not transitive.) The opening responses, hence the number of
classes, are the same as ``equivalence-classes``'s.

Equivalence rules (``judge=``), the judges of ``equivalence-classes``:

- ``"nli"`` (default): bidirectional entailment, the argmax label of NLI(a, b) and of NLI(b, a) is
  entailment, as the papers define it, and ``strict_entailment=True``, the default of the reference
  pipeline's command line (``utils.get_parser``);
- ``"nli-relaxed"``: neither direction is a contradiction and not both are neutral: the reference
  function's own default (``get_semantic_ids(..., strict_entailment=False)``, its
  ``--no-strict_entailment``), weaker than bidirectional entailment (one-way entailment without a
  contradiction counts as equivalent);
- ``"embedding[:T]"``, ``"bleu[:T]"`` or any ``judge(a, b) -> bool``.

The reference pipeline prepends the question to every response before the NLI model
(``condition_on_question``); diveval's sets carry no question, so pass responses with the question
prepended to reproduce that.

The signature names the rule (``judge:nli-bidirectional:MODEL:FP:trunc:RULE`` or
``judge:nli-relaxed:...``; ``trunc:`` how the model cuts a pair), the weighting (``p:count`` or
``p:likelihood``) and the log base. Identical texts are equivalent
without asking the judge by default (``identical="one"``, ``ident:one``), as Kuhn et al.'s code and
zlin7/UQ-NLG's ``_create_semantic_sets`` group exact matches before the NLI model;
``identical="model"`` asks the judge about them too (``ident:model``), as jlko's
``get_semantic_ids`` does. The judge is asked what the
reference asks (each class opener against every later response), each pair once per run, batched
over sets; NLI scores go through the cached NLI backend that the NLI Diversity and spectral metrics
share, so an ordered pair reaches the model once. A set of one response has SE = 0; an empty set is an
InputError.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np

from ..context import RunContext
from ..data import require_sets, sequence_probabilities, set_logprobs
from ..errors import InputError
from ..results import SETS, Score, make_signature
from .equivalence import Judge, JudgeOptions, run_judge
from .identical import MODEL, ONE, check_identical, split_warning

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it


def semantic_ids(equivalent: np.ndarray) -> list[int]:
    """Class of each response from the matrix of verdicts ``equivalent[i, j]`` (i < j used): the
    reference code's greedy assignment (a later opener's class overwrites an earlier one's)."""
    m = equivalent.shape[0]
    ids = [-1] * m
    next_id = 0
    for i in range(m):
        if ids[i] != -1:
            continue
        ids[i] = next_id
        for j in range(i + 1, m):
            if equivalent[i, j]:
                ids[j] = next_id
        next_id += 1
    return ids


def classes_of_sets(items: list[list[str]], judge: Judge, identical: str = ONE) -> list[list[int]]:
    """The classes of every set, as :func:`semantic_ids` forms them, asking the judge only what
    the reference asks (each class opener against every later response), batched over sets: at
    position i, one judge call for the openers at i of all sets. identical: "one" (identical texts
    are equivalent, unasked) or "model" (the judge decides them too)."""
    skip = identical == ONE
    ids = [[-1] * len(s) for s in items]
    next_id = [0] * len(items)
    for i in range(max((len(s) for s in items), default=0)):
        openers = [g for g, s in enumerate(items) if i < len(s) and ids[g][i] == -1]
        for g in openers:
            ids[g][i] = next_id[g]
        asks = [(g, j) for g in openers for j in range(i + 1, len(items[g]))]
        pairs = [(items[g][i], items[g][j]) for g, j in asks]
        answers = iter(judge.judge_pairs([p for p in pairs if not (skip and p[0] == p[1])]))
        for (g, j), (a, b) in zip(asks, pairs):
            if (skip and a == b) or next(answers):
                ids[g][j] = next_id[g]
        for g in openers:
            next_id[g] += 1
    return ids


def class_probabilities(
    ids: Sequence[int], logprobs: Optional[Sequence[float]] = None
) -> np.ndarray:
    """p(c) of each class: |c|/k, or the normalised sum of the members' probabilities."""
    ids_arr = np.asarray(ids, dtype=np.int64)
    if logprobs is None:
        return np.bincount(ids_arr) / len(ids_arr)
    return np.bincount(ids_arr, weights=sequence_probabilities(logprobs))


def entropy(p: np.ndarray) -> float:
    """-sum p log p (natural log), 0 log 0 = 0."""
    p = p[p > 0]
    return float(-np.sum(p * np.log(p)))


def semantic_entropy(
    sets: Any,
    judge: Any = "nli",
    *,
    logprobs: Optional[Sequence[Optional[Sequence[float]]]] = None,
    identical: Optional[str] = None,
    progress: Optional[bool] = None,
    context: RunContext | None = None,
    **judge_options: Unpack[JudgeOptions],
) -> Score:
    """Semantic entropy of each set's meaning classes, and the mean over sets:

    SE = -sum_c p(c) log p(c),  p(c) = |c| / k, or sum_{i in c} exp(l_i) / sum_j exp(l_j)

    judge: "nli" (bidirectional entailment, default), "nli-relaxed" (no contradiction either way,
    not both neutral: the reference function's strict_entailment=False),
    "embedding[:T]", "bleu[:T]" or a callable. logprobs: one list per set, one sequence
    log-probability per response (likelihood-weighted); None: count-weighted. ``details``:
    ``classes`` (per set) and ``labels`` (per set, the class of each response as a string of
    numbers, e.g. "0 1 0"), and ``warnings`` when identical responses ended in different classes
    (under "model" only). identical: "one" (default: identical texts are one class, unasked)
    or "model" (the judge decides them too). judge_options: the judge's ``nli_model`` or
    ``embedding_model`` and how they run (the run's ``settings``, or device=..., precision=...).
    """
    del progress
    items = require_sets(sets, "semantic-entropy")
    empty = [g for g, s in enumerate(items) if not s]
    if empty:
        raise InputError(f"semantic-entropy needs at least one response: set {empty[0]} is empty")
    weights = set_logprobs(items, logprobs, "semantic-entropy")
    rule = check_identical(identical, "semantic-entropy")
    context = context if context is not None else RunContext()
    cached = run_judge(judge, context, judge_options)
    labels = classes_of_sets(items, cached, rule)
    values = np.array(
        [
            entropy(class_probabilities(ids, weights[g] if weights is not None else None))
            for g, ids in enumerate(labels)
        ]
    )
    sig = make_signature(
        "semantic-entropy",
        judge=cached.name,
        assign="last",
        p="count" if weights is None else "likelihood",
        log="e",
        ident=rule,
        setting=SETS,
    )
    details: dict[str, Any] = {
        "classes": np.array([max(ids) + 1 for ids in labels], dtype=np.float64),
        # one string per set ("0 1 0"): a plain array, so shard files can hold it
        "labels": np.array([" ".join(map(str, ids)) for ids in labels]),
    }
    # under "model" a judge's slip on two copies of a text shows in the entropy: say so
    warning = split_warning(items, labels) if rule == MODEL else None
    if warning:
        details["warnings"] = [warning]
    return Score("semantic-entropy", float(values.mean()), sig, SETS, values, details)
