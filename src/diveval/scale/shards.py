"""Sharded runs without any engine: score shard i of N anywhere, merge the shard files later.

Shard i/N is the i-th of N consecutive blocks of the input's items (sets in the sets setting,
texts in the corpus setting), so shards need no coordination and their order is the input's.
A shard file holds, per metric, what the merge needs:

* sets setting: the shard's per-set Score (every sets metric is per set), joined by
  :func:`diveval.state.join_scores`;
* corpus setting: the state the metric's row names (``Metric.state``, :mod:`diveval.state`),
  updated with the shard's texts; the merge merges the shards' states in shard order and asks the
  merged state for the Score (a two-pass state carries what its second pass needs). A corpus
  metric whose row names no state is refused with the alternatives, never computed on a part and
  passed off as the whole.

Options with one value per item (references, reference groups) are sliced with the items.

Files are ``.npz`` with a JSON header (no pickle). The merged Scores equal the one-process run's,
value and signature.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..data import as_setting
from ..errors import InputError
from ..registry import check_options, default_metrics, get_metric
from ..results import SETS, Score
from ..state_files import (
    decode_tree,
    encode_state,
    encode_tree,
    load_state,
    save_state,
    state_arrays,
)
from .combine import join_set_scores, per_item_options
from .local import score


def parse_shard(text: str) -> tuple[int, int]:
    """``"i/N"`` (0 <= i < N) -> (i, N)."""
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", str(text))
    if not m or int(m.group(2)) < 1 or int(m.group(1)) >= int(m.group(2)):
        raise InputError(f"--shard takes i/N with 0 <= i < N (e.g. 0/4), got {text!r}")
    return int(m.group(1)), int(m.group(2))


def shard_slice(n_items: int, index: int, count: int) -> slice:
    """The i-th of ``count`` consecutive blocks of n_items (sizes differ by at most one)."""
    return slice(index * n_items // count, (index + 1) * n_items // count)


def shardable(name: str) -> bool:
    """Whether a metric's corpus setting can be sharded: its row names a state."""
    return get_metric(name).state is not None


class ShardResult:
    """One shard's contribution to every metric of a run."""

    def __init__(self, setting: str, shard: tuple[int, int], n_items: int, options: dict):
        self.setting, self.shard, self.n_items = setting, shard, n_items
        self.options = options  # the options that change corpus results (tokenizer, vocab)
        self.set_scores: dict[str, Score] = {}
        self.states: dict[str, Any] = {}  # corpus setting: each metric's state of this shard
        self.names: list[str] = []  # the run's metrics, in order
        self.source = ""  # the file it was read from, to name it in a refusal

    def label(self) -> str:
        """``shard 1/2 (b.state)``: how a refusal names this shard."""
        where = f" ({self.source})" if self.source else ""
        return f"shard {self.shard[0]}/{self.shard[1]}{where}"

    def metric_settings(self, name: str) -> Any:
        """What fixes metric ``name``'s value besides the items: its per-set Score's signature
        (every choice of the run), or its corpus state's settings."""
        if name in self.set_scores:
            return self.set_scores[name].signature
        if name in self.states:
            return self.states[name].settings()
        return None

    # -- files ---------------------------------------------------------------------------------
    def settings(self) -> dict[str, Any]:
        return {"kind": "shard"}

    def save(self, path: str | Path) -> None:
        arrays: dict[str, Any] = {}
        header = {
            "setting": self.setting,
            "shard": list(self.shard),
            "n_items": self.n_items,
            "options": self.options,
            "set_scores": encode_tree(self.set_scores, arrays, "set_scores"),
            "states": {
                name: encode_state(state, arrays, f"state::{name}")
                for name, state in self.states.items()
            },
            "names": self.names,
        }
        save_state(path, self, header, arrays)

    @classmethod
    def load(cls, path: str | Path) -> ShardResult:
        def build(header: dict[str, Any], data: Any) -> ShardResult:
            out = cls(
                header["setting"], tuple(header["shard"]), header["n_items"], header["options"]
            )
            out.set_scores = decode_tree(header["set_scores"], data)
            out.names = list(header["names"])
            out.source = str(path)
            for name, h in header["states"].items():
                arrays = state_arrays(data, f"state::{name}")
                out.states[name] = _restore(name, h, arrays, out.options)
            return out

        return load_state(path, "shard", build, what="shard")


def _restore(name: str, header: dict, arrays: dict, options: dict) -> Any:
    """The state of metric ``name`` from a shard file: of the class its row's factory makes."""
    fresh = get_metric(name).make_state(options)
    if fresh is None or header.get("kind") != fresh.kind:
        raise InputError(f"{name}: the shard file holds no state of this diveval's {name}")
    return type(fresh).restore(header, arrays)


