"""Diversity of a response set read off the cosine kernel of its sentence embeddings.

Sets setting only: each set's texts are embedded (each unique text once, through the run's
embedder and its cache), the rows scaled to length 1 (X), and K = X X^T is the set's cosine kernel
(K_ii = 1); d = 1 - K is the cosine distance. Each metric is a function of K (or d) per set, and
the score is the mean over sets. An embedding that is the zero vector has no direction: as the
Vendi Score does, such texts are treated as identical to one another and orthogonal to every other
text (they share one private feature), so K_ii = 1 always.

Kernel metrics (``rke``, ``dcscore``, ``intdiv``, ``logdet``) are defined on a set of one
response, as the Vendi Score is (one response: the least diverse value); the distance metrics
(``chamfer``, ``remote-clique``) compare responses in pairs and need two, as Sent-BERT does (an
InputError names the set). An empty set is an InputError for all of them.

Identical responses: each text is embedded alone, so two copies of a text have the same vector and
K_ij = 1 under either rule of ``identical=`` (:mod:`diveval.semantic.identical`): ``"one"`` (the
default) sets it to exactly 1, ``"model"`` keeps the computed cosine (1 to round-off). Recorded as
``ident:`` in the signature, as in every similarity metric.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Optional, TypedDict

import numpy as np

from ..data import require_pairs, require_sets, sequence_probabilities, set_logprobs
from ..errors import InputError
from ..models.devices import signature_device, signature_precision
from ..results import SETS, Score, make_signature
from .embedding_diversity import embed_texts
from .identical import ONE, check_identical, same_text
from .vendi import vendi_from_eigenvalues

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

DCSCORE_TAU = 1.0
LOGDET_EPS = 1e-6


def cosine_kernel(vectors: np.ndarray) -> np.ndarray:
    """K = X X^T of the rows scaled to unit length; zero rows share one private feature (equal to
    one another, orthogonal to the rest), so the diagonal is 1. ``vectors`` is [n, d], or a stack
    [..., n, d] of sets of one size (then a stack of kernels)."""
    x = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(x, axis=-1)
    empty = norms <= 0
    x = np.divide(x, norms[..., None], out=np.zeros_like(x), where=~empty[..., None])
    if empty.any():
        x = np.concatenate([x, empty.astype(np.float64)[..., None]], axis=-1)
    k = x @ np.swapaxes(x, -1, -2)
    _diagonal(k)[...] = 1.0  # exactly 1, not 1 - round-off
    return k


def _diagonal(k: np.ndarray) -> np.ndarray:
    """A writable view of the diagonal of each kernel of a stack (or of one kernel)."""
    n = k.shape[-1]
    return np.lib.stride_tricks.as_strided(
        k, shape=(*k.shape[:-2], n), strides=(*k.strides[:-2], k.strides[-2] + k.strides[-1])
    )


def _value(x: np.ndarray) -> Any:
    """A float for one kernel, the array of values for a stack."""
    return float(x) if np.ndim(x) == 0 else x


# -- the definitions on one kernel (or on a stack of kernels of one size, the last two axes) -----


def rke_of_kernel(k: np.ndarray) -> Any:
    """RKE = 1 / ||K/n||_F^2 (n^2 over the sum of squared entries)."""
    n = k.shape[-1]
    return _value(n * n / np.sum(k * k, axis=(-2, -1)))


def dcscore_of_kernel(k: np.ndarray, tau: float = DCSCORE_TAU) -> Any:
    """DCScore = tr(softmax_row(K / tau)): the sum of each row's softmax weight on itself."""
    z = k / tau
    if np.abs(z).max(initial=0.0) > 700:  # exp would overflow: shift each row (same softmax)
        z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return _value(np.sum(np.diagonal(e, axis1=-2, axis2=-1) / e.sum(axis=-1), axis=-1))


def intdiv_of_kernel(k: np.ndarray) -> Any:
    """IntDiv = 1 - sum_ij p_i p_j K_ij with p_i = 1/n: one minus the mean kernel entry."""
    return _value(1.0 - k.mean(axis=(-2, -1)))


