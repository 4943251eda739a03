"""Rarefaction and extrapolation of a system's sets: "at k = 50 this model would show about X
distinct answers" (Chao et al. 2014; the estimators are in :mod:`diveval.meta.rarefaction`).

Measures (``measure=``):

- ``"classes"``: the equivalence classes of each set's responses (NoveltyBench's greedy partition
  under ``judge``, :mod:`diveval.semantic.equivalence`) are the species; the class sizes are the
  abundance vector. Hill numbers of order 0 (distinct answers), 1 (exp of the entropy over
  classes) and 2 (inverse Simpson). The partition of the k responses is taken as the classes of
  every subset: exact for a judge that is an equivalence relation, an approximation otherwise.
- ``"N-grams"`` (``"1-grams"``, ``"2-grams"``, ...): the n-gram types of each set, counted once per
  response that holds them (sample-based data: the responses are the sampling units); order 0,
  the expected number of distinct n-grams in m responses. Below a set's size this equals the exact
  expectation behind ``distinct-N`` at K (:mod:`diveval.lexical.expected`).

The curve of a system is the mean over its sets at each size m (rarefied below a set's size,
extrapolated above it), with Chao et al.'s bootstrap interval of that mean; ``at_k`` reads it at
one size. Every choice is in the signature.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..context import RunContext
from ..data import require_sets
from ..errors import InputError
from ..lexical.expected import set_incidences
from ..options import OPTION
from ..results import SETS, make_signature
from ..semantic.equivalence import partition
from ..text.prepared import prepare
from .rarefaction import Curve, curve, default_sizes

MEASURES = ("classes", "N-grams")
_NGRAMS = re.compile(r"^([1-9])-grams?$")
NAMES = {0: "richness", 1: "shannon", 2: "simpson"}
#: the options of the classes' judge; identical: whether identical answers are one class (as in
#: equivalence-classes: unless given, the judge is asked only when it is NoveltyBench's hf:)
JUDGE_OPTIONS = ("nli_model", "embedding_model", "device", "batch_size", "cache_dir", "identical")


@dataclass(frozen=True)
class Rarefaction:
    """One measure of one order over a system's sets: the curve, and the value at ``at_k``
    (or, without it, the asymptotic estimate: Chao1 / the estimated Hill number)."""

    measure: str
    q: int
    curve: Curve
    at_k: int | None
    signature: str

    @property
    def name(self) -> str:
        return f"{self.measure}-{NAMES[self.q]}"

    @property
    def value(self) -> float:
        return self.curve.at(self.at_k)[0] if self.at_k else self.curve.asymptote

    @property
    def interval(self) -> tuple[float, float]:
        if self.at_k:
            _, low, high = self.curve.at(self.at_k)
            return low, high
        return self.curve.asymptote_low, self.curve.asymptote_high

    def to_dict(self) -> dict[str, Any]:
        low, high = self.interval
        return {
            "measure": self.measure,
            "q": self.q,
            "at_k": self.at_k,
            "value": self.value,
            "interval": [low, high],
            "observed": self.curve.empirical,
            "signature": self.signature,
            "curve": self.curve.to_dict(),
        }


def parse_measure(measure: str) -> tuple[str, int | None]:
    """("classes", None) or ("N-grams", N)."""
    if measure == "classes":
        return "classes", None
    hit = _NGRAMS.match(measure)
    if hit:
        return f"{hit.group(1)}-grams", int(hit.group(1))
    raise InputError(f"unknown measure {measure!r}: classes, or N-grams (1-grams .. 9-grams)")


def abundances(
    sets: Sequence[Sequence[str]],
    measure: str,
    *,
    judge: Any = None,
    tokenizer: Any = None,
    lowercase: bool = False,
    context: RunContext | None = None,
    **options: Any,
) -> tuple[list[np.ndarray], list[float] | None, dict[str, Any]]:
    """(one vector per set, the sampling units per set for sample-based data or None, the
    signature's choices)."""
    kind, n = parse_measure(measure)
    if kind == "classes":
        judged = partition(
            sets,
            judge or "nli",
            context=context,
            **{k: v for k, v in options.items() if k in JUDGE_OPTIONS},
        )
        vectors = [np.bincount(lab).astype(float) for lab in judged.labels]
        return vectors, None, {"judge": judged.judge, "rep": "first", "ident": judged.identical}

    prep = prepare([list(s) for s in sets], tokenizer or "whitespace", bool(lowercase), SETS)
    type_group, incidence, _ = set_incidences(prep, int(n or 1))
    vectors = [incidence[type_group == g].astype(float) for g in range(prep.n_groups)]
    units = [float(len(s)) for s in sets]
    return vectors, units, {"n": n, "units": "responses", **prep.signature_keys()}


def rarefy(
    sets: Any,
    measure: str = "classes",
    *,
    at_k: int | None = None,
    sizes: Sequence[int] | np.ndarray | None = None,
    orders: Sequence[int] | None = None,
    rarefy_resamples: int | None = None,
    rarefy_seed: int | None = None,
    confidence: float = 0.95,
    context: RunContext | None = None,
    **options: Any,
) -> list[Rarefaction]:
    """Rarefaction / extrapolation curves of ``measure`` over ``sets`` (list of lists of
    responses), one per order q (classes: 0, 1, 2; N-grams: 0), each read at ``at_k``.

    sizes: the curve's sample sizes (default: about 40 from 1 to twice the largest set, with
    ``at_k``); options: the judge's (judge, nli_model, embedding_model, ...) for classes, the
    tokenizer's (tokenizer, lowercase) for N-grams.

    >>> r = rarefy([["a", "a b", "c"], ["b", "b", "d"]], "1-grams", at_k=6, rarefy_resamples=20)
    >>> round(r[0].value, 3)
    3.115
    """
    items = require_sets(sets, "rarefaction")
    if any(len(s) < 2 for s in items):
        raise InputError("rarefaction and extrapolation need at least 2 responses per set")
    if at_k is not None and (isinstance(at_k, bool) or int(at_k) != at_k or at_k < 1):
        raise InputError(f"at_k (responses) must be a whole number of at least 1, got {at_k}")
    resamples = OPTION["rarefy_resamples"].default if rarefy_resamples is None else rarefy_resamples
    seed = OPTION["rarefy_seed"].default if rarefy_seed is None else rarefy_seed
    kind, _ = parse_measure(measure)
    vectors, units, choices = abundances(
        items, measure, context=context if context is not None else RunContext(), **options
    )
    allowed = (0, 1, 2) if kind == "classes" else (0,)
    qs = tuple(orders) if orders is not None else allowed
    for q in qs:
        if q not in allowed:
            raise InputError(f"{kind}: orders {', '.join(map(str, allowed))}, not q = {q}")
    grid = np.asarray(
        sizes if sizes is not None else default_sizes(max(len(s) for s in items), at_k),
        dtype=float,
    )
    if at_k is not None and at_k not in grid:
        grid = np.unique(np.append(grid, at_k))
    out = []
    for q in qs:
        c = curve(
            vectors, q, grid, units=units, resamples=resamples, seed=seed, confidence=confidence
        )
        sig = make_signature(
            "rarefaction",
            measure=kind,
            q=q,
            **choices,
            extrapolation="chao2014",
            boot=f"chao2014:{resamples}",
            seed=seed,
            ci=f"{confidence:g}",
            **{"at-k": at_k},
        )
        out.append(Rarefaction(kind, q, c, at_k, sig))
    return out
