"""Homogenization (Padmakumar & He 2023; Shaib et al. 2024): the mean over documents of each
document's mean similarity to every OTHER document of the corpus (or of its set). Higher = more
homogeneous = less diverse (direction "lower").

Similarities:

* ``rougel``: ROUGE-L F1 of the pair, equal to ``rouge-score``'s ``RougeScorer(["rougeL"])`` F to
  1e-9, with rouge-score's default tokenizer (lower-case, every run of characters outside a-z0-9
  is a separator; no stemming). ROUGE-L F is symmetric, so each unordered pair is scored once, by
  the vectorised bit-parallel LCS of ``text.lcs`` (no Python loop over pairs).
* ``bleu``: BLEU-4 (nltk ``sentence_bleu`` semantics, method1) of the document as hypothesis
  against each other document as its single reference (``homogenization_bleu``), from sparse
  products of n-gram occurrence matrices.
* ``bertscore``: BERTScore F1 (no idf, no baseline), with diveval's BERTScore model
  (``models.bertscore``, all-MiniLM-L6-v2 layer 6 by default): each document is embedded ONCE and
  the greedy matching of every pair is done in batched matrix products, where the package embeds
  both sides of every pair again (N^2 forward passes).

Differences from the ``diversity`` package (0.3.1): it returns 1.0 whenever the sum of all
similarities is 0 (meant for identical documents, it fires for documents with no word in common,
the most diverse case); diveval returns 0.0 there. It rounds to 3 decimals; diveval does not. Its
BERTScore default is ``microsoft/deberta-base-mnli`` fetched from the Hub; diveval's default is the
offline model above (any local model folder can be named).

Identical documents (``identical=``, :mod:`diveval.semantic.identical`): ``"model"`` (the default,
as the ``diversity`` package, which scores every pair) gives two copies of a document the
similarity's own value (BLEU-4 of a text under 4 tokens with itself is not 1; ROUGE-L F of a text
without a-z0-9 characters is 0); ``"one"`` gives them 1. For homogenization-bleu, identical means
the same tokens (all BLEU reads). Recorded as ``ident:`` in the signature.

Undefined case: a corpus or set with fewer than 2 documents has no other document to compare
with; it is an InputError.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional, Sequence, TypedDict

import numpy as np

from ..constants import DEFAULT_SMOOTHING, DEFAULT_TOKENIZER
from ..context import RunContext
from ..errors import InputError
from ..lexical.counts import lexical_score
from ..lexical.groups import group_score, text_groups
from ..models.bertscore import bert_scorer, resolve_bertscore_model, scorer_signature
from ..models.bertscore_pairs import bertscore_f_of
from ..models.devices import ModelSettings, SettingsKeywords, split_settings
from ..pairs import (
    MAX_BLOCK_PAIRS,
    PAIR_WAYS_OUT,
    SAMPLE_CHUNK,
    MeanInterval,
    PairPlan,
    check_pairs,
    pair_blocks,
    pair_counts,
    progress_callback,
    resolve_budget,
    sampled_pair_chunks,
    split,
)
from ..results import CORPUS, Score
from ..text.bleu import bleu_from_counts, uniform_weights
from ..text.lcs import lcs_lengths
from ..text.ngrams import TokenIds, encode_tokens, factorize, ngram_codes, text_of_positions
from ..text.prepared import Prepared, prepare
from ..text.tokenizers import Tokenizer
from .identical import ONE, check_identical

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

#: the similarity of each pair (first[k], second[k]) of texts given by their indices
_Similarity = Callable[[np.ndarray, np.ndarray], np.ndarray]

_ROUGE_TOKEN = re.compile(r"[a-z0-9]+")


def rouge_tokens(text: str) -> list[str]:
    """rouge-score's default tokenizer without stemming: lower-case, then the runs of a-z0-9
    (its ``sub(non-alphanumeric, " ")``, split and validity check leave exactly these)."""
    return _ROUGE_TOKEN.findall(text.lower())


def rouge_l_pairs(texts: Sequence[str], first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """ROUGE-L F1 of every pair (first[k], second[k]), as rouge-score computes it."""
    return _rouge_l_of(encode_tokens([rouge_tokens(t) for t in texts]))(first, second)


def _rouge_l_of(tids: TokenIds) -> _Similarity:
    """ROUGE-L F1 of pairs of the tokenized texts ``tids`` (tokenized once for every block)."""
    lengths = tids.lengths.astype(float)

    def similarity(first: np.ndarray, second: np.ndarray) -> np.ndarray:
        lcs = lcs_lengths(tids, first, second).astype(float)
        len_a = lengths[first]
        len_b = lengths[second]
        out = np.zeros(lcs.size)
        ok = (len_a > 0) & (len_b > 0) & (lcs > 0)
        # the same operations in the same order as rouge_score.scoring.fmeasure
        precision = lcs[ok] / len_b[ok]
        recall = lcs[ok] / len_a[ok]
        out[ok] = 2 * precision * recall / (precision + recall)
        return out

    return similarity


@dataclass(frozen=True)
class _Cost:
    """Cost model of one pair similarity: memory held for the run (fixed, per response and per
    character of text), memory per pair inside a block, and time per pair per token; the
    ``sampled_*`` figures for pairs drawn at random where they differ. Memory measured with
    tracemalloc on 5,000 Zipf responses of 2-22 words; times between those of a busy and a quiet
    2-core machine at 5,000-10,000 responses (they varied 3x with the load).
    ``benchmarks/load.py --parts 3`` prints the estimate beside the measured time and peak."""

    per_response: float
    per_char: float
    per_pair: float
    seconds_per_pair_token: float
    fixed: float = 0.0
    sampled_per_pair: Optional[float] = None
    sampled_seconds_per_pair_token: Optional[float] = None

    def plan(
        self, metric: str, n_texts: int, chars: int, pairs: int, budget: Any, sampled: bool
    ) -> PairPlan:
        limit, source = resolve_budget(budget)
        tokens_per_text = chars / max(n_texts, 1) / 5.0 + 1.0  # about 5 characters a word
        per_pair = (sampled and self.sampled_per_pair) or self.per_pair
        seconds = (sampled and self.sampled_seconds_per_pair_token) or self.seconds_per_pair_token
        return PairPlan(
            metric,
            n_texts,
            pairs,
            int(self.fixed + self.per_response * n_texts + self.per_char * chars),
            per_pair,
            seconds * tokens_per_text,
            limit,
            source,
            SAMPLE_CHUNK if sampled else MAX_BLOCK_PAIRS,  # samples come in chunks
        )


# token lists while tokenizing (then int64 ids), the LCS bit vectors and masks of a block
_ROUGE_COST = _Cost(per_response=400.0, per_char=21.0, per_pair=280.0, seconds_per_pair_token=4e-8)
# token vectors (a word piece, about 4 characters, is 384 float32) and the fixed matrix blocks
# of models.bertscore_pairs; the time is a guess from the matrix products, not measured here
_BERTSCORE_COST = _Cost(
    per_response=600.0,
    per_char=500.0,
    per_pair=160.0,
    seconds_per_pair_token=2e-7,
    fixed=256 << 20,
)


class PairOptions(TypedDict, total=False):
    """The keyword options of every homogenization metric (see :func:`homogenization_rouge_l`)."""

    pairs: Optional[int]
    seed: int
    memory_budget: Any
    progress: Any
    identical: Optional[str]


@dataclass(frozen=True)
class _PairRun:
    """:class:`PairOptions` checked, with their defaults."""

    metric: str
    identical: str
    pairs: Optional[int]
    seed: int
    memory_budget: Any
    progress: Any

    @classmethod
    def of(cls, metric: str, options: PairOptions) -> _PairRun:
        unknown = sorted(set(options) - set(PairOptions.__annotations__))
        if unknown:  # as an explicit signature would refuse it
            raise TypeError(f"{metric} got an unexpected keyword argument {unknown[0]!r}")
        pairs = check_pairs(options.get("pairs"))
        return cls(
            metric,
            check_identical(options.get("identical"), metric),
            pairs,
            options.get("seed", 0),
            options.get("memory_budget"),
            options.get("progress"),
        )

    def check_sizes(self, sizes: np.ndarray, is_corpus: bool) -> None:
        """Every set (or the corpus) has 2 documents or more; ``pairs`` samples a corpus only."""
        small = np.flatnonzero(sizes < 2)
        if small.size:
            where = "the corpus" if is_corpus else f"set {int(small[0])}"
            raise InputError(
                f"{self.metric} compares each document with the others: {where} has "
                f"{int(sizes[small[0]])} document(s), at least 2 are needed"
            )
        if self.pairs is not None and not is_corpus:
            raise InputError(
                f"{self.metric}: --pairs samples the pairs of a corpus; sets are exact"
            )

    def sample(self, n_texts: int, plan: PairPlan, similarity: _Similarity) -> MeanInterval:
        """The similarities of ``pairs`` seeded random pairs of the ``n_texts`` texts."""
        assert self.pairs is not None
        stats = MeanInterval()
        label = f"{self.metric}: sampled pairs"
        with progress_callback(self.progress, label, self.pairs) as update:
            for i, j in sampled_pair_chunks(n_texts, self.pairs, self.seed):
                # one chunk's values are added at once: the same sums whatever the blocks
                stats.add(
                    np.concatenate([similarity(a, b) for a, b in split(i, j, plan.block_pairs)])
                )
                update(stats.count)
        return stats

    def sampled(
        self, stats: MeanInterval, plan: PairPlan, sig: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """(signature, details) of a score from sampled pairs."""
        details = {**stats.details(self.seed), "estimate": plan.details()}
        return {**sig, "pairs": self.pairs, "seed": self.seed}, details


def _homogenization_of_pairs(
    metric: str,
    data: Any,
    similarity_of: Callable[[list[str]], _Similarity],
    sig: dict[str, Any],
    setting: str | None,
    cost: _Cost,
    **options: Unpack[PairOptions],
) -> Score:
    """The metric from a symmetric similarity: all unordered pairs of each set (or of the
    corpus) in blocks within the memory budget, or ``pairs`` sampled ordered pairs of a corpus.
    ``similarity_of(texts)`` builds what every block needs once (tokens, embeddings) and returns
    ``similarity(first, second)``."""
    run = _PairRun.of(metric, options)
    sig = {**sig, "ident": run.identical}
    if run.identical == ONE:
        similarity_of = _one_for_identical(similarity_of)
    found, groups = text_groups(data, setting)
    sizes = np.array([len(g) for g in groups], dtype=np.int64)
    run.check_sizes(sizes, is_corpus=found == CORPUS)
    texts = [t for g in groups for t in g]
    n, chars = len(texts), sum(map(len, texts))
    if run.pairs is not None:
        plan = cost.plan(metric, n, chars, run.pairs, run.memory_budget, sampled=True)
        plan.check("ask for fewer --pairs, or score sets instead of one corpus")
        stats = run.sample(n, plan, similarity_of(texts))
        return group_score(metric, [stats.mean], found, *run.sampled(stats, plan, sig))
    total = int(pair_counts(sizes, ordered=False).sum())
    plan = cost.plan(metric, n, chars, total, run.memory_budget, sampled=False)
    plan.check(PAIR_WAYS_OUT)
    similarity = similarity_of(texts)
    per_doc_sum = np.zeros(n)
    done = 0
    with progress_callback(run.progress, f"{metric}: pairs", total) as update:
        for first, second in pair_blocks(sizes, plan.block_pairs):
            sim = similarity(first, second)
            per_doc_sum += np.bincount(first, weights=sim, minlength=n)
            per_doc_sum += np.bincount(second, weights=sim, minlength=n)
            done += first.size
            update(done)
    group_of_doc = np.repeat(np.arange(len(groups)), sizes)
    per_doc = per_doc_sum / (sizes[group_of_doc] - 1)
    values = np.bincount(group_of_doc, weights=per_doc) / sizes
    details = {"per_document": per_doc, "estimate": plan.details()}
    return group_score(metric, values.tolist(), found, sig, details)


def _text_codes(keys: Sequence[Any]) -> np.ndarray:
    """One integer per distinct key (text or token tuple), in order of first appearance."""
    index: dict[Any, int] = {}
    return np.array([index.setdefault(k, len(index)) for k in keys], dtype=np.int64)


def _one_for_identical(
    similarity_of: Callable[[list[str]], _Similarity],
) -> Callable[[list[str]], _Similarity]:
    """``similarity_of`` whose similarity is 1 for two identical texts."""

    def of(texts: list[str]) -> _Similarity:
        inner, codes = similarity_of(texts), _text_codes(texts)

        def similarity(first: np.ndarray, second: np.ndarray) -> np.ndarray:
            out = np.array(inner(first, second), dtype=np.float64)
            out[codes[first] == codes[second]] = 1.0
            return out

        return similarity

    return of


def homogenization_rouge_l(
    texts: Any,
    setting: str | None = None,
    **options: Unpack[PairOptions],
) -> Score:
    """Mean over documents of their mean ROUGE-L F1 to every other document.

    All pairs are scored in blocks within ``memory_budget`` (bytes or "2G"; default 1/4 of the
    available memory; a BudgetError before any work where even one block does not fit);
    ``pairs=N``: N seeded random pairs of a corpus instead (``seed``, 0 by default), with an
    interval in ``details``; ``progress``: True for a bar on a terminal, or a callable
    ``progress(done, total)``; ``identical``: "model" (default: two copies of a document score
    their ROUGE-L) or "one"."""

    def similarity_of(docs: list[str]):
        return _rouge_l_of(encode_tokens([rouge_tokens(t) for t in docs]))

    return _homogenization_of_pairs(
        "homogenization-rougel",
        texts,
        similarity_of,
        {"sim": "rougeL-F", "tok": "rouge-score-default", "stem": False},
        setting,
        _ROUGE_COST,
        **options,
    )


class BertScorePairOptions(PairOptions, SettingsKeywords, total=False):
    """The keyword options of :func:`homogenization_bertscore`: the pair options and a direct
    call's model settings."""