def score_shard(
    data: Any, metrics: Iterable[str] | None, shard: tuple[int, int], **options: Any
) -> ShardResult:
    """Score shard ``(i, N)`` of ``data`` for a later :func:`merge_shards`."""
    setting, items = as_setting(data)
    names = list(metrics) if metrics is not None else default_metrics(setting)
    for n in names:
        get_metric(n)  # unknown names fail before any work
    index, count = shard
    span = shard_slice(len(items), index, count)
    return score_part(
        setting, items[span], names, per_item_options(options, span), shard, len(items)
    )


def score_part(
    setting: str,
    part: list,
    names: list[str],
    options: dict[str, Any],
    shard: tuple[int, int],
    n_items: int,
) -> ShardResult:
    """The ShardResult of ``part`` (shard ``shard`` of an input of ``n_items`` items), its
    per-item options already sliced: what a shard process or a Ray task computes."""
    kept = {
        k: options[k] for k in ("tokenizer", "lowercase", "vocab") if options.get(k) is not None
    }
    out = ShardResult(setting, shard, n_items, kept)
    out.names = names
    if setting == SETS:
        if part:
            out.set_scores = score(part, names, **options)
        return out
    rows = [get_metric(n) for n in names]
    check_options(options, rows)
    refused = [m.name for m in rows if m.state is None]
    if refused:
        raise InputError(
            f"{', '.join(refused)}: no mergeable state in the corpus setting; run without "
            "--shard, or use engine='ray' (one task on the whole input)"
        )
    for metric in rows:
        state = metric.make_state(options)
        if part:
            state.update(part)
        out.states[metric.name] = state
    return out


def _check_same_run(shards: Sequence[ShardResult]) -> None:
    """Refuse shards scored with different metrics or settings, naming the metric (or option)
    and the shards: merging them would drop a metric or mix two runs' numbers without a word."""
    first = shards[0]
    for s in shards[1:]:
        for name in first.names:
            if name not in s.names:
                raise InputError(
                    f"{name} is in {first.label()} but not in {s.label()}: the shards were "
                    "scored with different --metric lists; score every shard with the same ones"
                )
        for name in s.names:
            if name not in first.names:
                raise InputError(
                    f"{name} is in {s.label()} but not in {first.label()}: the shards were "
                    "scored with different --metric lists; score every shard with the same ones"
                )
        for option in sorted(set(first.options) | set(s.options)):
            if first.options.get(option) != s.options.get(option):
                raise InputError(
                    f"--{option} differs between {first.label()} "
                    f"({first.options.get(option)!r}) and {s.label()} "
                    f"({s.options.get(option)!r}); score every shard with the same settings"
                )
        for name in first.names:
            mine, theirs = first.metric_settings(name), s.metric_settings(name)
            if mine is not None and theirs is not None and mine != theirs:
                raise InputError(
                    f"{name} was scored with different settings in {first.label()} ({mine}) "
                    f"and {s.label()} ({theirs}); score every shard with the same settings"
                )


def merge_shards(shards: Sequence[ShardResult]) -> dict[str, Score]:
    """The run's Scores from all N shards of it (in any order)."""
    if not shards:
        raise InputError("no shard files to merge")
    first = shards[0]
    count = first.shard[1]
    seen = sorted(s.shard[0] for s in shards)
    for s in shards:
        if (s.setting, s.shard[1], s.n_items) != (first.setting, count, first.n_items):
            raise InputError(
                f"{s.label()} and {first.label()} come from different runs (setting, shard "
                "count or input size differ)"
            )
    _check_same_run(shards)
    if seen != list(range(count)):
        missing = sorted(set(range(count)) - set(seen))
        problems = [f"missing {', '.join(f'{i}/{count}' for i in missing)}"] if missing else []
        for i in sorted({i for i in seen if seen.count(i) > 1}):
            times = seen.count(i)
            problems.append(
                f"shard {i}/{count} given {'twice' if times == 2 else f'{times} times'}"
            )
        raise InputError(f"need each of the {count} shards once: {'; '.join(problems)}")
    ordered = sorted(shards, key=lambda s: s.shard[0])
    out: dict[str, Score] = {}
    for name in first.names:
        parts = [s.set_scores[name] for s in ordered if name in s.set_scores]
        if parts:  # per-set metrics
            out[name] = join_set_scores(parts)
        states = [s.states[name] for s in ordered if name in s.states]
        if states:  # corpus metrics: the states merged in input order
            out[name] = states[0].merge(*states[1:]).result().with_metric(name)
    return {name: out[name] for name in first.names if name in out}
