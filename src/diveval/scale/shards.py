"""Sharded runs without any engine: score shard i of N anywhere, merge the shard files later.

Shard i/N is the i-th of N consecutive blocks of the input's items (sets in the sets setting,
texts in the corpus setting), so shards need no coordination and their order is the input's.
A shard file holds, per metric, what the merge needs:

* sets setting: the shard's per-set Score (every sets metric is per set), joined by
  :func:`diveval.scale.combine.join_set_scores`;
* corpus setting: a mergeable state (:class:`~diveval.scale.states.NgramState`) for Distinct-n,
  avg-distinct and EAD-n; the ``ref-*`` metrics scored item by item (a max or mean reduction) are
  joined like sets. Corpus metrics without a one-pass mergeable form (Self-BLEU needs two passes,
  Vendi every text at once, corpus BLEU its pooled statistics) are refused with the
  alternatives, never computed on a part and passed off as the whole.

Options with one value per item (references, reference groups) are sliced with the items.

Files are ``.npz`` with a JSON header (no pickle). The merged Scores equal the one-process run's,
value and signature.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from ..errors import InputError
from ..results import SETS, Score
from .combine import join_set_scores, per_item_options
from .states import STATE_FORMAT, NgramState, ngram_metric


def parse_shard(text: str) -> tuple[int, int]:
    """``"i/N"`` (0 <= i < N) -> (i, N)."""
    m = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", str(text))
    if not m or int(m.group(2)) < 1 or int(m.group(1)) >= int(m.group(2)):
        raise InputError(f"--shard takes i/N with 0 <= i < N (e.g. 0/4), got {text!r}")
    return int(m.group(1)), int(m.group(2))


def shard_slice(n_items: int, index: int, count: int) -> slice:
    """The i-th of ``count`` consecutive blocks of n_items (sizes differ by at most one)."""
    return slice(index * n_items // count, (index + 1) * n_items // count)


def mergeable_in_one_pass(name: str) -> bool:
    """Whether a metric's corpus setting can be sharded or streamed (one pass, then merged)."""
    return ngram_metric(name) is not None


class ShardResult:
    """One shard's contribution to every metric of a run."""

    def __init__(self, setting: str, shard: tuple[int, int], n_items: int, options: dict):
        self.setting, self.shard, self.n_items = setting, shard, n_items
        self.options = options  # the options that change corpus results (tokenizer, vocab)
        self.set_scores: dict[str, Score] = {}
        self.ngram_metrics: dict[str, tuple[str, int]] = {}
        self.ngrams: NgramState | None = None
        self.names: list[str] = []  # the run's metrics, in order

    # -- files ---------------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        arrays: dict[str, Any] = {}
        scores = {}
        for name, s in self.set_scores.items():
            arrays[f"items::{name}"] = np.asarray(s.items)
            scores[name] = {
                "metric": s.metric,
                "signature": s.signature,
                "setting": s.setting,
                "details": _encode(dict(s.details), arrays, f"details::{name}"),
            }
        header = {
            "format": STATE_FORMAT,
            "kind": "shard",
            "setting": self.setting,
            "shard": list(self.shard),
            "n_items": self.n_items,
            "options": self.options,
            "set_scores": scores,
            "ngram_metrics": self.ngram_metrics,
            "names": self.names,
        }
        if self.ngrams is not None:
            header["ngrams"] = {
                **self.ngrams.settings(),
                "n_texts": self.ngrams.n_texts,
                "totals": {str(n): t for n, t in self.ngrams.totals.items()},
            }
            for n in self.ngrams.orders:
                arrays[f"keys::{n}"] = self.ngrams.keys(n)
        with open(path, "wb") as fh:
            np.savez(fh, header=np.array(json.dumps(header)), **arrays)

    @classmethod
    def load(cls, path: str | Path) -> ShardResult:
        try:
            with np.load(path, allow_pickle=False) as data:
                header = json.loads(str(data["header"]))
                if header.get("format") != STATE_FORMAT or header.get("kind") != "shard":
                    raise InputError(
                        f"{path}: not a shard file of this diveval (format "
                        f"{header.get('format')!r}, kind {header.get('kind')!r})"
                    )
                out = cls(
                    header["setting"], tuple(header["shard"]), header["n_items"], header["options"]
                )
                for name, s in header["set_scores"].items():
                    items = np.asarray(data[f"items::{name}"])
                    details = _decode(s["details"], data)
                    out.set_scores[name] = Score(
                        s["metric"],
                        float(items.mean()),
                        s["signature"],
                        s["setting"],
                        items,
                        details,
                    )
                out.names = list(header["names"])
                out.ngram_metrics = {
                    k: (v[0], int(v[1])) for k, v in header["ngram_metrics"].items()
                }
                if "ngrams" in header:
                    g = header["ngrams"]
                    state = NgramState(g["orders"], g["tokenizer"], g["lowercase"])
                    state.n_texts = int(g["n_texts"])
                    for n in state.orders:
                        state.totals[n] = int(g["totals"][str(n)])
                        state._keys[n] = np.asarray(data[f"keys::{n}"], dtype=np.uint64)
                    out.ngrams = state
        except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError) as exc:
            raise InputError(f"{path}: not a diveval shard file ({exc})") from None
        return out


