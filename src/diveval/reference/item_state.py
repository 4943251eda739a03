"""The state of a corpus metric scored item by item against each item's references (the ``ref-*``
rows): a part's Score holds one value per item, so parts join in input order; pooled corpus BLEU
(reduction "multi") also adds up its BLEU statistics, since its headline pools them (the mean of
the items would differ)."""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from ..errors import InputError
from ..registry import PER_ITEM_OPTIONS, get_metric
from ..results import Score
from ..state import (
    CAT,
    LAST,
    PADDED_SUM,
    SUM,
    DeclaredState,
    Reduction,
    SummedStats,
    Units,
    join_scores,
    present,
)
from ..text.bleu import BleuStats, last_segment_p5, segment_stats
from ..text.tokenizers import options_tokenizer
from .multiref import check_references, pooled_bleu_stats, pooled_bleu_value


class ItemScoresState(DeclaredState):
    """The Scores of consecutive parts of a corpus for the registered metric ``name``: each
    ``update`` scores its batch with the options of the batch's items (the per-item options,
    references, are given for the whole input this state sees and sliced as batches come).

    Settings: ``name`` and the run-wide ``options`` (lowercase, reduction, smoothing...: two
    parts scored with other choices must not merge into one number); per-item options and model
    objects are input, not settings (models are named in the parts' signatures). Field:
    ``parts``, the Scores in input order (concatenated); before they are read they are joined
    into one, so a file holds one Score of its items."""

    kind: ClassVar[str] = "item-scores"
    SETTINGS = ("name", "options")
    FIELDS: ClassVar[Mapping[str, Reduction]] = {"parts": CAT}

    def __init__(self, name: str, options: Mapping[str, Any] | None = None):
        self.name = name
        self._given = dict(options or {})
        self.options = {
            k: v
            for k, v in sorted(self._given.items())
            if k not in PER_ITEM_OPTIONS and k != "progress" and isinstance(v, (str, int, float))
        }
        self.seen = 0  # items already scored: where the next batch's per-item options start
        self.parts: list[Score] = []

    @property
    def item_mean(self) -> bool:
        """Whether the value is the mean of independent per-item values, each reading only its
        response and its references: so a paired test may difference it prompt by prompt."""
        return True

    def _batch_options(self, size: int) -> dict[str, Any]:
        out = dict(self._given)
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

    def _settle(self) -> None:
        if len(self.parts) > 1:
            self.parts = [join_scores(self.parts, per_item=True)]

    def result(self) -> Score:
        joined = self._joined()
        if joined is None:
            raise InputError(f"{self.name}: no item was scored")
        return joined


def signature_fields(signature: str) -> dict[str, str]:
    """The ``key:value`` fields of a Score's signature (after the metric's name)."""
    return dict(f.split(":", 1) for f in signature.split("|")[1:] if ":" in f)


