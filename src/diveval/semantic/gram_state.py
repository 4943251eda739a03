"""The mergeable state of the corpus Vendi Score with an embedding kernel: a Gram matrix that adds
over any split of the corpus (shards, Ray batches), so the engines can carry it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from ..errors import InputError
from ..models.devices import SETTINGS_OPTIONS
from ..state import SUM, DeclaredState
from ..state_files import load_state, save_state


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
        from .embedding_diversity import unit_rows

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


class VendiState:
    """The state the ``vendi`` row names: texts in, embedded with the run's model options, their
    :class:`GramState` added up; ``result()`` is the corpus Vendi Score (q = 1) of all of them.
    The model's name and fingerprint enter the Gram state's settings at the first update, so an
    empty part (no text, no model loaded) merges with any other."""

    kind: ClassVar[str] = "vendi"
    _MODEL = SETTINGS_OPTIONS

    def __init__(self, options: Mapping[str, Any] | None = None):
        self.options = dict(options or {})
        self.gram: GramState | None = None

    def settings(self) -> dict[str, Any]:
        return {"kind": self.kind}

    def update(self, texts: Sequence[str]) -> None:
        from .vendi import embedding_gram_state

        texts = list(texts)
        if not texts:
            return
        part = embedding_gram_state(
            texts,
            self.options.get("embedding_model"),
            identical=self.options.get("identical"),
            **{k: self.options.get(k) for k in self._MODEL},
        )
        self.gram = part if self.gram is None else self.gram.merge(part)

    def merge(self, *others: VendiState) -> VendiState:
        from ..state import check_mergeable

        check_mergeable(self, others)
        grams = [s.gram for s in (self, *others) if s.gram is not None]
        out = VendiState(self.options)
        out.gram = grams[0].merge(*grams[1:]) if grams else None
        return out

    def result(self) -> Any:
        from .vendi import vendi_from_gram

        if self.gram is None:
            raise InputError("the Vendi Score needs at least one item")
        return vendi_from_gram(self.gram)

    def dump(self) -> tuple[dict[str, Any], dict[str, Any]]:
        if self.gram is None:
            return {"gram": None}, {}
        header, arrays = self.gram.dump()
        return {"gram": {**self.gram.settings(), **header}}, arrays

    @classmethod
    def restore(cls, header: dict[str, Any], data: Mapping[str, Any]) -> VendiState:
        state = cls()
        if header["gram"] is not None:
            state.gram = GramState.restore(header["gram"], data)
        return state

    def save(self, path: str | Path) -> None:
        save_state(path, self, *self.dump())

    @classmethod
    def load(cls, path: str | Path) -> VendiState:
        return load_state(path, cls.kind, cls.restore)
