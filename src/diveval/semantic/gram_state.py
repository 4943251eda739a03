"""The Vendi Score's one core: the statistics of a cosine kernel, which add over any split of the
items, and the one finisher every route ends in.

For unit-length feature rows x_i with counts c_i, the Gram matrix G = sum_i c_i x_i x_i^T (d x d)
has the nonzero eigenvalues of the kernel K = X X^T, and it adds over any split of the rows (each
shard or Ray batch embeds its own texts; the merge is a sum of d x d matrices, 384 x 384 for
MiniLM). Rows with no direction (norm 0) are orthogonal to every other row and identical to one
another: they add nothing to G and one eigenvalue, their count. The finisher takes a matrix that
shares K's nonzero eigenvalues (G, or the dual C^1/2 U U^T C^1/2 of a few distinct rows,
:func:`diveval.semantic.vendi.vendi_from_features`), the item count n and the featureless count,
and returns VS_q of the eigenvalues over n. :class:`GramState` is the mergeable state;
:func:`diveval.semantic.vendi.vendi` is that state over the whole input where the d x d matrix is
the smaller one.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, Mapping, Optional, Sequence, Union

import numpy as np

from ..errors import InputError
from ..models.devices import SETTINGS_OPTIONS, model_signature
from ..pairs import time_text
from ..progress import status
from ..results import CORPUS, Score, make_signature
from ..state import SAME, SUM, DeclaredState, present
from .embedding_diversity import embed_texts
from .identical import check_identical


def parse_order(q: Union[float, str]) -> float:
    """q as a float > 0 (``"inf"`` accepted)."""
    try:
        value = float(q)
    except (TypeError, ValueError):
        raise InputError(f"Vendi order q must be a number > 0 or 'inf', got {q!r}") from None
    if not value > 0:  # also refuses NaN
        raise InputError(f"Vendi order q must be > 0, got {q!r}")
    return value


def format_order(q: float) -> str:
    return "inf" if math.isinf(q) else f"{q:g}"


def vendi_from_eigenvalues(eigenvalues: np.ndarray, q: Union[float, str] = 1.0) -> float:
    """exp of the order-q Rényi entropy of eigenvalues (normalized to sum 1, negatives clipped)."""
    q = parse_order(q)
    lam = np.clip(np.asarray(eigenvalues, dtype=np.float64).ravel(), 0.0, None)
    total = lam.sum()
    if total <= 0:
        raise InputError("Vendi Score of an empty or all-zero kernel is undefined")
    lam = lam / total
    # Round-off leaves eigenvalues near 1e-17 where the true value is 0; they must not count.
    lam = lam[lam > lam.max() * 1e-12]
    if q == 1.0:
        return float(math.exp(-np.sum(lam * np.log(lam))))
    if math.isinf(q):
        return float(1.0 / lam.max())
    # log-sum-exp of q*log(λ) keeps large q from underflowing
    logs = q * np.log(lam)
    top = logs.max()
    log_sum = top + math.log(np.exp(logs - top).sum())
    return float(math.exp(log_sum / (1.0 - q)))


def eigenvalues_in_place(small: np.ndarray, plan: Any = None, progress: Any = None) -> np.ndarray:
    """Eigenvalues of the symmetric matrix ``small`` (its lower triangle), overwriting it: no
    copy of the m x m matrix (numpy's eigvalsh makes one). One LAPACK call, so no bar: a spinner
    with the estimated time where it is long (``progress`` True, a terminal)."""
    from scipy.linalg import eigvalsh

    if small.size == 0:
        return np.zeros(0)
    if plan is not None and progress is True and plan.seconds > 1:
        m = small.shape[0]
        with status(
            f"{plan.metric}: eigenvalues of a {m:,} x {m:,} matrix, {time_text(plan.seconds)}"
        ):
            return eigenvalues_in_place(small)
    # the transpose of a C-ordered array is Fortran-ordered, what LAPACK takes without a copy;
    # its upper triangle is small's lower one, the two agree up to round-off
    return eigvalsh(small.T, lower=False, overwrite_a=True, check_finite=False, driver="evd")


def kernel_eigenvalues(
    matrix: np.ndarray, n_items: float, n_empty: float = 0, plan: Any = None, progress: Any = None
) -> np.ndarray:
    """The nonzero eigenvalues of K / n from ``matrix`` (overwritten), a matrix that shares K's
    nonzero eigenvalues, with the featureless items' one eigenvalue (their count) beside them."""
    if n_items <= 0:
        raise InputError("the Vendi Score needs at least one item")
    values = eigenvalues_in_place(matrix, plan, progress)
    if n_empty:
        values = np.append(values, float(n_empty))
    return values / float(n_items)


def unit_scale(x: Any) -> np.ndarray:
    """1 / ||x_i|| of each row (dense or scipy sparse), 0 for a row with no direction."""
    from scipy import sparse

    norms_sq = (
        np.asarray(x.multiply(x).sum(axis=1)).ravel()
        if sparse.issparse(x)
        else np.einsum("ij,ij->i", x, x)
    )
    return np.divide(1.0, np.sqrt(norms_sq), out=np.zeros_like(norms_sq), where=norms_sq > 0)


class GramState(DeclaredState):
    """Corpus Vendi Score (cosine kernel of feature rows) at any scale: the d x d matrix
    G = sum of c x x^T over the unit-length rows x (c: a row's count, 1 unless given), the item
    count n and the count of rows with no direction (see the module).

    ``signature`` carries the one-process signature's choices (model, fingerprint, device), so
    the merged Score's signature is the one-process run's.
    """

    kind: ClassVar[str] = "gram"
    SETTINGS = ("dim", "signature")
    FIELDS = {"gram": SUM, "n_rows": SUM, "n_empty": SUM}

    def __init__(self, dim: int, signature: dict[str, Any] | None = None):
        self.dim = int(dim)
        self.signature = dict(signature or {})
        self.gram = np.zeros((self.dim, self.dim))
        self.n_rows = 0
        self.n_empty = 0

    def update(self, features: np.ndarray, counts: Optional[np.ndarray] = None) -> GramState:
        x = np.asarray(features, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != self.dim:
            raise InputError(f"a GramState of dimension {self.dim} got features of shape {x.shape}")
        c = np.ones(x.shape[0]) if counts is None else np.asarray(counts, dtype=np.float64)
        scale = unit_scale(x)
        unit = x * scale[:, None]  # rows with no direction stay zero: they add nothing to G
        self.gram += unit.T @ (unit * c[:, None])
        self.n_rows += int(c.sum())
        self.n_empty += int(c[scale == 0].sum())
        return self

    def eigenvalues(self) -> np.ndarray:
        """The nonzero-kernel eigenvalues of K / n (they sum to 1)."""
        return kernel_eigenvalues(self.gram.copy(), self.n_rows, self.n_empty)


class VendiState(DeclaredState):
    """The state the ``vendi`` row names: texts in, embedded with the run's model options
    (input, not settings), their Gram matrix added up; ``result()`` is the corpus Vendi Score
    (q = 1) of all of them. The fields are :class:`GramState`'s, with the model's ``choices``
    (name, fingerprint, device: the signature's) beside them; a part that saw no text loaded
    no model, so its ``gram`` and ``choices`` are None and it merges with any other."""

    kind: ClassVar[str] = "vendi"
    FIELDS = {
        "gram": present(SUM),
        "n_rows": SUM,
        "n_empty": SUM,
        "choices": present(SAME),
    }
    _MODEL = SETTINGS_OPTIONS

    def __init__(self, options: Mapping[str, Any] | None = None):
        self.options = dict(options or {})
        self.gram: np.ndarray | None = None
        self.n_rows = 0
        self.n_empty = 0
        self.choices: dict[str, Any] | None = None

    def update(self, texts: Sequence[str]) -> None:
        texts = list(texts)
        if not texts:
            return
        model_options = {k: self.options.get(k) for k in self._MODEL}
        feats, emb = embed_texts(texts, self.options.get("embedding_model"), **model_options)
        rule = check_identical(self.options.get("identical"), "vendi")
        part = GramState(feats.shape[1], {**embedding_choices(emb), "ident": rule}).update(feats)
        self.gram = part.gram if self.gram is None else self.gram + part.gram
        self.n_rows += part.n_rows
        self.n_empty += part.n_empty
        self.choices = SAME.combine([part.signature, self.choices or part.signature])

    def result(self) -> Score:
        if self.gram is None or self.choices is None:
            raise InputError("the Vendi Score needs at least one item")
        state = GramState(self.gram.shape[0], self.choices)
        state.gram, state.n_rows, state.n_empty = self.gram, self.n_rows, self.n_empty
        return vendi_from_gram(state)


def embedding_choices(emb: Any) -> dict[str, Any]:
    """The signature's choices of the embedding kernel: the model that embedded the texts."""
    return {"kernel": "embedding", **model_signature(emb)}


def vendi_from_gram(state: GramState, q: Union[float, str] = 1.0) -> Score:
    """The corpus Vendi Score (value and signature of :func:`~diveval.semantic.vendi.vendi`) from
    a merged GramState."""
    q = parse_order(q)
    value = vendi_from_eigenvalues(state.eigenvalues(), q)
    sig = make_signature("vendi", **state.signature, q=format_order(q), setting=CORPUS)
    return Score("vendi", value, sig, CORPUS)
