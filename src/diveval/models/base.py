"""The small protocols every model backend implements. Metrics see only these, so each metric runs
with a stub in tests and with a real model in use.

Every backend has a ``name`` and a ``fingerprint`` (a short hash of its weights, or of whatever
fixes its outputs) that go into the signature of any score it produced.
"""

from __future__ import annotations

from typing import Optional, Protocol, Sequence, runtime_checkable

import numpy as np

#: Column order of every NLI probability matrix in diveval.
NLI_LABELS = ("contradiction", "neutral", "entailment")
CONTRADICTION, NEUTRAL, ENTAILMENT = 0, 1, 2


class BatchedNLI:
    """The ``predict`` of an NLI backend that runs pairs in batches: the pairs checked, then
    ``_fill(out, premises, hypotheses, batch_size)`` writes each pair's row of ``out``."""

    batch_size: int

    def predict(
        self, premises: Sequence[str], hypotheses: Sequence[str], batch_size: Optional[int] = None
    ) -> np.ndarray:
        """Probabilities [n, 3] in the order of NLI_LABELS, float64; ``batch_size``: pairs per
        forward pass (None: the backend's)."""
        if len(premises) != len(hypotheses):
            raise ValueError(f"{len(premises)} premises but {len(hypotheses)} hypotheses")
        out = np.zeros((len(premises), 3), dtype=np.float64)
        if len(out):
            self._fill(out, premises, hypotheses, max(1, int(batch_size or self.batch_size)))
        return out

    def _fill(
        self, out: np.ndarray, premises: Sequence[str], hypotheses: Sequence[str], batch_size: int
    ) -> None:
        raise NotImplementedError


@runtime_checkable
class NLIModel(Protocol):
    name: str
    fingerprint: str

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """Probabilities [n, 3] in the order of NLI_LABELS, one row per (premise, hypothesis)."""
        ...


@runtime_checkable
class Embedder(Protocol):
    name: str
    fingerprint: str

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings [n, d], one row per text."""
        ...


@runtime_checkable
class PairScorer(Protocol):
    name: str
    fingerprint: str

    def score_pairs(self, firsts: Sequence[str], seconds: Sequence[str]) -> np.ndarray:
        """One score [n] per (firsts[i], seconds[i]), e.g. a classifier's P(similar)."""
        ...


@runtime_checkable
class Generator(Protocol):
    name: str

    def sample(self, context: str, k: int, seed: int) -> list[str]:
        """k responses to ``context``; the same seed gives the same responses."""
        ...
