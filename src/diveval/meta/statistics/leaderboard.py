"""A leaderboard of systems that answered the same prompts: every pair of systems compared by
``compare``'s paired test, Holm (1979) over all m(m-1)/2 pairs, and from the pairs the test
separates, the groups it cannot tell apart (a compact letter display) and each system's range of
ranks (:mod:`diveval.meta.statistics.groups`).

The metric is one with a value per prompt (a per-set metric, or a corpus metric that is a mean of
per-item values, ``corpus:item-mean`` in compare); its value is the mean over prompts. Each system
is scored once; the prompt resamples (bootstrap multiplicities) and the permutation's swap
patterns are drawn once and shared by every system and pair, so m systems cost one matrix
product, not m(m-1)/2 comparisons: the resampled means of all systems are ``W @ V / n`` (W the
[B, n] multiplicities, V the [n, m] per-prompt values), and each pair's sign-flip statistics are
``F @ (V_j - V_i) / n``. A pair's p-value is exactly ``compare``'s (``sign_flip_p``'s exact or
Monte Carlo rule, or the paired bootstrap's with ``test="bootstrap"``); sharing the draws between
pairs leaves each pair's test exact, and Holm needs no independence between the tests.

Each system's interval is either *per-system* (the percentile bootstrap interval of its mean,
at ``confidence``, covering that system's value alone) or *simultaneous* (the default): the sup-t
band (Montiel Olea & Plagborg-Moller 2019), each system's mean +- c times its bootstrap standard
error, c the ``confidence`` quantile over the shared resamples of the largest standardised
deviation among all systems, so that all m intervals hold together with about that probability.
Neither decides the groups: the groups come from the paired tests, which see the prompts both
systems answered and are sharper than two overlapping intervals.

The pairs' own intervals (the difference's percentile bootstrap interval) are per pair, not
adjusted for the other pairs (GUIDE 2f), and said so in the settings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from ...errors import InputError
from ...models.devices import ModelSettings, resolve_settings
from ...registry import get_metric
from ...results import CORPUS
from ...scale.local import score
from . import compare as cmp
from .compare_options import check_choices
from .groups import letters, rank_ranges
from .leaderboard_options import DEFAULT_INTERVALS, INTERVALS
from .reference_resampling import per_item_mean
from .resampling import bootstrap_p, multiplicities, percentile_interval, permutation_p, swaps
from .systems import (
    System,
    check_prompts,
    check_settings,
    item_options,
    ordered_systems,
    pair_prompts,
    shown_ids,
)


def default_resamples(n_systems: int, alpha: float = cmp.DEFAULT_ALPHA) -> int:
    """Compare's 1,000 resamples, or more where the pairs are many: twice the fewest whose
    smallest Monte Carlo p-value, 1 / (B + 1), passes Holm's first threshold alpha / pairs, in
    thousands (20 systems, 190 pairs: 8,000)."""
    pairs = n_systems * (n_systems - 1) // 2
    return max(cmp.DEFAULT_RESAMPLES, 1000 * math.ceil(2 * pairs / alpha / 1000))


@dataclass(frozen=True)
class Standing:
    """One system's line of the leaderboard."""

    system: str
    value: float
    interval: tuple[float, float]
    rank: int  # by value, 1 = the most diverse
    rank_range: tuple[int, int]
    letters: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "value": self.value,
            "interval": list(self.interval),
            "rank": self.rank,
            "rank_range": list(self.rank_range),
            "letters": self.letters,
        }


@dataclass(frozen=True)
class Pair:
    """One pair's test: ``difference`` is first - second, the better-ranked system's value less
    the other's (positive where higher is more diverse, negative where lower is)."""

    first: str
    second: str
    difference: float
    interval: tuple[float, float]
    p_value: float
    p_adjusted: float
    separated: bool

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in ("first", "second", "difference")}
        out["interval"] = list(self.interval)
        return {**out, **{k: getattr(self, k) for k in ("p_value", "p_adjusted", "separated")}}


@dataclass(frozen=True)
class Leaderboard:
    metric: str
    direction: str
    standings: tuple[Standing, ...]  # ranked, the most diverse first
    pairs: tuple[Pair, ...]
    settings: Mapping[str, Any]
    signature: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "leaderboard": {"metric": self.metric, "direction": self.direction, **self.settings},
            "signature": self.signature,
            "systems": [s.to_dict() for s in self.standings],
            "pairs": [p.to_dict() for p in self.pairs],
        }


