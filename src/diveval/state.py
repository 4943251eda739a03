"""What a metric's state promises the engines, so that they never need the metric's name.

A registered :class:`~diveval.registry.Metric` may name a *state factory* (``Metric.state``:
options -> state) and the number of passes it needs (``Metric.passes``). Every engine (shard files,
streaming, Ray) then splits the input, feeds each part to a fresh state, merges the states and
asks the merged one for the Score; the numbers cannot differ from one process because the same
state code produces them.

One pass (:class:`MetricState`): ``update(batch)`` adds a batch of items (texts of a corpus),
``merge(*others)`` gives the state of the union (in the order given: per-item values keep the
input's order), ``result()`` the Score. States are saved as versioned ``.npz`` files (a JSON header
and arrays, never a pickle: :mod:`diveval.state_files`) through ``dump`` / ``restore``; Ray ships
them between its own processes by pickling, which is Ray's business, not a file.

Two passes (:class:`TwoPassState`): pass 1 summarises every part (``update``; the state also keeps
what pass 2 needs of its own items, so shard files work with the same two commands); after the
merge, ``result()`` runs pass 2 over the items the states kept. An engine that runs pass 2 where
the items are (Ray) ships ``summary()`` (the merged summary without the items) to the workers,
collects ``score(batch)`` per batch and finishes with ``result(values)``.

Bounded memory (optional): ``bounded(plan)`` returns a state that keeps at most about
``plan.memory`` bytes in memory (spilling to disk or sketching); a state without it is used as it
is by the streaming engine.

A state is written as a declaration (:class:`DeclaredState`: its settings, its fields and the
reduction of each), from which ``settings``, ``merge``, ``dump``, ``restore``, ``save`` and
``load`` follow, and from which other aggregators (a torchmetrics Metric, a Ray Data aggregation)
build their own states. Only a bounded state whose keys live in spill files or sketches (the
streamed n-gram counts) is written by hand: it is never merged or saved.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Mapping, Optional, Protocol, Sequence

import numpy as np

from .errors import InputError
from .results import SETS, Score
from .sorted_sets import union_sorted
from .state_files import decode_tree, encode_tree, load_state, save_state


class MetricState(Protocol):
    """A mergeable one-pass state (see the module docstring)."""

    kind: ClassVar[str]

    def settings(self) -> dict[str, Any]: ...

    def update(self, batch: Sequence[Any]) -> Any: ...

    def merge(self, *others: Any) -> Any: ...

    def result(self) -> Score: ...

    def dump(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """(JSON-able header fields beyond ``settings()``, named numpy arrays)."""
        ...

    @classmethod
    def restore(cls, header: dict[str, Any], data: Mapping[str, Any]) -> Any: ...

    def save(self, path: str | Path) -> None: ...

    @classmethod
    def load(cls, path: str | Path) -> Any: ...


class TwoPassState(MetricState, Protocol):
    """A state whose metric needs a second pass over the items (see the module docstring)."""

    def summary(self) -> Any: ...

    def score(self, batch: Sequence[Any]) -> np.ndarray: ...

    def result(self, values: Optional[np.ndarray] = None) -> Score: ...


@dataclass(frozen=True)
class StreamPlan:
    """How a streamed state may use memory: ``memory`` bytes in all, an input of about
    ``size_hint`` bytes, ``approx`` ("hll" or None) with ``lg_k``, spill files under ``spill_dir``."""

    memory: int
    size_hint: Optional[int] = None
    approx: Optional[str] = None
    lg_k: int = 14
    spill_dir: Optional[str] = None


def check_mergeable(state: Any, others: Sequence[Any]) -> None:
    """Refuse to merge states of another class or other settings (a shard of another run)."""
    for other in others:
        if type(other) is not type(state) or other.settings() != state.settings():
            theirs = other.settings() if hasattr(other, "settings") else type(other).__name__
            raise InputError(
                f"cannot merge states of different settings: {state.settings()} and {theirs}"
            )


# -- per-item Scores, joined in input order ---------------------------------------------------------
# The details of consecutive parts are joined by one rule: arrays (one entry per set or per
# response) are concatenated, integer counts added, dictionaries joined key by key, lists appended
# without repeats, numbers named ``*_mean`` averaged with the parts' sizes as weights and ``*_max``
# / ``*_min`` taken as the max / min; any other value must be the same in every part. A detail that
# only some parts have (a warning) is joined over the parts that have it.


def _join(key: str, values: list[Any], sizes: list[int]) -> Any:
    first = values[0]
    if isinstance(first, (int, float, np.number)) and not isinstance(first, bool):
        if key.endswith("_mean"):
            return float(np.average(np.asarray(values, dtype=float), weights=sizes))
        if key.endswith("_max"):
            return max(values)
        if key.endswith("_min"):
            return min(values)
        if key.endswith("_size"):  # a size the run fixes (EAD's V), not a count to add
            if any(v != first for v in values):
                raise InputError(f"shards disagree on details[{key!r}]")
            return first
    if isinstance(first, np.ndarray):
        return np.concatenate([np.asarray(v) for v in values])
    if isinstance(first, (bool, np.bool_)):
        if any(v != first for v in values):
            raise InputError(f"shards disagree on details[{key!r}]")
        return first
    if isinstance(first, (int, np.integer)):
        return int(sum(values))
    if isinstance(first, Mapping):
        keys = list(first)
        if any(list(v) != keys for v in values):
            raise InputError(f"shards disagree on the keys of details[{key!r}]")
        return {k: _join(f"{key}.{k}", [v[k] for v in values], sizes) for k in keys}
    if isinstance(first, (list, tuple)):
        seen: list[Any] = []
        for v in values:
            seen += [x for x in v if x not in seen]
        return seen
    if any(v != first for v in values):
        raise InputError(f"shards disagree on details[{key!r}]: {first!r} and others")
    return first


def joinable(score: Score) -> bool:
    """Whether a Score is, by its setting alone, the mean of per-item values that depend on their
    item only: every sets metric. A corpus metric scored item by item says so itself (its state
    joins with ``per_item=True``)."""
    return score.items is not None and len(score.items) > 0 and score.setting == SETS


def join_scores(
    parts: Sequence[Score],
    value: float | None = None,
    *,
    per_item: bool = False,
    warnings_rule: Callable[[dict[str, Any], int], list[str]] | None = None,
) -> Score:
    """The Score of all items from the Scores of consecutive parts (in order): per-item values
    concatenated, the headline their mean, or ``value`` where the caller computed a headline that
    is not a mean (pooled corpus BLEU from summed statistics). ``per_item``: the caller vouches
    that its corpus Scores are means of independent per-item values. ``warnings_rule``: where a
    metric's warnings hold figures of the input, they are recomputed from the joined details, so
    the whole input gets the warning one process would give, not one per part:
    ``warnings_rule(joined details, number of items)``."""
    if not parts:
        raise InputError("nothing to join: no shard scores")
    head = parts[0]
    for p in parts:
        independent = per_item and p.items is not None and len(p.items) > 0
        if (
            value is None
            and not (independent or joinable(p))
            or p.items is None
            or not len(p.items)
        ):
            raise InputError(f"{p.metric}: not a mean of per-item values; it cannot be joined")
        if (p.metric, p.signature) != (head.metric, head.signature):
            raise InputError(
                f"cannot join scores of different runs: {head.signature} and {p.signature}"
            )
    items = np.concatenate([np.asarray(p.items) for p in parts])
    sizes = [len(p.items) for p in parts]  # type: ignore[arg-type]  # checked above: items exist
    details: dict[str, Any] = {}
    for key in dict.fromkeys(k for p in parts for k in p.details):
        have = [i for i, p in enumerate(parts) if key in p.details]
        # a detail some parts lack (a warning, a count of what happened in some) joins over the
        # parts that have it; per-item arrays cannot: they would no longer line up with the items
        if len(have) < len(parts) and isinstance(parts[have[0]].details[key], np.ndarray):
            raise InputError(f"shards disagree on details[{key!r}]: missing from some")
        details[key] = _join(key, [parts[i].details[key] for i in have], [sizes[i] for i in have])
    if warnings_rule is not None:
        # given the parts' warnings too (for older files) and the number of items joined
        warnings = warnings_rule(details, len(items))
        details.pop("warnings", None)
        if warnings:
            details["warnings"] = warnings
    headline = float(items.mean()) if value is None else value
    return Score(head.metric, headline, head.signature, head.setting, items, details)


def text_chunks(lines: Any, max_chars: int) -> Any:
    """Consecutive lists of ``lines`` of about ``max_chars`` characters each (the last shorter)."""
    chunk: list[str] = []
    size = 0
    for line in lines:
        chunk.append(line)
        size += len(line)
        if size >= max_chars:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


# -- declared states ---------------------------------------------------------------------------------
# torchmetrics is the model: a state declares its fields and how each combines over parts (its
# reduction); merge, dump, restore, save and load follow from the declaration, and so do the
# states of other aggregators (a torchmetrics Metric's add_state, a Ray Data aggregation), which
# read the same declaration instead of a second implementation.


@dataclass(frozen=True)
class Reduction:
    """How one field's values in consecutive parts combine into the union's value. ``torch``: the
    torchmetrics ``dist_reduce_fx`` with the same meaning where there is one ("sum", "cat",
    "max", "min"); None where the values are gathered as a list and combined by ``combine``."""

    name: str
    combine: Callable[[list[Any]], Any]
    torch: Optional[str] = None


def _sum(values: list[Any]) -> Any:
    out = values[0]
    for v in values[1:]:
        out = out + v
    return out


def _cat(values: list[Any]) -> Any:
    if isinstance(values[0], np.ndarray):
        return np.concatenate(values)
    return [x for v in values for x in v]  # lists (texts kept for a second pass), in order


def _padded_sum(values: list[np.ndarray]) -> np.ndarray:
    size = max(v.size for v in values)
    out = np.zeros(size, dtype=np.result_type(*values))
    for v in values:
        out[: v.size] += v
    return out


SUM = Reduction("sum", _sum, "sum")  # numbers, or arrays of one shape
CAT = Reduction("cat", _cat, "cat")  # per-item arrays or lists, in input order
UNION = Reduction("union", union_sorted, "cat")  # sorted distinct keys (torch gathers, then unique)
MAX = Reduction("max", lambda values: max(values), "max")
MIN = Reduction("min", lambda values: min(values), "min")
PADDED_SUM = Reduction("padded-sum", _padded_sum)  # histograms of different lengths


def _same(values: list[Any]) -> Any:
    for v in values[1:]:
        if not _equal(v, values[0]):
            raise InputError(f"cannot merge parts of different runs: {values[0]!r} and {v!r}")
    return values[0]


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    return bool(a == b)


SAME = Reduction("same", _same)  # a value every part has alike (the model a part found)
LAST = Reduction("last", lambda values: values[-1])  # the last part's (its last item's)


def present(reduction: Reduction) -> Reduction:
    """``reduction`` over the parts that have a value; None where a part has none (it saw no
    item, so it could not know the value, e.g. the dimension of a model it never loaded)."""

    def combine(values: list[Any]) -> Any:
        have = [v for v in values if v is not None]
        return reduction.combine(have) if have else None

    return Reduction(f"present-{reduction.name}", combine)


class DeclaredState:
    """A mergeable state written as a declaration (torchmetrics' ``add_state`` is the model):

    - ``kind``: the name its files carry;
    - ``SETTINGS``: the constructor's arguments that fix the run (their values are the state's
      ``settings()``; states of other settings refuse to merge); each is an attribute of the
      same name, JSON-able;
    - ``FIELDS``: the accumulated fields and their :class:`Reduction`; each is an attribute set by
      ``__init__`` to its empty value: a number, a numpy array (a structured one where columns
      combine together, as a top-2 table's), a list (of Scores too), or None where a part that
      saw no item cannot know the value (:func:`present`). Where the fields depend on the
      settings (one array per n-gram order), ``fields()`` says them instead.

    ``merge``, ``dump``, ``restore``, ``save`` and ``load`` are derived; a subclass writes
    ``__init__``, ``update`` and ``result`` (and ``_restored`` where a restored state rebuilds a
    cache from its fields). A state that defers work inside ``update`` (batches of keys not yet
    folded into its sorted keys) finishes it in ``_settle``; every reader of the fields (merge,
    dump, another aggregator) takes them from :meth:`values`, which settles first.
    ``MERGE_THREADS``: threads over the fields in ``merge`` (numpy's sorts release the GIL)."""

    kind: ClassVar[str]
    SETTINGS: ClassVar[tuple[str, ...]] = ()
    FIELDS: ClassVar[Mapping[str, Reduction]] = {}
    MERGE_THREADS: ClassVar[int] = 1

    def settings(self) -> dict[str, Any]:
        return {"kind": self.kind, **{name: getattr(self, name) for name in self.SETTINGS}}

    def fields(self) -> Mapping[str, Reduction]:
        """The accumulated fields of this state and their reductions."""
        return self.FIELDS

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Any:
        """The state of a run's options (a row's ``state=``): each setting from the option of
        the same name, the constructor's default where the run gives none."""
        return cls(**{k: options[k] for k in cls.SETTINGS if options.get(k) is not None})

    def values(self) -> dict[str, Any]:
        """Each field's full value (after ``_settle``), by name."""
        self._settle()
        return {name: getattr(self, name) for name in self.fields()}

    def _settle(self) -> None:
        """What a subclass finishes before its fields are read."""

    def _like(self, **changes: Any) -> Any:
        """An empty state of the same settings (but ``changes``)."""
        return type(self)(**{**{name: getattr(self, name) for name in self.SETTINGS}, **changes})

    def merge(self, *others: Any) -> Any:
        """A new state for the union of this input and the others' (in the order given); each
        field combined once over all the states, not pairwise."""
        check_mergeable(self, others)
        everyone = [s.values() for s in (self, *others)]
        out = self._like()

        def combine(item: tuple[str, Reduction]) -> Any:
            name, reduction = item
            return reduction.combine([v[name] for v in everyone])

        items = list(self.fields().items())
        if self.MERGE_THREADS > 1 and len(items) > 1:
            with ThreadPoolExecutor(max_workers=self.MERGE_THREADS) as pool:
                combined = list(pool.map(combine, items))
        else:
            combined = [combine(item) for item in items]
        for (name, _), value in zip(items, combined):
            setattr(out, name, value)
        return out

    def dump(self) -> tuple[dict[str, Any], dict[str, Any]]:
        header: dict[str, Any] = {}
        arrays: dict[str, Any] = {}
        for name, value in self.values().items():
            if isinstance(value, np.ndarray) and value.dtype != object:
                arrays[name] = value
            else:  # numbers, lists, Scores: JSON, with any arrays inside stored beside it
                header[name] = encode_tree(value, arrays, name)
        return header, arrays

    @classmethod
    def restore(cls, header: dict[str, Any], data: Mapping[str, Any]) -> Any:
        state = cls(**{name: header[name] for name in cls.SETTINGS})
        for name in state.fields():
            if name in header:
                setattr(state, name, decode_tree(header[name], data))
            else:
                setattr(state, name, np.asarray(data[name]))
        state._restored()
        return state

    def _restored(self) -> None:
        """What a subclass rebuilds from its restored fields."""

    def save(self, path: str | Path) -> None:
        save_state(path, self, *self.dump())

    @classmethod
    def load(cls, path: str | Path) -> Any:
        return load_state(path, cls.kind, cls.restore)


@dataclass(frozen=True)
class Units:
    """What a paired test weighs (``texts``: one response per unit) and what a state may read
    with them: each unit's ``references``, the scored run's ``signature``, and ``shared``, where
    the rows of one comparison keep what they can share (one n-gram table per tokenizer)."""

    texts: Sequence[str]
    references: Sequence[Sequence[str]] = ()
    signature: str = ""
    shared: dict = field(default_factory=dict)


class SummedStats:
    """A corpus value from weighted sums of per-unit statistics, the contract of sacrebleu's paired
    tests: ``stats`` [units, fields] holds each unit's sufficient statistics and ``finish(sums
    [rows, fields], held [rows, units] bool) -> values [rows]`` is the metric's formula over their
    sums. A paired test (``diveval.meta.statistics.compare``) weighs units by how often a resample
    draws them, or moves them between systems (a swap): one matrix product gives every resample's
    sums. States offer it through ``unit_statistics`` (the metric's own module builds it, so the
    formula stays there)."""

    #: Named in the signature of a paired test's row.
    tag = "corpus:summed-stats"

    def __init__(self, stats: np.ndarray, finish: Callable[[np.ndarray, np.ndarray], np.ndarray]):
        self.stats = np.asarray(stats, dtype=float)
        self.finish = finish

    def values(self, weights: np.ndarray, name: str | None = None) -> np.ndarray:
        """The metric of each row of ``weights`` [rows, units] (``name``: unused, for the
        resamplers that share work between the rows of one weight matrix)."""
        w = np.asarray(weights, dtype=float)
        # sums of integer counts below 2**53: exact in float64, whatever the order of the sum
        return self.finish(np.einsum("ru,uf->rf", w, self.stats), w > 0)