def logdet_of_kernel(k: np.ndarray, eps: float = LOGDET_EPS) -> Any:
    """LogDet = log det(K + eps I), from the eigenvalues of K (round-off negatives clipped to 0:
    K is positive semi-definite). Not by LU (slogdet), though it is cheaper: a set of identical
    responses has a singular K, and with a small eps its round-off moves LU's log-det by 0.07
    (n = 4, eps = 1e-14) where the clipped eigenvalues give log(n + eps) + (n - 1) log(eps)."""
    lam = np.clip(np.linalg.eigvalsh(k), 0.0, None)
    return _value(np.sum(np.log(lam + eps), axis=-1))


def chamfer_of_kernel(k: np.ndarray) -> Any:
    """Chamfer = mean over i of min_{j != i} d_ij, d = 1 - K."""
    d = 1.0 - k
    _diagonal(d)[...] = np.inf
    return _value(d.min(axis=-1).mean(axis=-1))


def remote_clique_of_kernel(k: np.ndarray) -> Any:
    """Remote clique = mean over pairs i < j of d_ij, d = 1 - K."""
    upper = np.triu_indices(k.shape[-1], k=1)
    return _value((1.0 - k[..., upper[0], upper[1]]).mean(axis=-1))


def weighted_vendi_of_kernel(k: np.ndarray, p: np.ndarray) -> Any:
    """VS_p = exp(-sum_i lam_i log lam_i), lam the eigenvalues of K o sqrt(p) sqrt(p)^T (they
    sum to sum_i p_i K_ii = 1); uniform p gives the Vendi Score of K / n."""
    root = np.sqrt(p)
    lam = np.linalg.eigvalsh(k * root[..., :, None] * root[..., None, :])
    if lam.ndim == 1:
        return vendi_from_eigenvalues(lam)
    return np.array([vendi_from_eigenvalues(row) for row in lam])


def weighted_intdiv_of_kernel(k: np.ndarray, p: np.ndarray) -> Any:
    """IntDiv_p = 1 - sum_ij p_i p_j K_ij."""
    return _value(1.0 - np.einsum("...i,...ij,...j->...", p, k, p))


class EmbedOptions(TypedDict, total=False):
    """The keyword options every metric of this module takes: how the texts are embedded
    (``batch_size``, ``device``, ``cache_dir``, ``precision``, as :func:`embed_texts` takes them),
    ``identical`` ("one", the default, or "model": see :mod:`diveval.semantic.identical`), and
    ``progress``, accepted for the engines' sake (the embedder shows its own bar on a terminal)."""

    batch_size: Optional[int]
    device: Optional[str]
    cache_dir: Optional[str]
    progress: Optional[bool]
    precision: Optional[str]
    identical: Optional[str]


# -- per set, then the mean ----------------------------------------------------------------------


