"""Every set-level metric at a common number of responses K (``at_k``; CLI ``--at-k K``).

Sets sampled with different k are not comparable: Distinct-n, equivalence-class counts and the
Vendi Score all move with k. An at-K run scores each set as if K of its responses had been drawn:

- a metric whose row has an exact form (``Metric.at_k``, e.g. Distinct-n through expected
  counts, :mod:`diveval.lexical.expected`) gets the expectation over every K-subset, drawn from
  nothing (signature ``at-k:K|at-k-by:exact``);
- any other metric is computed on ``draws`` seeded draws of K responses per set (numpy
  ``default_rng(seed)``, without replacement, the same subsets for every metric of the run) and
  its per-set values averaged over the draws (signature ``at-k:K|at-k-by:draws|draws:D|seed:S``).

Rule for a set with fewer than K responses: an InputError naming the set (its score at K would
not be at K; the way out is a smaller K or dropping the set). Sets of exactly K responses are
scored as they are. Metrics that take per-response inputs (references, log-probabilities) are
refused: their inputs would have to be drawn with the responses.
"""

from __future__ import annotations

from typing import Any, Hashable, Iterable, Sequence

import numpy as np

from ...context import RunContext
from ...data import as_setting
from ...errors import InputError
from ...models.devices import ModelSettings, resolve_settings
from ...options import OPTION, PER_ITEM_OPTIONS
from ...registry import Metric, check_options, metrics_for
from ...results import SETS, Score
from ...scale.local import Scores, score_metric


def with_choices(signature: str, **choices: Any) -> str:
    """The signature with ``key:value`` parts added before its ``diveval:VERSION`` part."""
    head, _, version = signature.rpartition("|")
    parts = [f"{k}:{v}" for k, v in choices.items() if v is not None]
    return "|".join([head, *parts, version]) if head else "|".join([signature, *parts])


def check_sizes(sets: Sequence[Sequence[Any]], k: int) -> None:
    for i, s in enumerate(sets):
        if len(s) < k:
            raise InputError(
                f"set {i} has {len(s)} responses, fewer than --at-k {k}: choose a smaller K "
                "or leave such sets out"
            )


class _DrawContext(RunContext):
    """A run context for one draw: tokenizations and other memos of the drawn sets are its own,
    while the judges' caches (keyed by the texts they judge) are shared with the whole run."""

    SHARED = ("equivalence-judge",)

    def __init__(self, parent: RunContext) -> None:
        super().__init__(parent.progress, parent.models)  # the run's model settings, as its own
        self._parent = parent

    def memo(self, key: Hashable, build: Any) -> Any:
        if isinstance(key, tuple) and key and key[0] in self.SHARED:
            return self._parent.memo(key, build)
        return super().memo(key, build)


def draw_subsets(
    sets: Sequence[Sequence[str]], k: int, draws: int, seed: int
) -> list[list[list[str]]]:
    """``draws`` lists of sets, each set cut to k responses drawn without replacement (kept in
    their listed order)."""
    rng = np.random.default_rng(seed)
    return [
        [[s[i] for i in sorted(rng.choice(len(s), k, replace=False))] for s in sets]
        for _ in range(draws)
    ]


def _per_set(score: Score, n: int) -> np.ndarray:
    if score.items is None or len(score.items) != n:
        raise InputError(f"metric {score.metric!r} gives no per-set values to score at K")
    return np.asarray(score.items, dtype=float)


def _by_draws(
    m: Metric,
    subsets: list[list[list[str]]],
    contexts: list[RunContext],
    options: dict[str, Any],
    k: int,
    seed: int,
) -> Score:
    runs, warnings, first = [], [], None
    for picked, ctx in zip(subsets, contexts):
        score = score_metric(m, picked, options, ctx)
        if first is None:
            first = score
        runs.append(_per_set(score, len(picked)))
        warnings += [w for w in score.details.get("warnings", ()) if w not in warnings]
    assert first is not None
    values = np.mean(runs, axis=0)
    sig = with_choices(
        first.signature, **{"at-k": k, "at-k-by": "draws", "draws": len(subsets), "seed": seed}
    )
    details: dict[str, Any] = {
        "at_k": k,
        "draw_values": [float(np.mean(r)) for r in runs],
    }
    if warnings:
        details["warnings"] = warnings
    return Score(m.name, float(values.mean()), sig, SETS, values, details)


def _exact(m: Metric, sets: list[list[str]], k: int, options: dict[str, Any]) -> Score:
    assert m.at_k is not None
    taken = {o: v for o, v in options.items() if o in m.options and v is not None}
    taken.pop("progress", None)
    score = m.at_k(sets, k, **m.fixed, **taken)
    details = {**score.details, "at_k": k}
    sig = with_choices(score.signature, **{"at-k": k, "at-k-by": "exact"})
    return Score(m.name, score.value, sig, SETS, score.items, details)


def score_at_k(
    data: Any,
    metrics: Iterable[str] | None = None,
    *,
    at_k: int,
    at_k_draws: int | None = None,
    at_k_seed: int | None = None,
    models: ModelSettings | None = None,
    **options: Any,
) -> Scores:
    """Every metric of ``metrics`` (default: the sets defaults) at ``at_k`` responses per set
    (module docstring). The rarefaction measures are not metrics: see
    :func:`diveval.meta.estimation.rarefaction_curves.rarefy`, which extrapolates past a set's size.
    ``models``: the model settings the caller resolved (None: resolved here from ``options``), as
    :func:`diveval.scale.local.score` takes them."""
    setting, items = as_setting(data)
    if setting != SETS:
        raise InputError("--at-k scores each set at K responses: it needs sets, not a corpus")
    if not isinstance(at_k, (int, np.integer)) or isinstance(at_k, bool) or at_k < 1:
        raise InputError(f"at_k (responses per set) must be a whole number of at least 1: {at_k}")
    draws = OPTION["at_k_draws"].default if at_k_draws is None else int(at_k_draws)
    seed = OPTION["at_k_seed"].default if at_k_seed is None else int(at_k_seed)
    if draws < 1:
        raise InputError(f"at_k_draws must be at least 1, got {draws}")
    chosen = metrics_for(metrics, SETS)
    given = sorted(o for o in PER_ITEM_OPTIONS if options.get(o) is not None)
    needed = [o for o in given if any(o in m.options for m in chosen)]
    if needed:
        raise InputError(f"--at-k does not draw per-response inputs ({', '.join(needed)}) yet")
    options = {o: v for o, v in options.items() if o not in given}
    check_options(options, chosen)
    check_sizes(items, int(at_k))
    k = int(at_k)
    if models is None:
        models = resolve_settings(options)
    context = RunContext(progress=bool(options.get("progress")), models=models)
    subsets: list[list[list[str]]] | None = None
    contexts: list[RunContext] = []
    results: dict[str, Score] = {}
    skipped: dict[str, str] = {}
    for m in chosen:
        try:
            if m.at_k is not None:
                results[m.name] = _exact(m, items, k, options)
                continue
            if subsets is None:
                subsets = draw_subsets(items, k, draws, seed)
                contexts = [_DrawContext(context) for _ in subsets]
            results[m.name] = _by_draws(m, subsets, contexts, options, k, seed)
        except InputError as exc:
            if metrics is not None:
                raise
            skipped[m.name] = str(exc)
    if not results and skipped:
        raise InputError(f"no default metric is defined on this input at K = {k}")
    return Scores(results, skipped=skipped)
