"""Local recall (van Miltenburg et al. 2018) as the GEM benchmark computes it (GEM-metrics'
``local_recall.py``; Gehrmann et al. 2021): one response per item (the corpus setting) with its
references.

Per item, each word of its references gets the number of references that use it, its importance
k; the recall at level k is the words of importance k that the response uses, over all words of
importance k, both summed over the items. The value is the recall at the highest level, the words
that every reference of an item uses (the paper's headline for its 5-reference COCO captions; with
items of different numbers of references, only those with the most count there);
``details["by_level"]`` holds every level, ``details["recalled"]`` and ``details["to_recall"]``
its counts. GEM counts all words (the paper counts content words only, from a tagger) and drops
punctuation tokens (one character of ``string.punctuation``) from the responses and the
references; so does diveval. Tokens are the run's tokenizer's (``whitespace`` by default); GEM
lower-cases nltk tokens: give ``lowercase=True`` to come close.

Rules: a level with no word in any item scores 0.0 (GEM's); a response without references, or
no references at all, is an ``InputError``.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from ..constants import DEFAULT_TOKENIZER
from ..errors import InputError
from ..lexical.gem import is_punctuation
from ..results import CORPUS, Score, make_signature
from ..state import PADDED_SUM, DeclaredState, SummedStats, Units
from ..text.prepared import Prepared
from ..text.tokenizers import Tokenizer, get_tokenizer
from .multiref import check_references


def _words(tokens: Sequence[str]) -> list[str]:
    """The tokens GEM keeps: all but the punctuation tokens."""
    return [w for w in tokens if not is_punctuation(w)]


def _reference_index(refs: Sequence[Sequence[str]]) -> dict[str, int]:
    """Each word of an item's references -> the number of its references that use it."""
    counts: dict[str, int] = {}
    for ref in refs:
        for word in set(ref):
            counts[word] = counts.get(word, 0) + 1
    return counts


def local_recall(
    hypotheses: Any,
    references: Any = None,
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
    lowercase: bool = False,
) -> Score:
    """Local recall (van Miltenburg et al. 2018, as GEM-metrics computes it; corpus setting, one
    response per item with its references): the share of the words every reference of an item
    uses that the response uses too, pooled over the items. Punctuation tokens are dropped, as
    GEM does. Higher = closer to the references' shared words.

    local-recall(k) = sum_i |words(r_i) & W_i(k)| / sum_i |W_i(k)|

    with W_i(k) the words in exactly k of item i's references, r_i its response; the value is
    local-recall(K), K the most references of any item.
    """
    if references is None:
        raise InputError(
            'ref-local-recall needs references: one list per response (JSONL field "references")'
        )
    hyps, refs = check_references(hypotheses, references)
    if isinstance(hypotheses, Prepared):
        tok = hypotheses.tokenizer
        hyp_tokens = hyps
    else:
        tok = get_tokenizer(tokenizer, lowercase)
        hyp_tokens = tok.tokenize_many(hyps)
    return local_recall_score(*level_counts(hyp_tokens, refs, tok), tok)


def level_counts(
    hyp_tokens: Sequence[Sequence[str]], refs: Sequence[Sequence[str]], tok: Tokenizer
) -> tuple[np.ndarray, np.ndarray]:
    """(recalled, to_recall): per importance level k (index k, 0 unused, up to the most
    references of an item), the words of importance k the responses use, and all of them."""
    top = max((len(r) for r in refs), default=0)
    recalled = np.zeros(top + 1, dtype=np.int64)
    to_recall = np.zeros(top + 1, dtype=np.int64)
    for hyp, rs in zip(hyp_tokens, refs):
        words = set(_words(hyp))
        index = _reference_index([_words(ref) for ref in tok.tokenize_many(rs)])
        for word, k in index.items():
            to_recall[k] += 1
            recalled[k] += word in words
    return recalled, to_recall