def _common_prompts(ordered: Sequence[System]) -> list[list[int]]:
    """Each system's item indices in the first system's prompt order; refuses systems that did
    not answer the same prompts (a leaderboard ranks every system on one set of prompts)."""
    first = ordered[0]
    index = [list(range(len(first.items)))]
    for s in ordered[1:]:
        bi, ci, left = pair_prompts(first, s)
        if left:
            side, ids = next(iter(left.items()))
            raise InputError(
                f"{first.name} and {s.name} did not answer the same prompts ({len(ids)} "
                f"{side}: {shown_ids(ids)}); a leaderboard ranks every system on the same "
                "prompts: keep only the prompts all systems answered"
            )
        order = dict(zip(bi, ci))
        index.append([order[i] for i in range(len(first.items))])
    return index


def _per_prompt(scored: Mapping[str, Any], name: str, setting: str, options: Mapping) -> None:
    metric = get_metric(name)
    if setting == CORPUS and not per_item_mean(metric, options):
        raise InputError(
            f"{name} on one response per prompt is a pooled corpus metric with no value per "
            "prompt; the leaderboard ranks per-prompt values (sets, or a mean of per-item "
            "values): compare pooled metrics pair by pair with `diveval compare`"
        )
    for system, result in scored.items():
        if result.items is None:
            raise InputError(f"{name} gave {system} no per-prompt values to compare")


def leaderboard(
    systems: Mapping[str, Any] | Sequence[System],
    metric: str,
    *,
    test: str = cmp.DEFAULT_TEST,
    n_resamples: int | None = None,
    seed: int = cmp.DEFAULT_SEED,
    alpha: float = cmp.DEFAULT_ALPHA,
    confidence: float = cmp.DEFAULT_CONFIDENCE,
    intervals: str = DEFAULT_INTERVALS,
    match: str = "id",
    models: ModelSettings | None = None,
    **options: Any,
) -> Leaderboard:
    """Rank ``systems`` (``{name: {prompt id: set}}`` or
    :class:`~diveval.meta.statistics.compare.System` objects, as
    :func:`~diveval.meta.statistics.compare.compare` takes) on one metric (see the module
    docstring). n_resamples: None takes :func:`default_resamples`. models: the model settings
    the caller resolved (None: resolved here from ``options``).

    >>> same = {f"p{i}": ["a b", "a b"] for i in range(12)}
    >>> new = {f"p{i}": ["a b", "c d"] for i in range(12)}
    >>> board = leaderboard({"x": same, "y": new, "z": dict(same)}, "distinct-1")
    >>> [(s.system, s.letters, s.rank_range) for s in board.standings]
    [('y', 'a', (1, 1)), ('x', 'b', (2, 3)), ('z', 'b', (2, 3))]
    """
    if intervals not in INTERVALS:
        raise InputError(f"unknown intervals {intervals!r}; choose {' or '.join(INTERVALS)}")
    n_systems = len(systems)
    if n_systems < 2:
        raise InputError(f"a leaderboard needs at least two systems, got {n_systems}")
    if n_resamples is None:
        n_resamples = default_resamples(n_systems, alpha)
    check_choices(test, n_resamples, alpha, confidence, 1)
    ordered = ordered_systems(systems, options.pop("references", None), None)
    check_settings(ordered, at_k=0)  # the settings alike; k checked here, without --at-k
    for s in ordered[1:]:
        if s.k != ordered[0].k:
            raise InputError(
                f"{ordered[0].name} has k = {ordered[0].k} responses per prompt and {s.name} "
                f"k = {s.k}: diversity grows with k, so a leaderboard ranks systems of one k "
                "(`diveval compare --at-k K` compares two at a common k)"
            )
    setting = ordered[0].setting
    index = _common_prompts(ordered)
    n = len(index[0])
    if n < 2:
        raise InputError(f"the systems answered {n} prompt(s); a leaderboard needs 2 or more")
    check_prompts("the systems", n, confidence)
    options = {k: v for k, v in options.items() if v is not None}
    # each system's items with their own references and per-item values (stored classes...);
    # resamples and swaps then move per-prompt values, which carry them
    if models is None:
        models = resolve_settings(options)
    scored = {
        s.name: score(s.items, [metric], models=models, **item_options(s, options))[metric]
        for s in ordered
    }
    _per_prompt(scored, metric, setting, options)
    row = get_metric(metric)
    # V [n, m]: the systems' per-prompt values, each column in the first system's prompt order
    values = np.stack(
        [np.asarray(scored[s.name].items, dtype=float)[ix] for s, ix in zip(ordered, index)],
        axis=1,
    )
    return _ranked(
        [s.name for s in ordered],
        values,
        row.direction,
        _Choices(test, n_resamples, seed, alpha, confidence, intervals),
        metric=metric,
        signature=_signature(scored, ordered, test, n_resamples, seed, alpha, confidence, match),
        extra={"setting": setting, "k": ordered[0].k, "match": match},
    )


