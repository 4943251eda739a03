"""The mergeable state of the corpus Vendi Score with an embedding kernel: a Gram matrix that adds
over any split of the corpus (shards, Ray batches), so the engines can carry it."""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Sequence, Union

import numpy as np

from ..errors import InputError
from ..models.devices import SETTINGS_OPTIONS
from ..results import CORPUS, Score, make_signature
from ..state import SAME, SUM, DeclaredState, present
from .embedding_diversity import embed_texts, unit_rows
from .identical import check_identical
from .vendi import embedding_choices, format_order, parse_order, vendi_from_eigenvalues


class GramState(DeclaredState):
    """Corpus Vendi Score (cosine kernel of feature rows) at any scale: the d x d matrix
    G = sum of x x^T over the unit-length rows x, and the row count n.

    The kernel K = X X^T and X^T X share their nonzero eigenvalues, so the Vendi Score of the
    whole corpus is that of the eigenvalues of G / n, and G adds over any split of the rows (each
    shard or Ray batch embeds its own texts; the merge is a sum of d x d matrices, 384 x 384 for
    MiniLM). Rows with no direction (norm 0) are orthogonal to every other row and identical to
    one another (as :mod:`diveval.semantic.vendi` treats them): they add one eigenvalue, their
    count / n. ``signature`` carries the one-process signature's choices (model, fingerprint,
    device), so the merged Score's signature is the one-process run's.
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

    def update(self, features: np.ndarray) -> GramState:
        x = np.asarray(features, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != self.dim:
            raise InputError(f"a GramState of dimension {self.dim} got features of shape {x.shape}")
        unit = unit_rows(x)  # rows with no direction stay zero: they add nothing to the Gram
        self.gram += unit.T @ unit
        self.n_rows += x.shape[0]
        self.n_empty += int((~unit.any(axis=1)).sum())
        return self

    def eigenvalues(self) -> np.ndarray:
        """The nonzero-kernel eigenvalues of K / n (they sum to 1)."""
        if self.n_rows == 0:
            raise InputError("the Vendi Score needs at least one item")
        g = (self.gram + self.gram.T) / 2
        values = np.linalg.eigvalsh(g)
        if self.n_empty:
            values = np.append(values, float(self.n_empty))
        return values / self.n_rows


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


def vendi_from_gram(state: GramState, q: Union[float, str] = 1.0) -> Score:
    """The corpus Vendi Score (value and signature of :func:`~diveval.semantic.vendi.vendi`) from
    a merged GramState."""
    q = parse_order(q)
    value = vendi_from_eigenvalues(state.eigenvalues(), q)
    sig = make_signature("vendi", **state.signature, q=format_order(q), setting=CORPUS)
    return Score("vendi", value, sig, CORPUS)
