"""The systems a paired comparison reads: each one's answers keyed by prompt, matched across
systems, and the checks of those inputs (``compare`` and ``leaderboard`` share them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from ...errors import InputError
from ...options import PER_ITEM_OPTIONS
from ...results import CORPUS, SETS


@dataclass(frozen=True)
class System:
    """One system's answers: ``items`` (sets, or one response each) keyed by prompt ``keys``;
    ``prompts`` (optional) the prompt text of each item, checked to agree across systems;
    ``references`` (optional) each item's reference texts (the ref-* metrics and MAUVE), which
    travel with the item when prompts are resampled or swapped; ``per_item``: the per-item
    options (``diveval.options``' ``per_item``: stored classes, quality scores, log-probabilities)
    as ``{option: one entry per item}``, which travel with their item the same way."""

    name: str
    keys: tuple[str, ...]
    items: list
    prompts: tuple[str | None, ...] | None = None
    sampling: str | None = None  # the sampling settings the records carry, if any
    references: tuple[tuple[str, ...] | None, ...] | None = None
    per_item: Mapping[str, tuple] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.keys) != len(self.items):
            raise InputError(
                f"{self.name}: {len(self.keys)} prompt ids for {len(self.items)} items"
            )
        if self.references is not None and len(self.references) != len(self.items):
            raise InputError(
                f"{self.name}: {len(self.references)} lists of references for "
                f"{len(self.items)} items"
            )
        for key, values in self.per_item.items():
            if key not in PER_ITEM_OPTIONS:
                raise ValueError(f"{key!r} is not a per-item option")  # a developer's slip
            if len(values) != len(self.items):
                raise InputError(
                    f"{self.name}: {len(values)} entries of {key} for {len(self.items)} items"
                )
        seen: set[str] = set()
        for key in self.keys:
            if key in seen:
                raise InputError(f"{self.name}: prompt {key!r} appears more than once")
            seen.add(key)

    @property
    def setting(self) -> str:
        return SETS if self.items and isinstance(self.items[0], list) else CORPUS

    @property
    def k(self) -> int:
        """Responses per prompt as sampled: the largest set (empty responses are dropped on
        reading, so a set may hold fewer)."""
        return max(len(s) for s in self.items) if self.setting == SETS else 1


def as_system(name: str, data: Any) -> System:
    """A :class:`System` from one already, ``{prompt id: set or response}``, or a list (prompts
    matched by position)."""
    if isinstance(data, System):
        return data
    if isinstance(data, Mapping):
        return System(name, tuple(str(k) for k in data), [_plain(v) for v in data.values()])
    items = [_plain(v) for v in data]
    return System(name, tuple(str(i + 1) for i in range(len(items))), items)


def _plain(v: Any) -> Any:
    return v if isinstance(v, str) else list(v)


def item_options(system: System, options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` with the system's own per-item values (references, stored classes...), one
    entry per item of ``system.items``: what scoring those items takes."""
    out = {**options, **{k: list(v) for k, v in system.per_item.items()}}
    if system.references is not None:
        out["references"] = list(system.references)
    return out


def with_references(system: System, references: Any) -> System:
    """``system`` holding the references given to :func:`compare` (``{prompt id: references}``,
    or one list per item of every system) where it holds none of its own."""
    if references is None or system.references is not None:
        return system
    if isinstance(references, Mapping):
        by_key = {str(k): v for k, v in references.items()}  # keys as the systems': strings
        refs = [by_key.get(k) for k in system.keys]
    else:
        refs = list(references)
        if len(refs) != len(system.items):
            raise InputError(
                f"references: {len(refs)} lists for the {len(system.items)} items of "
                f"{system.name}; give them as {{prompt id: references}} when systems differ"
            )
    return replace(system, references=tuple(None if r is None else tuple(r) for r in refs))


def references_of(system: System, i: int) -> tuple[str, ...] | None:
    return None if system.references is None else system.references[i]


def pair_prompts(
    baseline: System, candidate: System
) -> tuple[list[int], list[int], dict[str, list[str]]]:
    where = {k: i for i, k in enumerate(candidate.keys)}
    mine = set(baseline.keys)
    bi = [i for i, k in enumerate(baseline.keys) if k in where]
    ci = [where[baseline.keys[i]] for i in bi]
    unmatched = {
        f"only in {baseline.name}": [k for k in baseline.keys if k not in where],
        f"only in {candidate.name}": [k for k in candidate.keys if k not in mine],
    }
    if baseline.prompts and candidate.prompts:
        for i, j in zip(bi, ci):
            a, b = baseline.prompts[i], candidate.prompts[j]
            if a is not None and b is not None and a != b:
                raise InputError(
                    f"prompt {baseline.keys[i]!r} is not the same prompt in {baseline.name} and "
                    f"{candidate.name}: {a[:40]!r} vs {b[:40]!r}"
                )
    return bi, ci, {k: v for k, v in unmatched.items() if v}


def check_settings(systems: Sequence[System], at_k: int | None = None) -> None:
    first = systems[0]
    for s in systems[1:]:
        if s.setting != first.setting:
            raise InputError(
                f"{first.name} holds {first.setting} and {s.name} {s.setting}: compare inputs of "
                "one setting (one response per prompt, or a set of responses per prompt)"
            )
        if s.k != first.k and at_k is None:
            raise InputError(
                f"{first.name} has k = {first.k} responses per prompt and {s.name} k = {s.k}: "
                "diversity grows with k, so compare refuses inputs whose k differ (compare them "
                "at a common k with --at-k K)"
            )


def check_prompts(name: str, n: int, confidence: float) -> None:
    if n < 2:
        raise InputError(f"{name}: {n} prompt(s) in common with the baseline; a comparison needs 2")
    if n > 20:  # C(2n-1, n) outgrows a float, and any confidence short of 1 - 1e-10
        return
    distinct = math.comb(2 * n - 1, n)  # distinct bootstrap resamples of n prompts
    if distinct * (1 - confidence) < 2:
        raise InputError(
            f"{name}: {n} prompts in common are too few for a {confidence:g} interval (their "
            f"bootstrap has {distinct} distinct resamples); add prompts or lower --confidence"
        )


def ordered_systems(
    systems: Mapping[str, Any] | Sequence[System], references: Any, baseline: str | None
) -> list[System]:
    """The systems as :class:`System` objects with their references, the baseline first."""
    if isinstance(systems, Mapping):
        ordered = [as_system(str(k), v) for k, v in systems.items()]
    else:
        ordered = [as_system(s.name, s) for s in systems]
    ordered = [with_references(s, references) for s in ordered]
    if len(ordered) < 2:
        raise InputError("compare needs a baseline and at least one candidate")
    names = [s.name for s in ordered]
    if len(set(names)) != len(names):
        raise InputError(f"two systems share a name: {', '.join(names)}")
    if baseline is not None:
        if baseline not in names:
            raise InputError(f"no system {baseline!r} to take as baseline; have {', '.join(names)}")
        ordered = [s for s in ordered if s.name == baseline] + [
            s for s in ordered if s.name != baseline
        ]
    return ordered


def shown_ids(ids: list[str]) -> str:
    return ", ".join(ids[:5]) + (f", ... ({len(ids)} in all)" if len(ids) > 5 else "")
