"""Immutable metric results and their signatures.

Every number diveval returns carries a signature (as sacrebleu does): a short string holding every
choice that changes the number, so two numbers with different signatures are never compared by
accident.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from ._version import __version__

CORPUS = "corpus"
SETS = "sets"


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def make_signature(metric: str, **choices: Any) -> str:
    """``metric|key:value|...|diveval:VERSION``; keys whose value is None are left out."""
    parts = [metric]
    parts += [f"{k}:{_fmt(v)}" for k, v in choices.items() if v is not None]
    parts.append(f"diveval:{__version__}")
    return "|".join(parts)


def _frozen_array(values: Any) -> np.ndarray | None:
    if values is None:
        return None
    arr = np.array(values, dtype=float)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class Score:
    """One metric's result.

    value: the headline number (for the sets setting, the mean of the per-set values).
    signature: every choice that changes the number.
    items: per-item values (per set in the sets setting, per sentence where a metric has them),
        a read-only float array, or None.
    details: other named results (e.g. label counts), read-only.
    """

    metric: str
    value: float
    signature: str
    setting: str
    items: np.ndarray | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", float(self.value))
        object.__setattr__(self, "items", _frozen_array(self.items))
        object.__setattr__(self, "details", MappingProxyType(dict(self.details)))

    def __reduce__(self):  # picklable (Ray, multiprocessing) although details is a read-only view
        return (
            type(self),
            (self.metric, self.value, self.signature, self.setting, self.items, dict(self.details)),
        )

    def with_metric(self, name: str) -> Score:
        """The same result under the registry name ``name`` (``distinct`` of order 2 is
        ``distinct-2``); the signature, which names every choice, is unchanged."""
        if name == self.metric:
            return self
        return Score(name, self.value, self.signature, self.setting, self.items, dict(self.details))

    def to_dict(self, with_items: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            k: getattr(self, k) for k in ("metric", "value", "setting", "signature")
        }
        details = self.details if with_items else _without_arrays(self.details)
        if details:
            out["details"] = {k: _jsonable(v) for k, v in details.items()}
        if with_items and self.items is not None:
            out["items"] = self.items.tolist()
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], metric: str | None = None) -> Score:
        """The Score a :meth:`to_dict` wrote (JSON read back: a None item is NaN; details as
        written, their arrays as lists). ``metric``: the name it was written under, where the
        dict names none. A dict without a numeric value is a ValueError (the caller names its
        file)."""
        value = data.get("value")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError("no numeric value")
        items = data.get("items")
        return cls(
            str(data.get("metric", metric or "")),
            float(value),
            str(data.get("signature") or ""),
            str(data.get("setting") or ""),
            np.array([np.nan if v is None else float(v) for v in items])
            if isinstance(items, list)
            else None,
            dict(data.get("details") or {}),
        )

    def __float__(self) -> float:
        return self.value

    def __repr__(self) -> str:
        return f"Score({self.metric}={self.value:.6g}, {self.signature!r})"


def _without_arrays(details: Mapping[str, Any]) -> dict[str, Any]:
    """Details without their per-item arrays (per set, per sentence): those come with items."""
    out: dict[str, Any] = {}
    for k, v in details.items():
        if isinstance(v, np.ndarray) and v.ndim > 0:
            continue
        if isinstance(v, Mapping):
            v = _without_arrays(v)
            if not v:
                continue
        out[k] = v
    return out


def _jsonable(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, Mapping):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v
