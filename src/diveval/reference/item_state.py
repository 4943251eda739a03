"""The state of a corpus metric scored item by item against each item's references (the ``ref-*``
rows): a part's Score holds one value per item, so parts join in input order; pooled corpus BLEU
(reduction "multi") also adds up its BLEU statistics, since its headline pools them (the mean of
the items would differ)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence

from ..errors import InputError
from ..registry import PER_ITEM_OPTIONS, get_metric
from ..results import Score
from ..state import check_mergeable, join_scores
from ..state_files import decode_score, encode_score, load_state, save_state


class ItemScoresState:
    """The Scores of consecutive parts of a corpus for the registered metric ``name``: each
    ``update`` scores its batch with the options of the batch's items (the per-item options,
    references, are given for the whole input this state sees and sliced as batches come)."""

    kind: ClassVar[str] = "item-scores"

    def __init__(self, name: str, options: Mapping[str, Any] | None = None):
        self.name = name
        self.options = dict(options or {})
        self.seen = 0  # items already scored: where the next batch's per-item options start
        self.parts: list[Score] = []

    def settings(self) -> dict[str, Any]:
        # the run-wide choices (lowercase, reduction, smoothing...): two parts scored with other
        # choices must not merge into one number; per-item options and model objects are not
        # settings (models are named in the parts' signatures)
        chosen = {
            k: v
            for k, v in sorted(self.options.items())
            if k not in PER_ITEM_OPTIONS and k != "progress" and isinstance(v, (str, int, float))
        }
        return {"kind": self.kind, "name": self.name, "options": chosen}

    def _batch_options(self, size: int) -> dict[str, Any]:
        out = dict(self.options)
        for key in PER_ITEM_OPTIONS:
            if out.get(key) is not None:
                out[key] = list(out[key])[self.seen : self.seen + size]
        return out

    def update(self, batch: Sequence[Any]) -> None:
        batch = list(batch)
        if not batch:
            return
        options = self._batch_options(len(batch))
        self.parts.append(get_metric(self.name)(batch, **options))
        self._add(batch, options)
        self.seen += len(batch)

    def _add(self, batch: list, options: dict[str, Any]) -> None:
        """What a subclass adds up beside the Scores."""

    def _joined(self) -> Score | None:
        return join_scores(self.parts, self._headline(), per_item=True) if self.parts else None

    def _headline(self) -> float | None:
        return None

    def merge(self, *others: ItemScoresState) -> ItemScoresState:
        check_mergeable(self, others)
        out = type(self)(self.name, self.options)
        for state in (self, *others):
            out.parts += state.parts
            out._absorb(state)
        return out

    def _absorb(self, other: ItemScoresState) -> None:
        """A subclass merges its sums here."""

    def result(self) -> Score:
        joined = self._joined()
        if joined is None:
            raise InputError(f"{self.name}: no item was scored")
        return joined

    def dump(self) -> tuple[dict[str, Any], dict[str, Any]]:
        # the parts are joined once: a file holds one Score of its items
        arrays: dict[str, Any] = {}
        joined = self._joined()
        header = {"score": None if joined is None else encode_score(joined, arrays, "part")}
        return header, arrays

    @classmethod
    def restore(cls, header: dict[str, Any], data: Mapping[str, Any]) -> ItemScoresState:
        state = cls(header["name"], header.get("options"))
        if header["score"] is not None:
            state.parts = [decode_score(header["score"], data, "part")]
        return state

    def save(self, path: str | Path) -> None:
        save_state(path, self, *self.dump())

    @classmethod
    def load(cls, path: str | Path) -> ItemScoresState:
        return load_state(path, cls.kind, cls.restore)


class PooledBleuState(ItemScoresState):
    """``ref-bleu-n``: items as :class:`ItemScoresState`; with reduction "multi" (its default) the
    headline is corpus BLEU from the summed statistics, with the 5-gram precision of the last item
    (nltk's method5/method7 read the last segment's)."""

    kind: ClassVar[str] = "pooled-bleu"

    def __init__(self, name: str, options: Mapping[str, Any] | None = None):
        super().__init__(name, options)
        self.stats: dict[str, Any] | None = None  # BleuStats as a dict
        self.p5: list[int] | None = None
        self.smoothing: Any = None

    def _pooled(self) -> bool:
        return self.options.get("reduction", "multi") == "multi"

    def _add(self, batch: list, options: dict[str, Any]) -> None:
        from ..text.tokenizers import get_tokenizer
        from .multiref import check_references, pooled_bleu_stats

        if not self._pooled():
            return
        # the order and the smoothing the part's Score was computed with (its signature names it)
        fields = dict(f.split(":", 1) for f in self.parts[-1].signature.split("|")[1:])
        tok = get_tokenizer(
            options.get("tokenizer") or "whitespace", bool(options.get("lowercase"))
        )
        hyps, refs = check_references(batch, options.get("references"))
        r_toks = [tok.tokenize_many(r) for r in refs]
        stats, p5 = pooled_bleu_stats(tok.tokenize_many(hyps), r_toks, int(fields["n"]))
        if self.stats is not None:
            stats = _stats(self.stats) + stats
        self.stats = dataclasses.asdict(stats)
        self.p5 = None if p5 is None else list(p5)
        self.smoothing = fields["smooth"]

    def _absorb(self, other: ItemScoresState) -> None:
        assert isinstance(other, PooledBleuState)
        if other.stats is None:
            return
        total = (
            _stats(other.stats) if self.stats is None else _stats(self.stats) + _stats(other.stats)
        )
        self.stats = dataclasses.asdict(total)
        self.p5, self.smoothing = other.p5, other.smoothing  # the last part's last item

    def _headline(self) -> float | None:
        from .multiref import pooled_bleu_value

        if self.stats is None:
            return None
        total = _stats(self.stats)
        p5 = None if self.p5 is None else (int(self.p5[0]), int(self.p5[1]))
        return pooled_bleu_value(total, p5, total.max_n, self.smoothing)

    def dump(self) -> tuple[dict[str, Any], dict[str, Any]]:
        header, arrays = super().dump()
        header.update({"stats": self.stats, "p5": self.p5, "smoothing": self.smoothing})
        return header, arrays

    @classmethod
    def restore(cls, header: dict[str, Any], data: Mapping[str, Any]) -> PooledBleuState:
        state = super().restore(header, data)
        assert isinstance(state, PooledBleuState)
        state.stats, state.p5, state.smoothing = header["stats"], header["p5"], header["smoothing"]
        return state


def _stats(d: Mapping[str, Any]) -> Any:
    from ..text.bleu import BleuStats

    orders = (tuple(d["matches"]), tuple(d["totals"]), tuple(d["empty"]))
    return BleuStats(*orders, int(d["hyp_len"]), int(d["ref_len"]), int(d["segments"]))


def item_scores_state(name: str, pooled_bleu: bool = False):
    """The state factory of a ``ref-*`` row: ``options -> state``."""

    def make(options: dict[str, Any]) -> ItemScoresState:
        return (PooledBleuState if pooled_bleu else ItemScoresState)(name, options)

    return make
