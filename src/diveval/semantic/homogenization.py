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

Undefined case: a corpus or set with fewer than 2 documents has no other document to compare
with; it is an InputError.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

import numpy as np

from ..context import RunContext
from ..data import unordered_pairs
from ..errors import InputError
from ..lexical.counts import lexical_score
from ..lexical.groups import group_score, text_groups
from ..results import Score
from ..text.lcs import lcs_lengths
from ..text.ngrams import encode_tokens, factorize, ngram_codes, text_of_positions
from ..text.prepared import Prepared, prepare
from ..text.tokenizers import Tokenizer

_ROUGE_TOKEN = re.compile(r"[a-z0-9]+")


def rouge_tokens(text: str) -> list[str]:
    """rouge-score's default tokenizer without stemming: lower-case, then the runs of a-z0-9
    (its ``sub(non-alphanumeric, " ")``, split and validity check leave exactly these)."""
    return _ROUGE_TOKEN.findall(text.lower())


def rouge_l_pairs(texts: Sequence[str], first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """ROUGE-L F1 of every pair (first[k], second[k]), as rouge-score computes it."""
    tids = encode_tokens([rouge_tokens(t) for t in texts])
    lcs = lcs_lengths(tids, first, second).astype(float)
    len_a = tids.lengths[first].astype(float)
    len_b = tids.lengths[second].astype(float)
    out = np.zeros(lcs.size)
    ok = (len_a > 0) & (len_b > 0) & (lcs > 0)
    # the same operations in the same order as rouge_score.scoring.fmeasure
    precision = lcs[ok] / len_b[ok]
    recall = lcs[ok] / len_a[ok]
    out[ok] = 2 * precision * recall / (precision + recall)
    return out


def _homogenization_of_pairs(
    metric: str,
    data: Any,
    pair_similarity: Callable[[list[str], np.ndarray, np.ndarray], np.ndarray],
    sig: dict[str, Any],
    setting: str | None,
) -> Score:
    found, groups = text_groups(data, setting)
    sizes = np.array([len(g) for g in groups])
    small = np.flatnonzero(sizes < 2)
    if small.size:
        where = "the corpus" if len(groups) == 1 else f"set {int(small[0])}"
        raise InputError(
            f"{metric} compares each document with the others: {where} has "
            f"{int(sizes[small[0]])} document(s), at least 2 are needed"
        )
    texts = [t for g in groups for t in g]
    first, second, owner = unordered_pairs(sizes)
    sim = pair_similarity(texts, first, second)
    n = len(texts)
    per_doc_sum = np.bincount(first, weights=sim, minlength=n) + np.bincount(
        second, weights=sim, minlength=n
    )
    group_of_doc = np.repeat(np.arange(len(groups)), sizes)
    per_doc = per_doc_sum / (sizes[group_of_doc] - 1)
    values = np.bincount(group_of_doc, weights=per_doc) / sizes
    return group_score(metric, values, found, sig, {"per_document": per_doc})


def homogenization_rouge_l(texts: Any, setting: str | None = None) -> Score:
    """Mean over documents of their mean ROUGE-L F1 to every other document."""
    return _homogenization_of_pairs(
        "homogenization-rougel",
        texts,
        rouge_l_pairs,
        {"sim": "rougeL-F", "tok": "rouge-score-default", "stem": False},
        setting,
    )


def homogenization_bertscore(
    texts: Any,
    embedding_model: str | None = None,
    layer: int | None = None,
    device: str | None = None,
    batch_size: int = 64,
    setting: str | None = None,
    context: RunContext | None = None,
    precision: str | None = None,
) -> Score:
    """Mean over documents of their mean BERTScore F1 to every other document (one embedding
    pass per document; see ``models.bertscore_pairs``). ``embedding_model``: None (MiniLM, layer
    6), "mpnet" (layer 12) or a transformers folder or name; ``layer``: None for 6 (MiniLM's
    last; 12 for mpnet)."""
    from ..models.bertscore import bert_scorer, resolve_bertscore_model
    from ..models.bertscore_pairs import pairwise_bertscore_f
    from ..models.devices import signature_device, signature_precision

    model, layer = resolve_bertscore_model(embedding_model, layer)
    scorer, name, fp = bert_scorer(model, layer, device, batch_size, precision)

    def similarity(docs: list[str], first: np.ndarray, second: np.ndarray) -> np.ndarray:
        return pairwise_bertscore_f(scorer, docs, first, second, batch_size)

    sig = {
        "sim": "bertscore-F",
        "model": name,
        "fp": fp,
        "layer": layer,
        "idf": False,
        "dev": signature_device(scorer),
        "prec": signature_precision(scorer),
    }
    return _homogenization_of_pairs("homogenization-bertscore", texts, similarity, sig, setting)


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


def _bleu_means(
    features: list, lengths: np.ndarray, members: np.ndarray, max_n: int, smoothing: str
) -> np.ndarray:
    """For each text of ``members``: the mean BLEU of it (hypothesis) against each other member
    (single reference), row block by row block."""
    from ..text.bleu import bleu_from_counts, uniform_weights

    m = members.size
    sub = [f[members] for f in features]
    lens = lengths[members]
    out = np.zeros(m)
    block = max(1, (1 << 20) // max(m, 1))
    for s in range(0, m, block):
        rows = np.arange(s, min(s + block, m))
        num = np.stack(
            [np.rint((x[rows] @ x.T).toarray()).astype(np.int64) for x in sub], axis=-1
        )  # rows x m x K
        hyp = np.repeat(lens[rows], m)
        den = np.maximum(1, hyp[:, None] - np.arange(max_n)[None, :])
        ref = np.tile(lens, rows.size)
        bleu = bleu_from_counts(
            num.reshape(-1, max_n), den, hyp, ref, uniform_weights(max_n), smoothing
        ).reshape(rows.size, m)
        bleu[np.arange(rows.size), rows] = 0.0  # not against itself
        out[rows] = bleu.sum(axis=1) / (m - 1)
    return out


def homogenization_bleu(
    texts: Any,
    max_n: int = 4,
    smoothing: str = "method1",
    tokenizer: str | Tokenizer = "whitespace",
    lowercase: bool = False,
    setting: str | None = None,
) -> Score:
    """Mean over documents of their mean BLEU-``max_n`` as the hypothesis against each other
    document as the single reference (nltk ``sentence_bleu`` semantics, method1 smoothing).

    Self-BLEU (``lexical.self_bleu``) scores a document against all the others *together*
    (clipping by the maximum count over them); here each other document is its own reference and
    the similarities are averaged, as homogenization defines it. The ``diversity`` package's BLEU
    path differs: it scores all other documents as one corpus against the document
    (``evaluate``'s corpus BLEU) and divides that single number by N - 1 again."""
    prep = prepare(texts, tokenizer, lowercase, setting)
    group = prep.group if prep.group is not None else np.zeros(prep.tids.n_texts, dtype=np.int64)
    sizes = np.bincount(group, minlength=prep.n_groups)
    if (sizes < 2).any():
        bad = int(np.flatnonzero(sizes < 2)[0])
        where = "the corpus" if prep.group is None else f"set {bad}"
        raise InputError(
            f"homogenization-bleu compares each document with the others: {where} has "
            f"{int(sizes[bad])} document(s), at least 2 are needed"
        )
    features = [_occurrence_features(prep, n) for n in range(1, max_n + 1)]
    lengths = prep.tids.lengths
    per_doc = np.zeros(prep.tids.n_texts)
    values = np.zeros(prep.n_groups)
    for g in range(prep.n_groups):
        members = np.flatnonzero(group == g)
        per_doc[members] = _bleu_means(features, lengths, members, max_n, smoothing)
        values[g] = per_doc[members].mean()
    sig = {"sim": f"bleu-{max_n}", "smooth": smoothing, "refs": "each-other-doc"}
    return lexical_score("homogenization-bleu", values, prep, sig, {"per_document": per_doc})
