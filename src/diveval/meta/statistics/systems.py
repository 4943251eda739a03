"""The systems a paired comparison reads: each one's answers keyed by prompt, matched across
systems, and the checks of those inputs (``compare`` and ``leaderboard`` share them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from ...errors import InputError
from ...io.grouping import groups_by_field
from ...io.matching import as_references, auto_match, prompt_keys, prompt_text, system_names
from ...io.readers import InputData, locate, per_item_fields, read_input, reading_notes
from ...options import PER_ITEM_OPTIONS
from ...results import CORPUS, SETS
from ...sampling.records import sampling_signature
from ..estimation.at_k import check_sizes


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


def read_systems(
    paths: Sequence[str],
    *,
    by: str | None = None,
    fmt: str | None = None,
    field_name: str | None = None,
    stored: Mapping[str, str] | None = None,
    match: str | None = None,
    at_k: int | None = None,
) -> tuple[list[System], str, list[str]]:
    """The systems of ``paths`` (one per file, or one per value of field ``by`` of one file), how
    their prompts are matched (``match``, or the one the records allow), and the lines a run says
    about the inputs on stderr (:func:`io.readers.reading_notes`): what `compare` and
    `leaderboard` read alike. ``stored``: {option: field} of --classes and --quality, read and
    checked as `score` reads them, one entry per response; each system holds its records'
    values. A set smaller than ``at_k`` is refused here, where its file and line are known."""
    fields = dict(stored or {})
    notes: list[str] = []
    parts: list[tuple[str, InputData, list[int]]] = []
    for path in paths:
        data = read_input(path, fmt, field_name, per_response=list(fields.values()))
        notes += reading_notes(data, fields.get("classes"))
        if by:
            for name, index in groups_by_field(data, by).items():
                parts.append((name, data, list(index)))
        else:
            parts.append((path, data, list(range(len(data.items)))))
    names = [n for n, _, _ in parts] if by else system_names([n for n, _, _ in parts])
    match = match or auto_match([(d, ix) for _, d, ix in parts])
    for _, data, index in parts:
        _check_at_k(data, index, at_k)
    systems = [
        _system(name, data, index, match, fields) for name, (_, data, index) in zip(names, parts)
    ]
    return systems, match, notes


def _system(
    name: str, data: InputData, index: list[int], match: str, fields: Mapping[str, str]
) -> System:
    records = [data.records[i] if data.records else {"_line": i + 1} for i in index]
    keys = prompt_keys(records, match, data.path)
    prompts = tuple(prompt_text(r) for r in records) if match == "id" else None
    references = None
    if any("references" in r for r in records):  # ref-* and MAUVE: each record's own
        references = tuple(as_references(r.get("references")) for r in records)
    # score's reading of the per-item fields (stored classes, quality scores, log-probabilities,
    # reference groups), so that a system is scored as `score` would score its file; the
    # references travel apart, as they did before these
    per_item_values = per_item_fields(dict(fields), records)
    per_item = {k: tuple(v) for k, v in per_item_values.items() if k != "references"}
    try:
        return System(
            name,
            tuple(keys),
            [data.items[i] for i in index],
            prompts,
            sampling_signature(records),
            references,
            per_item,
        )
    except InputError as exc:
        # the system's own name (this path, or its stem) starts the message: the path says it
        raise InputError(exc.problem.removeprefix(f"{name}: "), data.path) from None


def _check_at_k(data: InputData, index: list[int], at_k: int | None) -> None:
    """A set smaller than --at-k, refused where its file and line are known (the systems that
    reach ``compare`` hold neither)."""
    sets = [data.items[i] for i in index]
    if at_k is None or not sets or not isinstance(sets[0], list):
        return  # no --at-k, or a corpus: compare refuses --at-k on a corpus itself
    try:
        check_sizes(sets, at_k)
    except InputError as exc:
        raise locate(exc, data, index) from None