class PooledBleuState(ItemScoresState):
    """``ref-bleu-n``: items as :class:`ItemScoresState`; with reduction "multi" (its default) the
    headline is corpus BLEU from the summed statistics (the fields of
    :class:`~diveval.text.bleu.BleuStats`: per-order ``matches``, ``totals``, ``empty`` and the
    numbers ``hyp_len``, ``ref_len``, ``segments``), with the 5-gram precision ``p5`` of the last
    item (nltk's method5/method7 read the last segment's) and the ``smoothing`` its Score names."""

    kind: ClassVar[str] = "pooled-bleu"
    FIELDS = {
        "parts": CAT,
        **dict.fromkeys(("matches", "totals", "empty"), PADDED_SUM),
        **dict.fromkeys(("hyp_len", "ref_len", "segments"), SUM),
        "p5": present(LAST),
        "smoothing": present(LAST),
    }

    def __init__(self, name: str, options: Mapping[str, Any] | None = None):
        super().__init__(name, options)
        self.matches = self.totals = self.empty = np.zeros(0, np.int64)
        self.hyp_len = self.ref_len = self.segments = 0
        self.p5: list[int] | None = None
        self.smoothing: Any = None

    def _pooled(self) -> bool:
        return self.options.get("reduction", "multi") == "multi"

    @property
    def item_mean(self) -> bool:
        """Whether the value is the mean of independent per-item values (reductions max and
        mean); the pooled headline (multi, the default) is not."""
        return not self._pooled()

    def unit_statistics(self, units: Units) -> SummedStats | None:
        """Pooled (corpus) multi-reference BLEU-n on weighted sums of units (one response each,
        with its own references): matches, n-gram totals, empty orders, hypothesis and closest
        reference lengths add over units; the order and the smoothing are the scored run's,
        read from its signature as :meth:`_add` reads a part's. nltk's method5/method7 also
        read the 5-gram precision of the corpus's last item: the last unit a row holds. None
        for the per-item reductions (:attr:`item_mean`)."""
        if not self._pooled():
            return None
        fields = signature_fields(units.signature)
        n, smoothing = int(fields["n"]), fields["smooth"]
        tok = options_tokenizer(self.options)
        hyps = tok.tokenize_many(list(units.texts))
        r_toks = [tok.tokenize_many(list(r)) for r in units.references]
        need5 = smoothing in ("method5", "method7")
        rows = []
        for h, rs in zip(hyps, r_toks):
            st = segment_stats(h, rs, n)
            p5 = last_segment_p5([h], [rs]) if need5 else (0, 0)
            rows.append([*st.matches, *st.totals, *st.empty, st.hyp_len, st.ref_len, *p5])
        stats = np.array(rows, dtype=float).reshape(len(units.texts), 3 * n + 4)

        def finish(sums: np.ndarray, held: np.ndarray) -> np.ndarray:
            last = held.shape[1] - 1 - np.argmax(held[:, ::-1], axis=1)  # the row's last unit
            out = np.empty(sums.shape[0])
            for r, s in enumerate(sums.astype(np.int64)):
                total = BleuStats(
                    tuple(s[:n]),
                    tuple(s[n : 2 * n]),
                    tuple(s[2 * n : 3 * n]),
                    s[3 * n],
                    s[3 * n + 1],
                )
                p5 = (
                    (int(stats[last[r], 3 * n + 2]), int(stats[last[r], 3 * n + 3]))
                    if need5
                    else None
                )
                out[r] = pooled_bleu_value(total, p5, n, smoothing)
            return out

        return SummedStats(stats, finish)

    def _add(self, batch: list, options: dict[str, Any]) -> None:
        if not self._pooled():
            return
        # the order and the smoothing the part's Score was computed with (its signature names it)
        fields = signature_fields(self.parts[-1].signature)
        tok = options_tokenizer(options)
        hyps, refs = check_references(batch, options.get("references"))
        r_toks = [tok.tokenize_many(r) for r in refs]
        stats, p5 = pooled_bleu_stats(tok.tokenize_many(hyps), r_toks, int(fields["n"]))
        for name in ("matches", "totals", "empty"):
            value = np.asarray(getattr(stats, name), dtype=np.int64)
            setattr(self, name, PADDED_SUM.combine([getattr(self, name), value]))
        self.hyp_len += stats.hyp_len
        self.ref_len += stats.ref_len
        self.segments += stats.segments
        self.p5 = None if p5 is None else [int(x) for x in p5]
        self.smoothing = fields["smooth"]

    def _headline(self) -> float | None:
        if not self.segments:
            return None
        matches, totals, empty = (
            tuple(int(x) for x in getattr(self, k)) for k in ("matches", "totals", "empty")
        )
        total = BleuStats(
            matches, totals, empty, int(self.hyp_len), int(self.ref_len), int(self.segments)
        )
        p5 = None if self.p5 is None else (int(self.p5[0]), int(self.p5[1]))
        return pooled_bleu_value(total, p5, total.max_n, self.smoothing)


def item_scores_state(name: str, pooled_bleu: bool = False):
    """The state factory of a ``ref-*`` row: ``options -> state``."""

    def make(options: dict[str, Any]) -> ItemScoresState:
        return (PooledBleuState if pooled_bleu else ItemScoresState)(name, options)

    return make