def homogenization_bertscore(
    texts: Any,
    embedding_model: str | None = None,
    layer: int | None = None,
    setting: str | None = None,
    context: RunContext | None = None,
    settings: ModelSettings | None = None,
    **options: Unpack[BertScorePairOptions],
) -> Score:
    """Mean over documents of their mean BERTScore F1 to every other document (one embedding
    pass per document; see ``models.bertscore_pairs``). ``embedding_model``: None (MiniLM, layer
    6), "mpnet" (layer 12) or a transformers folder or name; ``layer``: None for 6 (MiniLM's
    last; 12 for mpnet). ``settings``: the run's model settings, or their keywords (``device``,
    ``batch_size``: None for the backend's by device, ``precision``). ``pairs``, ``seed``,
    ``memory_budget``, ``progress``, ``identical``: as :func:`homogenization_rouge_l`."""
    del context  # nothing of another metric to share: the pairs are this metric's own
    settings, pair_options = split_settings(options, settings)
    model, layer = resolve_bertscore_model(embedding_model, layer)
    scorer, name, fp = bert_scorer(model, layer, settings)

    def similarity_of(docs: list[str]):
        return bertscore_f_of(scorer, docs, scorer.batch_size)

    return _homogenization_of_pairs(
        "homogenization-bertscore",
        texts,
        similarity_of,
        {"sim": "bertscore-F", **scorer_signature(scorer, name, fp, layer)},
        setting,
        _BERTSCORE_COST,
        **pair_options,
    )


