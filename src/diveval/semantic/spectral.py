"""Spectral measures of a response set's similarity graph (Lin, Trivedi & Sun 2023, "Generating
with Confidence"), a sets-only family.

Each set of k responses is a weighted graph: W is the symmetric similarity matrix of the set
(``pair_similarity``: NLI entailment by default, W_ii = 1), D = diag(W 1) its degrees, and
L = I - D^-1/2 W D^-1/2 its normalised Laplacian, with eigenvalues lambda_1 <= ... <= lambda_k in
[0, 2] and orthonormal eigenvectors u_1 .. u_k. Then

- EigV = sum_k max(0, 1 - lambda_k): a smooth count of the clusters in the graph (k responses that
  share nothing give k; identical ones give 1);
- Degree = 1 - trace(D) / k^2 = 1 - sum_ij W_ij / k^2: one minus the mean similarity (0 for
  identical responses);
- Eccentricity = ||[v_1 - v_bar, ..., v_k - v_bar]||_2 (the Frobenius norm), where v_j holds the
  j-th coordinates of the eigenvectors whose eigenvalue is below a threshold (0.9, the authors'
  ``eigv_threshold``) and v_bar their mean: how far the responses lie from their centre in the
  spectral embedding (0 for identical responses).

All three: higher = more diverse (the paper reads them as uncertainty). The value is the mean over
sets. A set of one response has W = [1], L = [0]: EigV 1, Degree 0, Eccentricity 0, the least
diverse values, as the kernel metrics of ``set_geometry`` score a set of one; an empty set is an
InputError.

Where diveval differs from the authors' code (``pipeline/uq_bb.py`` and ``pipeline/clustering.py``
of zlin7/UQ-NLG), on purpose: their overall Degree is mean_i sum_j (1 - W_ij) = k (1 - trace(D)/k^2),
the paper's U_Deg times k; diveval reports the paper's U_Deg, which does not grow with k (the tests
check both). Their W is cast to float32 before the Laplacian; diveval keeps float64. The NLI
temperature is 1 by default (the paper's probabilities; their code's default is 3, a parameter
here). Eccentricity is the same: the eigenvectors of eigenvalue < 0.9, rows centred, the norm of
the distances.

Identical responses: W_ij = 1 for two responses with the same text by default (``identical="one"``),
as the authors' code has it (it scores each distinct answer once and gives repeated answers the
diagonal's logits, entailment 1: ``recover_sim_mat_new``); ``identical="model"`` keeps the NLI
model's score of the pair. Three copies of "yes ." under the shipped NLI model (P(entailment) of
the sentence and itself 0.81): EigV 1 and Degree 0 with ``one``, 1.14 and 0.124 with ``model``.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Optional

import numpy as np

from ..errors import InputError
from ..results import SETS, Score, make_signature
from .pair_similarity import SimilarityOptions, by_size, set_similarities

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

DEFAULT_SIMILARITY = "nli-entailment"
ECCENTRICITY_THRESHOLD = 0.9


def laplacians(w: np.ndarray) -> np.ndarray:
    """I - D^-1/2 W D^-1/2 for a stack of W [..., k, k] (every degree is >= W_ii = 1 > 0)."""
    d = w.sum(axis=-1)
    inv = 1.0 / np.sqrt(d)
    k = w.shape[-1]
    return np.eye(k) - w * inv[..., :, None] * inv[..., None, :]


def eigv_of(w: np.ndarray) -> np.ndarray:
    """EigV = sum max(0, 1 - lambda) over the Laplacian's eigenvalues, for a stack of W."""
    lam = np.linalg.eigvalsh(laplacians(w))
    return np.clip(1.0 - lam, 0.0, None).sum(axis=-1)


def degree_of(w: np.ndarray) -> np.ndarray:
    """Degree = 1 - trace(D) / k^2 = 1 - sum_ij W_ij / k^2, for a stack of W."""
    k = w.shape[-1]
    return 1.0 - w.sum(axis=(-2, -1)) / (k * k)


