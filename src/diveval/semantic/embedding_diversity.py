"""Sent-BERT diversity (Tevet & Berant 2021), a sets-only metric: minus the mean cosine similarity
of the sentence embeddings of every unordered pair of responses in a set; the mean over sets.

Higher is more diverse; identical responses give -1. Each unique text is embedded once (one model
call for the whole input, ``models.cache``), and a set's cosines are one matrix product. A text
whose embedding is the zero vector has cosine 0 with everything (no direction to compare).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..data import require_pairs, require_sets
from ..models.devices import resolve_settings, signature_device, signature_precision
from ..models.embedders import embedder_for
from ..results import SETS, Score, make_signature


def unit_rows(x: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1 (float64); zero rows stay zero."""
    x = np.asarray(x, dtype=np.float64)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)


def embed_texts(texts: list[str], model: Any = None, **settings: Any):
    """(embeddings [n, d] float32, the cached embedder) with each unique text encoded once.
    model: the run's embedder (then no settings are given), a name or folder, or None. settings:
    the model settings of a model named here (device, batch_size, precision, cache_dir, threads),
    resolved as every run's are (``models.devices.resolve_settings``)."""
    emb = embedder_for(model, resolve_settings(**settings))
    return emb.encode(texts), emb


def embedding_diversity(
    sets: Any, model: Any = None, *, progress: Optional[bool] = None, **settings: Any
) -> Score:
    """Minus the mean pairwise cosine similarity of each set's sentence embeddings, and the mean.

    sets: a list of lists of strings, each with at least 2 responses. model: the run's embedder
    (``models.embedders.embedder_for``: what the registry row passes), None (the offline
    all-MiniLM-L6-v2), a sentence-transformers name or folder, or any ``Embedder``. settings:
    device, batch_size, precision, cache_dir for a model named here (``models.devices``).
    """
    del progress  # the embedder shows its own progress bar when stderr is a terminal
    items = require_sets(sets, "Sent-BERT diversity")
    sizes = np.array([len(s) for s in items], dtype=np.int64)
    require_pairs(sizes, "sent-bert")
    texts = [t for s in items for t in s]
    vectors, emb = embed_texts(texts, model, **settings)
    x = unit_rows(vectors)
    values = np.empty(len(items))
    start = 0
    for k, m in enumerate(sizes):
        block = x[start : start + m]
        sims = block @ block.T
        upper = np.triu_indices(int(m), k=1)
        values[k] = -sims[upper].mean()
        start += m
    sig = make_signature(
        "sent-bert",
        model=emb.name,
        fp=emb.fingerprint,
        dev=signature_device(emb),
        prec=signature_precision(emb),
        sim="cosine",
        pairs="unordered",
        setting=SETS,
    )
    return Score("sent-bert", float(values.mean()), sig, SETS, values)