def _occurrence_features(prep: Prepared, n: int):
    """Binary (texts x features) CSR matrix whose feature (g, k) marks the k-th occurrence of
    n-gram g in a text: the dot product of two rows is sum over g of min(c_i(g), c_j(g)), BLEU's
    clipped match count against a single reference."""
    from scipy.sparse import csr_matrix

    tids = prep.tids
    codes, starts, _ = ngram_codes(tids, n)
    text = text_of_positions(tids, starts)
    if codes.size == 0:
        return csr_matrix((tids.n_texts, 1), dtype=np.float64)
    _, dense = factorize(codes)
    order = np.lexsort((dense, text))
    t_sorted, g_sorted = text[order], dense[order]
    new_run = np.ones(order.size, dtype=bool)
    new_run[1:] = (t_sorted[1:] != t_sorted[:-1]) | (g_sorted[1:] != g_sorted[:-1])
    run_start = np.maximum.accumulate(np.where(new_run, np.arange(order.size), 0))
    rank = np.arange(order.size) - run_start
    _, feature = factorize(g_sorted * (int(rank.max()) + 1) + rank)
    data = np.ones(order.size, dtype=np.float64)
    return csr_matrix((data, (t_sorted, feature)), shape=(tids.n_texts, int(feature.max()) + 1))