def eccentricity_of(w: np.ndarray, threshold: float = ECCENTRICITY_THRESHOLD) -> np.ndarray:
    """The norm of the centred spectral embedding (eigenvectors of eigenvalue < threshold), for a
    stack of W."""
    lam, u = np.linalg.eigh(laplacians(w))
    centred = u - u.mean(axis=-2, keepdims=True)  # rows are responses, columns eigenvectors
    spread = (centred * centred).sum(axis=-2)  # per eigenvector
    return np.sqrt((spread * (lam < threshold)).sum(axis=-1))


def _spectral(
    name: str,
    sets: Any,
    of_stack: Callable[[np.ndarray], np.ndarray],
    params: dict[str, Any],
    similarity: Optional[str],
    **options: Unpack[SimilarityOptions],
) -> Score:
    """``of_stack`` of each set's similarity matrix W, and their mean."""
    items, matrices, sim_params = set_similarities(
        sets, similarity or DEFAULT_SIMILARITY, name, **options
    )
    values = np.empty(len(items))
    for _, index in by_size(matrices).items():
        values[index] = of_stack(np.stack([matrices[g] for g in index]))
    sig = make_signature(name, **sim_params, lap="sym", **params, setting=SETS)
    return Score(name, float(values.mean()), sig, SETS, values)


def spectral_eigv(
    sets: Any,
    similarity: Optional[str] = None,
    *,
    progress: Optional[bool] = None,
    **options: Unpack[SimilarityOptions],
) -> Score:
    """EigV (Lin et al. 2023) of each set's similarity graph, and the mean over sets:

    EigV = sum_k max(0, 1 - lambda_k),  lambda: eigenvalues of L = I - D^-1/2 W D^-1/2

    similarity: nli-entailment (default), nli-contradiction, cosine, jaccard or ngram (see
    ``diveval.semantic.pair_similarity``); temperature: of the NLI probabilities (1 by default);
    identical: "one" (default: two responses with the same text have W_ij = 1) or "model" (the
    model's score of the pair; see ``diveval.semantic.identical``).
    """
    del progress  # the models show their own progress bars
    return _spectral("spectral-eigv", sets, eigv_of, {"eig": "clip0"}, similarity, **options)


def spectral_degree(
    sets: Any,
    similarity: Optional[str] = None,
    *,
    progress: Optional[bool] = None,
    **options: Unpack[SimilarityOptions],
) -> Score:
    """Degree (Lin et al. 2023's U_Deg) of each set's similarity graph, and the mean over sets:

    Degree = 1 - trace(D) / k^2 = 1 - sum_ij W_ij / k^2

    The authors' code reports k times this (mean_i sum_j (1 - W_ij)); the paper's form is used.
    """
    del progress  # the models show their own progress bars
    return _spectral("spectral-degree", sets, degree_of, {"norm": "k^2"}, similarity, **options)


def spectral_eccentricity(
    sets: Any,
    similarity: Optional[str] = None,
    *,
    threshold: float = ECCENTRICITY_THRESHOLD,
    progress: Optional[bool] = None,
    **options: Unpack[SimilarityOptions],
) -> Score:
    """Eccentricity (Lin et al. 2023's U_Ecc) of each set's similarity graph, and the mean:

    Eccentricity = sqrt(sum_j ||v_j - v_bar||^2),  v_j = row j of [u_i : lambda_i < threshold]

    threshold: the eigenvalue cut-off that picks the eigenvectors (0.9, the authors' default).
    """
    del progress  # the models show their own progress bars
    if not np.isfinite(threshold):
        raise InputError(f"spectral-eccentricity: threshold must be finite, got {threshold!r}")
    threshold = float(threshold)
    of_stack = partial(eccentricity_of, threshold=threshold)
    params = {"eig_below": f"{threshold:g}"}
    return _spectral("spectral-eccentricity", sets, of_stack, params, similarity, **options)
