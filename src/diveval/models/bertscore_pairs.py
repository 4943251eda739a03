"""BERTScore F1 of many pairs of documents from ONE embedding pass per document.

``bert-score`` embeds both sides of every pair it is given, so all pairs of N documents cost N^2
forward passes. Here each document is embedded once (bert-score's own ``get_bert_embedding``, no
idf: weight 1 per word piece, 0 for [CLS] and [SEP], as bert-score does), the token vectors are
normalised, and the greedy matching of all pairs is done block by block: one matrix product of
the tokens of a block of documents with the tokens of another block, then a maximum per
(token, other document) segment and a weighted sum per document (``np.maximum.reduceat``,
``np.add.reduceat``). P(i, j) matches i's word pieces to j's, R(i, j) j's to i's, F = 2PR/(P+R),
0 when a document has no word piece (as bert-score).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable, Sequence

import numpy as np

from .devices import CPU_BATCH_SIZE

_BLOCK_TOKENS = 4096


def embed_documents(scorer: Any, docs: Sequence[str], batch_size: int = CPU_BATCH_SIZE):
    """(token vectors normalised, offsets per document, weight of each token, which documents
    are empty) for ``docs``."""
    import torch
    from bert_score.utils import get_bert_embedding

    tok = scorer._tokenizer
    idf: defaultdict[int, float] = defaultdict(lambda: 1.0)
    idf[tok.sep_token_id] = 0.0
    idf[tok.cls_token_id] = 0.0
    # bert-score scores an empty (after strip) document 0; it is not embedded here (bert-score's
    # encoder of the empty string fails with transformers 5) but stands as one zero vector
    empty = np.array([not d.strip() for d in docs], dtype=bool)
    order = sorted(np.flatnonzero(~empty).tolist(), key=lambda i: (len(docs[i]), docs[i]))
    dim = int(scorer._model.config.hidden_size)
    vectors: list[np.ndarray] = [np.zeros((1, dim), dtype=np.float32)] * len(docs)
    weights: list[np.ndarray] = [np.zeros(1)] * len(docs)
    with torch.no_grad():
        for s in range(0, len(order), batch_size):
            chunk = order[s : s + batch_size]
            emb, mask, w = get_bert_embedding(
                [docs[i] for i in chunk], scorer._model, tok, idf, device=scorer.device
            )
            emb = emb / torch.norm(emb, dim=-1, keepdim=True)
            for k, i in enumerate(chunk):
                n = int(mask[k].sum())
                vectors[i] = emb[k, :n].float().cpu().numpy()
                raw = w[k, :n].float().cpu().numpy()
                total = raw.sum()
                weights[i] = raw / total if total > 0 else raw
    lengths = np.array([v.shape[0] for v in vectors], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    return np.concatenate(vectors).astype(np.float32), offsets, np.concatenate(weights), empty


def _blocks(offsets: np.ndarray) -> list[tuple[int, int]]:
    """Ranges of documents holding about _BLOCK_TOKENS tokens each."""
    out, start = [], 0
    n = len(offsets) - 1
    for d in range(1, n + 1):
        if offsets[d] - offsets[start] >= _BLOCK_TOKENS or d == n:
            out.append((start, d))
            start = d
    return out


def pairwise_bertscore_f(
    scorer: Any,
    docs: Sequence[str],
    first: np.ndarray,
    second: np.ndarray,
    batch_size: int = CPU_BATCH_SIZE,
) -> np.ndarray:
    """BERTScore F1 (no idf, no rescaling) of every pair (first[k], second[k]).

    The distinct documents are embedded in sorted order and each pair is oriented (lower index
    first): float32 batches and matrix blocks then do not depend on the order of the input, so
    neither does the last bit of a score (and a repeated document is embedded once)."""
    return bertscore_f_of(scorer, docs, batch_size)(first, second)


def bertscore_f_of(
    scorer: Any, docs: Sequence[str], batch_size: int = CPU_BATCH_SIZE
) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``f(first, second)``: BERTScore F1 of pairs of ``docs``, each document embedded once here,
    then any number of blocks of pairs scored against those embeddings. A pair's value does not
    depend on the other pairs of its call (the matrix blocks follow the documents, not the
    pairs), so blocks of pairs give the numbers of one call over all of them."""
    uniq, inverse = np.unique(np.asarray(docs, dtype=object).astype(str), return_inverse=True)
    embedded = embed_documents(scorer, uniq.tolist(), batch_size)

    def f(first: np.ndarray, second: np.ndarray) -> np.ndarray:
        a, b = inverse[first], inverse[second]
        return _pairwise_f(embedded, np.minimum(a, b), np.maximum(a, b))

    return f


def _pairwise_f(embedded: tuple, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    vecs, offsets, weights, is_empty = embedded
    n_docs = len(offsets) - 1
    precision = np.zeros(first.size)
    recall = np.zeros(first.size)
    blocks = _blocks(offsets)
    block_of = np.zeros(n_docs, dtype=np.int64)
    for b, (s, e) in enumerate(blocks):
        block_of[s:e] = b
    # pairs in block order, so each block product is computed once
    key = block_of[first] * len(blocks) + block_of[second]
    order = np.argsort(key, kind="stable")
    cuts = np.flatnonzero(np.diff(key[order])) + 1
    for part in np.split(order, cuts):
        if part.size == 0:
            continue
        bi, bj = divmod(int(key[part[0]]), len(blocks))
        (si, ei), (sj, ej) = blocks[bi], blocks[bj]
        ti, tj = offsets[si : ei + 1], offsets[sj : ej + 1]
        sim = vecs[ti[0] : ti[-1]] @ vecs[tj[0] : tj[-1]].T
        # max over each other document's tokens, then the weighted mean over own tokens
        row_max = np.maximum.reduceat(sim, tj[:-1] - tj[0], axis=1)  # tokens_I x docs_J
        col_max = np.maximum.reduceat(sim, ti[:-1] - ti[0], axis=0)  # docs_I x tokens_J
        p_block = np.add.reduceat(
            row_max * weights[ti[0] : ti[-1], None], ti[:-1] - ti[0], axis=0
        )  # docs_I x docs_J: hyp i against ref j
        r_block = np.add.reduceat(
            col_max * weights[None, tj[0] : tj[-1]], tj[:-1] - tj[0], axis=1
        )  # docs_I x docs_J: ref j's tokens matched in hyp i
        precision[part] = p_block[first[part] - si, second[part] - sj]
        recall[part] = r_block[first[part] - si, second[part] - sj]
    # a document with no word piece scores 0, as bert-score
    empty = is_empty[first] | is_empty[second]
    out = np.zeros(first.size)
    ok = ~empty & (precision + recall > 0)
    out[ok] = 2 * precision[ok] * recall[ok] / (precision[ok] + recall[ok])
    return out