def _bleu_rows(
    features: list,
    transposed: list,
    lengths: np.ndarray,
    rows: np.ndarray,
    members: np.ndarray,
    max_n: int,
    smoothing: str,
) -> np.ndarray:
    """BLEU of each text of ``rows`` (hypothesis) against each text of ``members`` (single
    reference): a rows x members matrix, from one sparse product per order."""
    m = members.size
    num = np.stack(
        [np.rint((x[rows] @ xt).toarray()).astype(np.int64) for x, xt in zip(features, transposed)],
        axis=-1,
    )  # rows x m x K
    hyp = np.repeat(lengths[rows], m)
    den = np.maximum(1, hyp[:, None] - np.arange(max_n)[None, :])
    ref = np.tile(lengths[members], rows.size)
    return bleu_from_counts(
        num.reshape(-1, max_n), den, hyp, ref, uniform_weights(max_n), smoothing
    ).reshape(rows.size, m)


def _bleu_pairs(
    features: list,
    lengths: np.ndarray,
    hyp: np.ndarray,
    ref: np.ndarray,
    max_n: int,
    smoothing: str,
) -> np.ndarray:
    """BLEU of text hyp[k] against text ref[k] as its single reference, for every k."""
    num = np.stack(
        [np.rint(np.asarray(x[hyp].multiply(x[ref]).sum(axis=1))).ravel() for x in features],
        axis=-1,
    ).astype(np.int64)
    hyp_len = lengths[hyp]
    den = np.maximum(1, hyp_len[:, None] - np.arange(max_n)[None, :])
    return bleu_from_counts(num, den, hyp_len, lengths[ref], uniform_weights(max_n), smoothing)