def local_recall_score(recalled: np.ndarray, to_recall: np.ndarray, tok: Tokenizer) -> Score:
    """The Score of the level counts of all items (:func:`level_counts`, summed)."""
    top = len(to_recall) - 1
    if top < 1:
        raise InputError("ref-local-recall: no item with references was scored")
    by_level = {
        k: (float(recalled[k] / to_recall[k]) if to_recall[k] else 0.0) for k in range(1, top + 1)
    }
    details = {
        "by_level": by_level,
        "recalled": {k: int(recalled[k]) for k in range(1, top + 1)},
        "to_recall": {k: int(to_recall[k]) for k in range(1, top + 1)},
        "level": top,
    }
    sig = make_signature(
        "ref-local-recall", level=top, punct=False, **tok.signature, setting=CORPUS
    )
    return Score("ref-local-recall", by_level[top], sig, CORPUS, None, details)


class LocalRecallState(DeclaredState):
    """Corpus ref-local-recall over any split: the level counts (``recalled``, ``to_recall``,
    indexed by level) add up. ``references`` are given for all the items this state sees (the
    engines slice a per-item option with its items) and taken batch by batch as the batches
    come, in order; they are input, not a setting.

    >>> s = LocalRecallState(references=[["a b", "a"], ["c"]])
    >>> s.update(["a"]); s.update(["d"])
    >>> s.result().details["by_level"]
    {1: 0.0, 2: 1.0}
    """

    kind: ClassVar[str] = "local-recall"
    SETTINGS = ("tokenizer", "lowercase")
    FIELDS = {"recalled": PADDED_SUM, "to_recall": PADDED_SUM}

    def __init__(
        self, tokenizer: str = DEFAULT_TOKENIZER, lowercase: bool = False, references: Any = None
    ):
        if not isinstance(tokenizer, str):
            raise InputError(
                "a split run names its tokenizer (a string), so that states can be saved"
            )
        self.tokenizer, self.lowercase = tokenizer, bool(lowercase)
        self._tok = get_tokenizer(tokenizer, self.lowercase)
        self.references = references
        self.seen = 0
        self.recalled = np.zeros(1, dtype=np.int64)
        self.to_recall = np.zeros(1, dtype=np.int64)

    def unit_statistics(self, units: Units) -> SummedStats:
        """This metric on weighted sums of units (one response each, with its own references):
        the words recalled and to recall at each importance level add over units; the level
        reported is the most references of any unit a row holds."""
        tok, refs = self._tok, units.references
        hyps = tok.tokenize_many(list(units.texts))
        top = max(len(r) for r in refs)
        stats = np.zeros((len(hyps), 2 * (top + 1)))
        for u, (h, rs) in enumerate(zip(hyps, refs)):
            recalled, to_recall = level_counts([h], [list(rs)], tok)
            stats[u, : recalled.size] = recalled
            stats[u, top + 1 : top + 1 + to_recall.size] = to_recall
        levels = np.array([len(r) for r in refs])

        def finish(sums: np.ndarray, held: np.ndarray) -> np.ndarray:
            level = np.where(held, levels[None, :], 0).max(axis=1)
            rows = np.arange(sums.shape[0])
            recalled, to_recall = sums[rows, level], sums[rows, top + 1 + level]
            return np.divide(recalled, to_recall, out=np.zeros_like(recalled), where=to_recall > 0)

        return SummedStats(stats, finish)

    def update(self, batch: Sequence[str]) -> None:
        batch = list(batch)
        if not batch:
            return
        if self.references is None:
            raise InputError(
                "ref-local-recall needs references: one list per response (JSONL field "
                '"references")'
            )
        refs = list(self.references)[self.seen : self.seen + len(batch)]
        hyps, refs = check_references(batch, refs)
        recalled, to_recall = level_counts(self._tok.tokenize_many(hyps), refs, self._tok)
        self.recalled = PADDED_SUM.combine([self.recalled, recalled])
        self.to_recall = PADDED_SUM.combine([self.to_recall, to_recall])
        self.seen += len(batch)

    def result(self) -> Score:
        """The Score :func:`local_recall` gives on all the items."""
        return local_recall_score(self.recalled, self.to_recall, self._tok)


def local_recall_state(options: Mapping[str, Any]) -> LocalRecallState:
    """The state factory of the ``ref-local-recall`` row: ``options -> LocalRecallState``."""
    return LocalRecallState(
        options.get("tokenizer", DEFAULT_TOKENIZER),
        bool(options.get("lowercase")),
        options.get("references"),
    )