def _per_set(
    name: str,
    sets: Any,
    of_kernel: Callable[..., Any],
    params: dict[str, Any],
    *,
    pairs: bool = False,
    model: Any,
    weights: Optional[list[np.ndarray]] = None,
    identical: Optional[str] = None,
    progress: Optional[bool] = None,
    **embed_options: Any,
) -> Score:
    """``of_kernel`` of each set's cosine kernel, and their mean. ``weights``: one probability
    vector per set, then ``of_kernel(K, p)``. ``embed_options``: batch_size, device, cache_dir,
    precision, as :func:`embed_texts` takes them."""
    del progress  # the embedder shows its own progress bar when stderr is a terminal
    items = require_sets(sets, name)
    rule = check_identical(identical, name)
    sizes = np.array([len(s) for s in items], dtype=np.int64)
    empty = np.flatnonzero(sizes == 0)
    if empty.size:
        raise InputError(f"{name} needs at least one response: set {int(empty[0])} is empty")
    if pairs:
        require_pairs(sizes, name)
    texts = [t for s in items for t in s]
    # one call for the whole input: the cached embedder encodes each unique text once
    vectors, emb = embed_texts(texts, model, **embed_options)
    # Sets of one size go through numpy as one stack of kernels: a loop over 1,000 small sets
    # spent more time in numpy's per-call overhead than in the arithmetic.
    values = np.empty(len(items))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    for m in np.unique(sizes):
        which = np.flatnonzero(sizes == m)
        rows = starts[which][:, None] + np.arange(m)
        kernels = cosine_kernel(vectors[rows])
        if rule == ONE:
            kernels[np.stack([same_text(items[g]) for g in which])] = 1.0
        if weights is None:
            values[which] = of_kernel(kernels)
        else:
            values[which] = of_kernel(kernels, np.stack([weights[g] for g in which]))
    sig = make_signature(
        name,
        model=emb.name,
        fp=emb.fingerprint,
        dev=signature_device(emb),
        prec=signature_precision(emb),
        kernel="cosine",
        **params,
        ident=rule,
        setting=SETS,
    )
    return Score(name, float(values.mean()), sig, SETS, values)


def _positive(value: float, what: str) -> float:
    if not value > 0:
        raise InputError(f"{what} must be > 0, got {value!r}")
    return float(value)


def rke(sets: Any, model: Any = None, **options: Unpack[EmbedOptions]) -> Score:
    """Rényi kernel entropy (Jalali et al. 2023), the order-2 Vendi Score in closed form, per set:

    RKE = 1 / ||K/n||_F^2 = n^2 / sum_ij K_ij^2

    over the cosine kernel K of the set's n embeddings. Identical responses give 1, mutually
    orthogonal ones give n: higher is more diverse. model: None (the offline all-MiniLM-L6-v2), a
    sentence-transformers name or folder, or any ``Embedder``.
    """
    return _per_set("rke", sets, rke_of_kernel, {}, model=model, **options)


def dcscore(
    sets: Any, model: Any = None, *, tau: float = DCSCORE_TAU, **options: Unpack[EmbedOptions]
) -> Score:
    """DCScore (Zhu et al. 2025), each response classified among its own set, per set:

    DCScore = tr(softmax_row(K / tau)) = sum_i exp(K_ii/tau) / sum_j exp(K_ij/tau)

    over the cosine kernel K of the set's n embeddings, temperature tau (1 by default, in the
    signature). Identical responses give 1, and a set whose responses are far apart approaches n:
    higher is more diverse.
    """
    tau = _positive(tau, "dcscore's temperature tau")
    of_kernel = partial(dcscore_of_kernel, tau=tau)
    return _per_set("dcscore", sets, of_kernel, {"tau": f"{tau:g}"}, model=model, **options)


def intdiv(sets: Any, model: Any = None, **options: Unpack[EmbedOptions]) -> Score:
    """Internal diversity, as the vendi-score package defines it, with uniform weights, per set:

    IntDiv = 1 - sum_ij p_i p_j K_ij,  p_i = 1/n  (one minus the mean entry of K, diagonal included)

    over the cosine kernel K of the set's n embeddings. Identical responses give 0: higher is more
    diverse (it may pass 1 when cosines are negative).
    """
    return _per_set("intdiv", sets, intdiv_of_kernel, {"p": "uniform"}, model=model, **options)


def logdet(
    sets: Any, model: Any = None, *, eps: float = LOGDET_EPS, **options: Unpack[EmbedOptions]
) -> Score:
    """Log-determinant of the cosine kernel, regularised, per set:

    LogDet = log det(K + eps I)

    eps = 1e-6 by default (in the signature) keeps it finite where K is singular (repeated
    responses, or more responses than embedding dimensions). The log of the squared volume the
    unit embeddings span: identical responses give the least, log(eps^(n-1) (n + eps)); higher is
    more diverse.
    """
    eps = _positive(eps, "logdet's eps")
    of_kernel = partial(logdet_of_kernel, eps=eps)
    return _per_set("logdet", sets, of_kernel, {"eps": f"{eps:g}"}, model=model, **options)


