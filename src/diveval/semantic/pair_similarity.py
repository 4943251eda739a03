"""The similarity matrix W of each response set: the input of the spectral measures and of the
similarity-sensitive Hill numbers.

Every W is symmetric, has W_ii = 1 and entries in [0, 1]. ``similarity=``:

- ``"nli-entailment"``: W_ij = (P_e(i, j) + P_e(j, i)) / 2, the entailment probability of the NLI
  model (premise i, hypothesis j) averaged over both directions (Lin, Trivedi & Sun 2023, their
  code's ``agreement_w``);
- ``"nli-contradiction"``: W_ij = 1 - (P_c(i, j) + P_c(j, i)) / 2, one minus the contradiction
  probability, averaged the same way (their ``disagreement_w``);
- ``"cosine"``: the cosine of the sentence embeddings, negative cosines clipped to 0 (W must be a
  non-negative affinity for the Laplacian, and a similarity in [0, 1] for the Hill numbers); an
  all-zero embedding is identical to other zero embeddings and orthogonal to the rest, as in
  :func:`diveval.semantic.set_geometry.cosine_kernel`;
- ``"jaccard"``: |A n B| / |A u B| of the sets of lower-cased whitespace words (their ``jaccard``;
  two texts without words: 0);
- ``"ngram"``: the cosine of the texts' 1-2-gram count vectors (whitespace tokens, case kept), the
  kernel of ``vendi-ngram``; non-negative by construction;
- ``"answers"``: P(same meaning) of the pair from diveval's shipped answer-equivalence model
  (``models.answers_judge``, the ``answers`` judge's model without its threshold), symmetric by
  construction (its features are).

The NLI similarities take a temperature T: the probabilities become softmax(logits / T), computed
from the model's probabilities as p^(1/T) normalised (the same numbers). T = 1 (the default) is
the model's probabilities, as the paper's definition reads; the authors' code defaults to T = 3
(``default_params``), which a caller may pass. Every ordered pair goes to the model once, through
diveval's cached NLI backend (the NLI Diversity metrics of the same run share those scores).

Two responses with the same text: ``identical="one"`` (the default) sets their W_ij to 1, as the
diagonal; ``"model"`` keeps the similarity computed for the pair (an NLI model may give a sentence
and itself P(entailment) = 0.81). See :mod:`diveval.semantic.identical`; the signature says which,
``ident:one`` or ``ident:model``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from ..constants import WHITESPACE
from ..data import ordered_pairs, require_sets
from ..errors import InputError
from ..models.base import CONTRADICTION, ENTAILMENT
from ..models.devices import (
    ModelSettings,
    RunSettingsKeywords,
    model_signature,
    split_settings,
)
from ..models.embedders import embedder_for
from ..models.resolve import answers_model_for, nli_for
from ..results import SETS
from ..text.prepared import prepare
from .identical import ONE, check_identical, set_identical_to_one
from .vendi import ngram_features

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

SIMILARITIES = ("nli-entailment", "nli-contradiction", "cosine", "jaccard", "ngram", "answers")


def check_similarity(similarity: str, metric: str) -> str:
    if similarity not in SIMILARITIES:
        raise InputError(
            f"{metric}: unknown similarity {similarity!r}; choose one of {', '.join(SIMILARITIES)}"
        )
    return similarity


def tempered(probs: np.ndarray, temperature: float) -> np.ndarray:
    """softmax(log p / T) row by row: the probabilities at temperature T (T = 1: unchanged)."""
    p = np.asarray(probs, dtype=np.float64)
    if temperature == 1:
        return p
    with np.errstate(divide="ignore"):
        z = np.log(p) / temperature
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def jaccard_matrix(texts: list[str]) -> np.ndarray:
    """Jaccard similarity of the lower-cased whitespace word sets, diagonal 1."""
    words = [set(t.lower().split()) for t in texts]
    m = len(words)
    w = np.eye(m)
    for i in range(m):
        for j in range(i + 1, m):
            w[i, j] = w[j, i] = len(words[i] & words[j]) / max(len(words[i] | words[j]), 1)
    return w


def nli_matrices(
    probs: np.ndarray, sizes: np.ndarray, similarity: str, temperature: float
) -> list[np.ndarray]:
    """W of each set from the NLI probabilities of its ordered pairs (``data.ordered_pairs``
    order: for each set, i then j != i), sets of one size at a time."""
    p = tempered(probs, temperature)
    column = p[:, ENTAILMENT] if similarity == "nli-entailment" else p[:, CONTRADICTION]
    sizes = np.asarray(sizes, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes * (sizes - 1))])[:-1]
    out: list[np.ndarray] = [np.empty((0, 0))] * len(sizes)
    for m, index in _groups(sizes).items():
        a = np.zeros((len(index), m, m))
        off = ~np.eye(m, dtype=bool)
        # row-major (i, j), j != i, as the pairs were laid out
        a[:, off] = column[starts[index][:, None] + np.arange(m * (m - 1))[None, :]]
        w = (a + a.transpose(0, 2, 1)) / 2
        if similarity == "nli-contradiction":
            w = 1.0 - w
        w[:, np.arange(m), np.arange(m)] = 1.0
        for row, g in enumerate(index):
            out[g] = w[row]
    return out


def cosine_matrices(vectors: np.ndarray, sizes: np.ndarray) -> list[np.ndarray]:
    """max(0, cos) of each set's consecutive rows of ``vectors``, sets of one size at a time; as
    :func:`diveval.semantic.set_geometry.cosine_kernel`, zero rows are equal to one another and
    orthogonal to the rest, and the diagonal is exactly 1."""
    x = np.array(vectors, dtype=np.float64)  # a copy, scaled in place
    norms = np.sqrt(np.einsum("ij,ij->i", x, x))  # no n x d temporary, unlike np.linalg.norm
    zero = np.asarray(norms <= 0, dtype=np.float64)
    np.divide(x, norms[:, None], out=x, where=norms[:, None] > 0)
    sizes = np.asarray(sizes, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)])[:-1]
    out: list[np.ndarray] = [np.empty((0, 0))] * len(sizes)
    for m, index in _groups(sizes).items():
        rows = starts[index][:, None] + np.arange(m)[None, :]
        block = x[rows]  # [sets, m, d]
        k = block @ block.transpose(0, 2, 1)
        z = zero[rows]
        k += z[:, :, None] * z[:, None, :]
        k[:, np.arange(m), np.arange(m)] = 1.0
        np.clip(k, 0.0, 1.0, out=k)
        for row, g in enumerate(index):
            out[g] = k[row]
    return out


def ngram_matrices(items: list[list[str]], n_max: int = 2) -> list[np.ndarray]:
    """Cosine of the 1..n_max-gram count vectors of each set's texts (whitespace tokens, case
    kept, as ``vendi-ngram``); a text without tokens is equal to other such texts and orthogonal
    to the rest, and the diagonal is exactly 1."""
    prep = prepare(items, WHITESPACE, False, setting=SETS)
    feats = ngram_features(prep, n_max).tocsr()  # rows: the texts, set after set
    norms = np.sqrt(np.asarray(feats.multiply(feats).sum(axis=1)).ravel())
    zero = norms <= 0
    scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=~zero)
    unit = feats.multiply(scale[:, None]).tocsr()
    out, start = [], 0
    for s in items:
        m = len(s)
        block = unit[start : start + m]
        k = np.asarray((block @ block.T).todense(), dtype=np.float64)
        z = zero[start : start + m].astype(np.float64)
        k += np.outer(z, z)
        np.fill_diagonal(k, 1.0)
        out.append(np.clip(k, 0.0, 1.0))
        start += m
    return out


def answers_matrices(model: Any, items: list[list[str]]) -> list[np.ndarray]:
    """W_ij = the answers model's P(same) of texts i and j of each set (W_ii = 1); each distinct
    text embedded once."""
    texts = list(dict.fromkeys(t for s in items for t in s))
    rows = dict(zip(texts, model.embed(texts)))
    out = []
    for s in items:
        w = np.ones((len(s), len(s)))
        i, j = np.triu_indices(len(s), k=1)
        if len(i):
            emb = np.stack([rows[t] for t in s])
            cosines = np.einsum("kd,kd->k", emb[i], emb[j])
            w[i, j] = w[j, i] = model.probabilities(cosines, [(s[a], s[b]) for a, b in zip(i, j)])
        out.append(w)
    return out


def _groups(sizes: np.ndarray) -> dict[int, np.ndarray]:
    return {int(m): np.flatnonzero(sizes == m) for m in np.unique(sizes)}


class SimilarityOptions(RunSettingsKeywords, total=False):
    """The keyword options of :func:`set_similarities`, which the metrics built on it pass on."""

    nli_model: Any
    embedding_model: Any
    temperature: float
    identical: Optional[str]
    context: Any
    settings: Optional[ModelSettings]


def set_similarities(
    sets: Any,
    similarity: str,
    metric: str,
    *,
    nli_model: Any = None,
    embedding_model: Any = None,
    temperature: float = 1.0,
    identical: Optional[str] = None,
    context: Any = None,
    settings: Optional[ModelSettings] = None,
    **keywords: Unpack[RunSettingsKeywords],
) -> tuple[list[list[str]], list[np.ndarray], dict[str, Any]]:
    """(the sets, W of each, the signature's entries for the similarity: its name and the
    model's). ``sets`` are checked: sets of strings, none empty.

    context: the run's ``RunContext``; the metrics of one run that ask for the same similarity
    share one set of matrices (read-only: callers copy before changing them). identical: "one"
    (default) or "model", the rule for two responses with the same text. settings: the models'
    ``ModelSettings`` (None: the run's, else those of the ``device`` / ``batch_size`` /
    ``precision`` / ``cache_dir`` keywords)."""
    items = require_sets(sets, metric)
    empty = [g for g, s in enumerate(items) if not s]
    if empty:
        raise InputError(f"{metric} needs at least one response: set {empty[0]} is empty")
    check_similarity(similarity, metric)
    rule = check_identical(identical, metric)
    settings, _ = split_settings(keywords, settings, context)
    options = dict(nli_model=nli_model, embedding_model=embedding_model, temperature=temperature)
    if context is None:
        matrices, params = _set_similarities(items, similarity, metric, settings, **options)
        return (items, *_identical_rule(items, matrices, params, rule))

    def ident(x: Any) -> Any:
        return x if x is None or isinstance(x, (str, int, float)) else id(x)

    key = ("set-similarities", similarity, settings, *(ident(options[k]) for k in sorted(options)))

    def under_rule() -> tuple[list[np.ndarray], dict[str, Any]]:
        # the model's matrices are shared by both rules; "one" works on copies
        model = context.memo(
            key, lambda: _set_similarities(items, similarity, metric, settings, **options)
        )
        return _identical_rule(items, model[0], model[1], rule)

    matrices, params = context.memo((*key, rule), under_rule)
    return items, matrices, params


def _identical_rule(
    items: list[list[str]], matrices: list[np.ndarray], params: dict[str, Any], rule: str
) -> tuple[list[np.ndarray], dict[str, Any]]:
    """The matrices under the rule for identical texts (copies for "one"), and the signature's
    entries with ``ident`` added."""
    if rule == ONE:
        matrices = [set_identical_to_one(w.copy(), s) for w, s in zip(matrices, items)]
    return matrices, {**params, "ident": rule}


def _set_similarities(
    items: list[list[str]],
    similarity: str,
    metric: str,
    settings: ModelSettings,
    *,
    nli_model: Any,
    embedding_model: Any,
    temperature: float,
) -> tuple[list[np.ndarray], dict[str, Any]]:
    sizes = np.array([len(s) for s in items], dtype=np.int64)
    if similarity == "jaccard":
        return [jaccard_matrix(s) for s in items], {"sim": "jaccard", "words": "lc-split"}
    if similarity == "ngram":
        return ngram_matrices(items), {"sim": "ngram-cosine", "n": "1-2", "tok": WHITESPACE}

    if similarity == "answers":
        model = answers_model_for(settings)
        return answers_matrices(model, items), {"sim": "answers-p", **model_signature(model)}
    texts = [t for s in items for t in s]
    if similarity == "cosine":
        emb = embedder_for(embedding_model, settings)
        return cosine_matrices(emb.encode(texts), sizes), {
            "sim": "cosine-clip0",
            **model_signature(emb),
        }

    if not (np.isfinite(temperature) and temperature > 0):
        raise InputError(f"{metric}: the NLI temperature must be > 0, got {temperature!r}")
    first, second, _ = ordered_pairs(sizes)
    nli = nli_for(nli_model, settings)
    if len(first):
        premises = [texts[i] for i in first.tolist()]
        probs = np.asarray(nli.predict(premises, [texts[j] for j in second.tolist()]))
    else:
        probs = np.zeros((0, 3))
    params = {"sim": similarity, "sym": "mean", "T": f"{temperature:g}", **model_signature(nli)}
    return nli_matrices(probs, sizes, similarity, float(temperature)), params


def by_size(matrices: list[np.ndarray]) -> dict[int, np.ndarray]:
    """{set size: indices of the sets of that size}, so equal-sized sets go through numpy's
    batched linear algebra together."""
    return _groups(np.array([w.shape[0] for w in matrices], dtype=np.int64))