def _encode(value: Any, arrays: dict[str, Any], key: str) -> Any:
    """JSON for details, arrays stored beside it (tagged, so they come back as arrays)."""
    if isinstance(value, np.ndarray):
        arrays[key] = value
        return {"__array__": key}
    if isinstance(value, dict):
        return {k: _encode(v, arrays, f"{key}::{k}") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_encode(v, arrays, f"{key}::{i}") for i, v in enumerate(value)]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _decode(value: Any, data: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"__array__"}:
            return np.asarray(data[value["__array__"]])
        return {k: _decode(v, data) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v, data) for v in value]
    return value


def score_shard(
    data: Any, metrics: Iterable[str] | None, shard: tuple[int, int], **options: Any
) -> ShardResult:
    """Score shard ``(i, N)`` of ``data`` for a later :func:`merge_shards`."""
    from ..api import score
    from ..data import as_setting
    from ..registry import default_metrics, get_metric

    setting, items = as_setting(data)
    names = list(metrics) if metrics is not None else default_metrics(setting)
    for n in names:
        get_metric(n)  # unknown names fail before any work
    index, count = shard
    span = shard_slice(len(items), index, count)
    part = items[span]
    options = per_item_options(options, span)
    kept = {
        k: options[k] for k in ("tokenizer", "lowercase", "vocab") if options.get(k) is not None
    }
    out = ShardResult(setting, (index, count), len(items), kept)
    if setting == SETS:
        if part:
            out.set_scores = score(part, names, **options)
        out.names = names
        return out
    pooled_bleu = options.get("reduction") in (None, "multi")  # corpus BLEU pools statistics
    by_item = [
        n for n in names if n.startswith("ref-") and not (n.startswith("ref-bleu") and pooled_bleu)
    ]
    if by_item and part:
        out.set_scores = score(part, by_item, **options)
    refused = [n for n in names if ngram_metric(n) is None and n not in by_item]
    if refused:
        raise InputError(
            f"{', '.join(refused)}: no one-pass mergeable form in the corpus setting; run "
            "without --shard, or use engine='ray' (Self-BLEU in two passes) or the API "
            "(diveval.scale.SelfBleuState)"
        )
    tokenizer = options.get("tokenizer") or "whitespace"
    if not isinstance(tokenizer, str):
        raise InputError("a sharded run names its tokenizer (a string)")
    out.ngram_metrics = {n: o for n in names if (o := ngram_metric(n)) is not None}
    orders = {o[1] for o in out.ngram_metrics.values() if o[0] != "avg-distinct"}
    if any(o[0] == "avg-distinct" for o in out.ngram_metrics.values()):
        orders |= {1, 2, 3, 4, 5}
    if orders:
        out.ngrams = NgramState(sorted(orders), tokenizer, bool(options.get("lowercase")))
        out.ngrams.update(part)
    out.names = names
    return out


def merge_shards(shards: Sequence[ShardResult]) -> dict[str, Score]:
    """The run's Scores from all N shards of it (in any order)."""
    if not shards:
        raise InputError("no shard files to merge")
    first = shards[0]
    count = first.shard[1]
    seen = sorted(s.shard[0] for s in shards)
    for s in shards:
        if (s.setting, s.shard[1], s.n_items, s.options) != (
            first.setting,
            count,
            first.n_items,
            first.options,
        ):
            raise InputError(
                "shard files come from different runs (setting, shard count, input size or "
                "options differ)"
            )
    if seen != list(range(count)):
        missing = sorted(set(range(count)) - set(seen))
        dup = sorted({i for i in seen if seen.count(i) > 1})
        raise InputError(
            f"need each of the {count} shards once: "
            + (f"missing {', '.join(f'{i}/{count}' for i in missing)}" if missing else "")
            + (f"; repeated {', '.join(f'{i}/{count}' for i in dup)}" if dup else "")
        )
    ordered = sorted(shards, key=lambda s: s.shard[0])
    out: dict[str, Score] = {}
    for name in first.names:
        parts = [s.set_scores[name] for s in ordered if name in s.set_scores]
        if parts:  # per-set metrics, and corpus metrics scored item by item
            out[name] = join_set_scores(parts)
    states = [s.ngrams for s in ordered if s.ngrams is not None]
    if states:
        state = states[0].merge(*states[1:])
        vocab = first.options.get("vocab", 30522)
        for name, (metric, n) in first.ngram_metrics.items():
            out[name] = state.result(metric, n=n, vocab=vocab).with_metric(name)
    return {name: out[name] for name in first.names if name in out}