def chamfer(sets: Any, model: Any = None, **options: Unpack[EmbedOptions]) -> Score:
    """Chamfer distance (Cox et al. 2021): how far each response is from its nearest other, per set:

    Chamfer = (1/n) sum_i min_{j != i} d_ij,  d_ij = 1 - cos(x_i, x_j)

    At least two responses a set. Identical responses give 0: higher is more diverse. Equal to
    the ``diversity`` package's ``chamfer_dist`` on the same embeddings (it excludes the self-
    distance too), which rounds to 3 decimals.
    """
    return _per_set(
        "chamfer", sets, chamfer_of_kernel, {"dist": "1-cosine"}, pairs=True, model=model, **options
    )


def remote_clique(sets: Any, model: Any = None, **options: Unpack[EmbedOptions]) -> Score:
    """Remote clique (Cox et al. 2021): the mean distance between two responses of a set:

    RemoteClique = (2 / (n (n-1))) sum_{i<j} d_ij,  d_ij = 1 - cos(x_i, x_j)

    At least two responses a set. Identical responses give 0: higher is more diverse. The
    ``diversity`` package's ``remote_clique`` averages each row of d *including* the zero
    self-distance, i.e. sum_ij d_ij / n^2 = RemoteClique * (n-1)/n: smaller by a factor that
    depends on the set size. diveval averages the pairs only, so sets of different sizes compare.
    """
    return _per_set(
        "remote-clique",
        sets,
        remote_clique_of_kernel,
        {"dist": "1-cosine", "pairs": "i<j"},
        pairs=True,
        model=model,
        **options,
    )


def _weighted(
    name: str,
    of_kernel: Callable[[np.ndarray, np.ndarray], Any],
    sets: Any,
    logprobs: Any,
    model: Any,
    **embed_options: Any,
) -> Score:
    items = require_sets(sets, name)
    rows = set_logprobs(items, logprobs, name)
    if rows is None:
        raise InputError(
            f"{name} weighs each response by its sequence probability: the input needs a "
            '"logprobs" field (one number per response; `diveval sample` writes it where the '
            "backend gives them), or use the uniform form"
        )
    return _per_set(
        name,
        items,
        of_kernel,
        {"p": "logprobs", "q": "1"} if name.startswith("vendi") else {"p": "logprobs"},
        model=model,
        weights=[sequence_probabilities(r) for r in rows],
        **embed_options,
    )


def vendi_weighted(
    sets: Any, model: Any = None, *, logprobs: Any = None, **options: Unpack[EmbedOptions]
) -> Score:
    """The probability-weighted Vendi Score (Friedman & Dieng 2022, as the vendi-score package's
    ``score_K(K, p=p)`` computes it), per set:

    VS_p = exp(H(eig(K o sqrt(p) sqrt(p)^T)))

    over the cosine kernel K of the set's embeddings, with p the responses' sequence
    probabilities from the input's ``logprobs``, normalised within the set. A response the model
    found far less likely counts for less: a set whose mass sits on one response is near 1 however
    varied the unlikely ones are. Uniform p gives ``vendi``. Higher is more diverse.
    """
    return _weighted("vendi-weighted", weighted_vendi_of_kernel, sets, logprobs, model, **options)


def intdiv_weighted(
    sets: Any, model: Any = None, *, logprobs: Any = None, **options: Unpack[EmbedOptions]
) -> Score:
    """Internal diversity weighted by sequence probability (the vendi-score package's
    ``intdiv_K(K, p=p)``), per set:

    IntDiv_p = 1 - sum_ij p_i p_j K_ij

    with p the responses' sequence probabilities from the input's ``logprobs``, normalised within
    the set. Uniform p gives ``intdiv``. Higher is more diverse.
    """
    return _weighted("intdiv-weighted", weighted_intdiv_of_kernel, sets, logprobs, model, **options)
