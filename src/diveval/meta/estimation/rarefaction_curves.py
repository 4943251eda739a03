"""Rarefaction and extrapolation of a system's sets: "at k = 50 this model would show about X
distinct answers" (Chao et al. 2014; the estimators are in
:mod:`diveval.meta.estimation.rarefaction`).

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

Reported numbers keep to their feasible range (:func:`diveval.meta.estimation.rarefaction.feasible`:
each estimate and bound of classes in [1, m], and D_0 >= D_1 >= D_2 among the orders computed
together; n-gram counts at least 0, as m responses may hold many more than m n-grams); a number
moved there, an extrapolation past twice a set's size (the limit Chao et al. 2014 and iNEXT give),
an estimate past a set's size from sets with singletons but no doubletons (Chao1's bias-corrected
form), and an undefined q = 2 asymptote (reported as nan, None in JSON) each come with a warning in
the result's ``warnings``.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ...constants import DEFAULT_CONFIDENCE, DEFAULT_TOKENIZER
from ...context import RunContext
from ...data import require_sets
from ...errors import InputError
from ...lexical.expected import set_incidences
from ...options import OPTION
from ...results import SETS, make_signature
from ...semantic.equivalence import JudgeOptions, partition
from ...text.prepared import prepare
from .rarefaction import Curve, curve, default_sizes, feasible, finite_or_none
from .rarefaction_options import JUDGE_OPTIONS, NGRAM_OPTIONS

MEASURES = ("classes", "N-grams")
_NGRAMS = re.compile(r"^([1-9])-grams?$")
NAMES = {0: "richness", 1: "shannon", 2: "simpson"}


def declared_judge_options() -> tuple[str, ...]:
    """What the partition into classes takes, read from its declarations (the judge's models and
    settings, ``JudgeOptions``; its own keyword options): ``rarefaction_options.JUDGE_OPTIONS`` must
    equal it. Quality and patience shape the utility only, never the classes, and stored classes
    are no judge."""
    return (
        "judge",
        *(
            name
            for name, p in inspect.signature(partition).parameters.items()
            if p.kind is p.KEYWORD_ONLY
            and name not in ("classes", "quality", "patience", "context")
        ),
        *sorted(JudgeOptions.__required_keys__ | JudgeOptions.__optional_keys__),
    )


@dataclass(frozen=True)
class Rarefaction:
    """One measure of one order over a system's sets: the curve, and the value at ``at_k``
    (or, without it, the asymptotic estimate: Chao1 / the estimated Hill number)."""

    measure: str
    q: int
    curve: Curve
    at_k: int | None
    signature: str
    warnings: tuple[str, ...] = ()

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
            "value": finite_or_none(self.value),
            "interval": [finite_or_none(low), finite_or_none(high)],
            "observed": self.curve.empirical,
            "signature": self.signature,
            "warnings": list(self.warnings),
            "curve": self.curve.to_dict(),
        }


def measure_options(measure: str) -> tuple[str, ...]:
    """The options that configure ``measure``: the judge's for classes, the tokenizer's for
    N-grams."""
    kind, _ = parse_measure(measure)
    return JUDGE_OPTIONS if kind == "classes" else NGRAM_OPTIONS


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
    given = {"judge": judge, "tokenizer": tokenizer, "lowercase": lowercase or None, **options}
    allowed = measure_options(measure)
    unknown = sorted(k for k, v in given.items() if v is not None and k not in allowed)
    if unknown:  # an option the measure does not take would be dropped without a word
        raise InputError(
            f"{kind}: {', '.join(unknown)} does not configure this measure; it takes "
            + ", ".join(allowed)
        )
    if kind == "classes":
        # the rule for identical texts is equivalence-classes' (one class unless the judge is
        # NoveltyBench's own classifier), resolved by partition for this judge
        judged = partition(sets, judge, context=context, **options)
        vectors = [np.bincount(lab).astype(float) for lab in judged.labels]
        return vectors, None, {"judge": judged.judge, "rep": "first", "ident": judged.identical}

    prep = prepare([list(s) for s in sets], tokenizer or DEFAULT_TOKENIZER, bool(lowercase), SETS)
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
    confidence: float = DEFAULT_CONFIDENCE,
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
    curves = feasible(
        [
            curve(
                vectors, q, grid, units=units, resamples=resamples, seed=seed, confidence=confidence
            )
            for q in qs
        ],
        incidence=units is not None,
    )
    ns = np.array(units if units is not None else [float(v.sum()) for v in vectors])
    out = []
    for c in sorted(curves, key=lambda c: qs.index(c.q)):
        q = c.q
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
        said = tuple(_warnings(c, vectors, ns, at_k, kind))
        out.append(Rarefaction(kind, q, c, at_k, sig, said))
    return out


def _warnings(
    c: Curve, vectors: list[np.ndarray], ns: np.ndarray, at_k: int | None, kind: str
) -> list[str]:
    """What a reader of this curve's reported number (at ``at_k``, else the asymptote) must know:
    numbers moved into their feasible range, extrapolation past twice a set's size, estimates
    past a set's size that rest on sets without doubletons, and an undefined asymptote."""
    said: list[str] = []
    sets = len(vectors)
    where = f"at k = {at_k}" if at_k else "the asymptote"
    moved = c.extra.get("clipped", [])
    here = [w for w in moved if w["m"] == (float(at_k) if at_k else None)]
    for w in here:
        said.append(
            f"{where}: the {'estimate' if w['what'] == 'value' else w['what'] + ' bound'} "
            f"{w['raw']:.3f} is outside its feasible range, reported as {w['reported']:.3f} "
            f"(rule: {w['rule']})"
        )
    rest = [w for w in moved if w not in here and w["m"] is not None]
    if rest:
        rules = " and ".join(dict.fromkeys(w["rule"] for w in rest))
        sizes = sorted({int(w["m"]) for w in rest})
        said.append(
            f"the curve is moved into its feasible range at {len(sizes)} of {c.sizes.size} sizes "
            f"(m = {sizes[0]}..{sizes[-1]}; rule: {rules}); each move is in its 'clipped' list"
        )
    limit = 2 * ns
    if at_k:
        far = int(np.count_nonzero(at_k > limit))
        if far:
            said.append(
                f"k = {at_k} is past twice the size of {far} of {sets} sets (n = "
                f"{ns.min():g}..{ns.max():g}): extrapolation beyond 2n is unreliable (Chao et al. "
                "2014; iNEXT's limit)"
            )
    elif c.sizes.max() > limit.min():
        said.append(
            f"the curve goes past twice the size of the smallest sets (m > {limit.min():g}): "
            "extrapolation beyond 2n is unreliable (Chao et al. 2014; iNEXT's limit)"
        )
    if c.q in (0, 1):
        # past a set's size the q = 0 and q = 1 estimates rest on f0, which takes Chao1's
        # bias-corrected form f1 (f1 - 1) / 2 when no class is seen exactly twice
        past = np.ones(sets, bool) if not at_k else at_k > ns
        lone = [bool(v.size and np.any(v == 1) and not np.any(v == 2)) for v in vectors]
        bare = int(np.count_nonzero(past & np.array(lone)))
        if bare:
            unit = "classes" if kind == "classes" else "n-gram types"
            said.append(
                f"{where}: {bare} of {sets} sets have {unit} seen once but none seen twice (no "
                "doubletons): the estimate past their size uses Chao1's bias-corrected f0 = "
                "(n-1)/n f1 (f1-1)/2, which is unstable"
            )
    if not at_k and c.extra.get("undefined_sets"):
        said.append(
            f"the q = 2 asymptote is undefined (reported as nan; null in JSON): "
            f"{c.extra['undefined_sets']} of {sets} sets have no class seen more than once, where "
            "1 / sum X(X-1) / (n(n-1)) is infinite"
        )
    elif not at_k and c.extra.get("undefined_resamples"):
        said.append(
            f"the q = 2 asymptote's interval is undefined (nan; null in JSON): "
            f"{c.extra['undefined_resamples']} of {c.resamples} bootstrap samples have no class "
            "seen more than once, where the estimate is infinite"
        )
    return said