# the memory of a text held for the run (occurrence features of 4 orders, token ids) and of a
# pair inside a block (4 orders of int64 counts, the sparse products, BLEU's float arrays);
# sampled pairs go through row-indexed sparse copies, dearer per pair
_BLEU_COST = _Cost(
    per_response=500.0,
    per_char=70.0,
    per_pair=280.0,
    seconds_per_pair_token=2e-8,
    sampled_per_pair=760.0,
    sampled_seconds_per_pair_token=3e-7,
)


_BLEU = "homogenization-bleu"


@dataclass(frozen=True)
class _PairBleu:
    """BLEU of documents against one another as single references, from the occurrence
    features of each order (built once for every block)."""

    features: list
    lengths: np.ndarray
    max_n: int
    smoothing: str
    #: one code per distinct token sequence where identical="one" (same tokens: BLEU 1), else None
    same: Optional[np.ndarray]

    @classmethod
    def of(cls, prep: Prepared, max_n: int, smoothing: str, same_tokens: bool) -> _PairBleu:
        features = [_occurrence_features(prep, n) for n in range(1, max_n + 1)]
        same = None
        if same_tokens:
            ids, off = prep.tids.ids.tolist(), prep.tids.offsets.tolist()
            same = _text_codes([tuple(ids[a:b]) for a, b in zip(off[:-1], off[1:])])
        return cls(features, prep.tids.lengths, max_n, smoothing, same)

    def of_pairs(self, hyp: np.ndarray, ref: np.ndarray) -> np.ndarray:
        """BLEU of text hyp[k] against text ref[k], for every k."""
        bleu = _bleu_pairs(self.features, self.lengths, hyp, ref, self.max_n, self.smoothing)
        if self.same is not None:
            bleu[self.same[hyp] == self.same[ref]] = 1.0
        return bleu

    def set_rows(
        self, members: np.ndarray, block_pairs: int
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(rows, BLEU of those members against every member, 0 against itself) for blocks of
        the rows of one set (or of the corpus) within ``block_pairs``."""
        m = members.size
        whole = m == self.lengths.size  # a corpus: no copy of its features
        sub = self.features if whole else [f[members] for f in self.features]
        transposed = [x.T.tocsr() for x in sub]  # once per set, not once per block
        lengths = self.lengths[members]
        step = max(1, block_pairs // m)
        for s in range(0, m, step):
            rows = np.arange(s, min(s + step, m))
            bleu = _bleu_rows(
                sub, transposed, lengths, rows, np.arange(m), self.max_n, self.smoothing
            )
            if self.same is not None:
                bleu[self.same[members[rows]][:, None] == self.same[members][None, :]] = 1.0
            bleu[np.arange(rows.size), rows] = 0.0  # not against itself
            yield rows, bleu

    def per_document(
        self, prep: Prepared, plan: PairPlan, progress: Any
    ) -> tuple[np.ndarray, np.ndarray]:
        """(each set's mean, each document's mean BLEU against the other documents of its set),
        every ordered pair of each set scored."""
        n_texts = prep.tids.n_texts
        group = prep.group if prep.group is not None else np.zeros(n_texts, dtype=np.int64)
        per_doc = np.zeros(n_texts)
        values = np.zeros(prep.n_groups)
        done = 0
        with progress_callback(progress, f"{_BLEU}: pairs", plan.pairs) as update:
            for g in range(prep.n_groups):
                members = np.flatnonzero(group == g)
                m = members.size
                for rows, bleu in self.set_rows(members, plan.block_pairs):
                    per_doc[members[rows]] = bleu.sum(axis=1) / (m - 1)
                    done += rows.size * (m - 1)
                    update(done)
                values[g] = per_doc[members].mean()
        return values, per_doc


def _bleu_plan(texts: Any, setting: str | None, run: _PairRun) -> PairPlan:
    """The checked plan of the run, made before tokenizing: a refusal allocates nothing."""
    if isinstance(texts, Prepared):
        n_texts, chars = texts.tids.n_texts, 6 * texts.tids.n_tokens
        is_corpus = texts.group is None
        sizes = (
            np.array([n_texts])
            if texts.group is None
            else np.bincount(texts.group, minlength=texts.n_groups)
        )
    else:
        found, groups = text_groups(texts, setting)
        n_texts, chars = sum(map(len, groups)), sum(len(t) for g in groups for t in g)
        is_corpus = found == CORPUS
        sizes = np.array([len(g) for g in groups])
    run.check_sizes(sizes, is_corpus)
    sampled = run.pairs is not None
    total = run.pairs if run.pairs is not None else int(pair_counts(sizes, ordered=True).sum())
    plan = _BLEU_COST.plan(_BLEU, n_texts, chars, total, run.memory_budget, sampled=sampled)
    plan.check("ask for fewer --pairs" if sampled else PAIR_WAYS_OUT)
    return plan


def homogenization_bleu(
    texts: Any,
    max_n: int = 4,
    smoothing: str = DEFAULT_SMOOTHING,
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    setting: str | None = None,
    **options: Unpack[PairOptions],
) -> Score:
    """Mean over documents of their mean BLEU-``max_n`` as the hypothesis against each other
    document as the single reference (nltk ``sentence_bleu`` semantics, method1 smoothing).

    Self-BLEU (``lexical.self_bleu``) scores a document against all the others *together*
    (clipping by the maximum count over them); here each other document is its own reference and
    the similarities are averaged, as homogenization defines it. The ``diversity`` package's BLEU
    path differs: it scores all other documents as one corpus against the document
    (``evaluate``'s corpus BLEU) and divides that single number by N - 1 again.

    ``pairs``, ``seed``, ``memory_budget``, ``progress``, ``identical``: as
    :func:`homogenization_rouge_l` (BLEU is not symmetric: the pairs are ordered)."""
    run = _PairRun.of(_BLEU, options)
    plan = _bleu_plan(texts, setting, run)
    prep = prepare(texts, tokenizer, lowercase, setting)
    bleu = _PairBleu.of(prep, max_n, smoothing, same_tokens=run.identical == ONE)
    sig: dict[str, Any] = {
        "sim": f"bleu-{max_n}",
        "smooth": smoothing,
        "refs": "each-other-doc",
        "ident": run.identical,
    }
    if run.pairs is not None:
        stats = run.sample(prep.tids.n_texts, plan, bleu.of_pairs)
        return lexical_score(_BLEU, np.array([stats.mean]), prep, *run.sampled(stats, plan, sig))
    values, per_doc = bleu.per_document(prep, plan, run.progress)
    details = {"per_document": per_doc, "estimate": plan.details()}
    return lexical_score(_BLEU, values, prep, sig, details)