@dataclass(frozen=True)
class _Choices:
    test: str
    n_resamples: int
    seed: int
    alpha: float
    confidence: float
    intervals: str


def _signature(scored, ordered, test, n_resamples, seed, alpha, confidence, match) -> str:
    metric_sig = scored[ordered[0].name].signature  # the same choices for every system
    return (
        f"{metric_sig}|leaderboard:{test}|B:{n_resamples}|seed:{seed}|alpha:{alpha:g}|"
        f"conf:{confidence:g}|adjust:{cmp.ADJUSTMENT}|letters:piepho|match:{match}"
    )


def _ranked(
    names: list[str],
    values: np.ndarray,
    direction: str,
    c: _Choices,
    *,
    metric: str,
    signature: str,
    extra: Mapping[str, Any],
) -> Leaderboard:
    """The leaderboard from per-prompt values V [n, m] of m systems (columns in ``names``' order)."""
    n, m = values.shape
    means = values.mean(axis=0)
    # rank by value, the more diverse first; a stable sort keeps the given order on ties
    order = np.argsort(-means if direction == "higher" else means, kind="stable")
    values, means = values[:, order], means[order]
    names = [names[i] for i in order]
    weights = multiplicities(n, c.n_resamples, np.random.default_rng([c.seed, 0]))
    resampled = weights @ values / n  # [B, m]: every system's mean on the same resamples
    first, second = np.triu_indices(m, k=1)
    diffs = values[:, first] - values[:, second]  # [n, pairs]
    observed = means[first] - means[second]
    deltas = resampled[:, first] - resampled[:, second]  # [B, pairs]
    if c.test == "permutation":
        pattern, exact = swaps(n, c.n_resamples, np.random.default_rng([c.seed, 1]))
        flipped = (1 - 2 * pattern.astype(float)) @ diffs / n
        p = [permutation_p(flipped[:, k], observed[k], exact) for k in range(observed.size)]
    else:
        p = [bootstrap_p(deltas[:, k], observed[k]) for k in range(observed.size)]
    drafts = [
        {"candidate": f"{names[a]} vs {names[b]}", "metric": metric, "n_prompts": n, "p_value": q}
        for a, b, q in zip(first, second, p)
    ]
    m_tests = cmp.adjust_drafts(drafts, c.alpha, c.n_resamples, c.test)  # Holm, or its refusal
    separated = np.zeros((m, m), dtype=bool)
    pairs = []
    for k, (a, b, d) in enumerate(zip(first, second, drafts)):
        separated[a, b] = separated[b, a] = d["significant"]
        pairs.append(
            Pair(
                names[a],
                names[b],
                float(observed[k]),
                percentile_interval(deltas[:, k], c.confidence),
                float(d["p_value"]),
                float(d["p_adjusted"]),
                bool(d["significant"]),
            )
        )
    shown = _intervals(resampled, means, c.confidence, c.intervals)
    tags = letters(separated.tolist())
    ranges = rank_ranges(separated.tolist())
    standings = tuple(
        Standing(names[i], float(means[i]), shown[i], i + 1, ranges[i], tags[i]) for i in range(m)
    )
    settings = {
        **extra,
        "n_prompts": n,
        "test": c.test,
        "resamples": c.n_resamples,
        "seed": c.seed,
        "alpha": c.alpha,
        "confidence": c.confidence,
        "adjustment": f"{cmp.ADJUSTMENT} over {m_tests} pairs",
        "intervals": _INTERVAL_NAMES[c.intervals],
        "pair_intervals": "percentile bootstrap of each pair's difference, not adjusted",
        "letters": "systems that share a letter are not separated (Piepho 2004)",
    }
    return Leaderboard(metric, direction, standings, tuple(pairs), settings, signature)


_INTERVAL_NAMES = {
    "simultaneous": "simultaneous: sup-t band over all systems (bootstrap)",
    "per-system": "per-system: percentile bootstrap of each system alone",
}


def _intervals(
    resampled: np.ndarray, means: np.ndarray, confidence: float, kind: str
) -> list[tuple[float, float]]:
    if kind == "per-system":
        return [percentile_interval(resampled[:, i], confidence) for i in range(means.size)]
    se = resampled.std(axis=0, ddof=1)
    varies = se > 0  # a system whose every prompt scores the same has a point, not a band
    if not varies.any():
        return [(float(v), float(v)) for v in means]
    dev = np.abs(resampled[:, varies] - means[varies]) / se[varies]
    half = float(np.quantile(dev.max(axis=1), confidence)) * se
    return [(float(v - h), float(v + h)) for v, h in zip(means, half)]
