"""The answer-equivalence model that ships inside diveval (``--judge answers``).

It says how likely two answers to one prompt are to mean the same, as NoveltyBench's own classifier
(DeBERTa-v3-large, not available offline) would, and was trained from that classifier's stored
classes (``training/train_answers_judge.py``; the card is ``answers_minilm/MODEL_CARD.md``).

A bi-encoder, not a cross-encoder: each answer is embedded once (its first ``max_length``
WordPiece tokens, the benchmark's truncation, mean-pooled, L2-normalised) and a pair costs a dot
product, so a set of k answers costs k encoder passes where a cross-encoder costs one per pair of
up to twice the length. P(same) is a logistic head over the cosine and the lexical overlaps of
:mod:`diveval.text.answer_overlap`; its weights and threshold are in ``config.json``.

Runs with onnxruntime and ``tokenizers`` only (no torch), offline. Heavy imports happen in the
constructor, so ``import diveval`` stays cheap.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Optional, Sequence, Union

import numpy as np

from ..progress import bars_enabled, track
from ..text.answer_overlap import FEATURES, pair_features
from .fingerprint import file_sha256
from .loaded import load_once
from .shipped_nli import weight_only_int8_session

#: Folder of the shipped weights, tokenizer, head and card (package data).
MODEL_DIR = Path(__file__).resolve().parent / "answers_minilm"
#: Answers per encoder run; scores do not depend on it (weight-only int8, fp32 activations).
DEFAULT_BATCH_SIZE = 32


class AnswerEquivalenceModel:
    """P(two answers mean the same) from a shipped (or same-layout) bi-encoder and head.

    Loaded once per process and never changed after: embeddings are kept by the caller for its
    run (the judge in ``semantic.equivalence``), not here.
    """

    def __init__(
        self,
        model_dir: Union[str, Path, None] = None,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        threads: Optional[int] = None,
    ) -> None:
        from tokenizers import BertWordPieceTokenizer

        self.model_dir = Path(model_dir) if model_dir is not None else MODEL_DIR
        cfg = json.loads((self.model_dir / "config.json").read_text())
        self.model_path = self.model_dir / cfg.get("model_file", "model.w8.onnx")
        if not self.model_path.exists():
            raise FileNotFoundError(f"no answer-equivalence model file at {self.model_path}")
        head = cfg["head"]
        if tuple(head["features"]) != FEATURES:
            raise ValueError(
                f"{self.model_dir}: head features {head['features']} are not {FEATURES}"
            )
        self.weights = np.asarray(head["weights"], dtype=np.float64)
        self.bias = float(head["bias"])
        #: The threshold fitted with the head (P(same) above it: equivalent).
        self.threshold = float(head["threshold"])
        self.max_length = int(cfg.get("max_length", 128))
        self.batch_size = int(batch_size)
        self.name = cfg.get("name", "diveval-answers")
        # the weights and the head: a refitted head is another judge, in the signature too
        self.fingerprint = hashlib.sha256(
            (file_sha256(self.model_path) + json.dumps(head, sort_keys=True)).encode()
        ).hexdigest()[:12]
        self._tok = BertWordPieceTokenizer(
            str(self.model_dir / "vocab.txt"), lowercase=cfg.get("lowercase", True)
        )
        self._tok.enable_truncation(self.max_length)
        self._session = weight_only_int8_session(self.model_path, threads)

    def __repr__(self) -> str:
        return f"AnswerEquivalenceModel(name={self.name!r}, fingerprint={self.fingerprint!r})"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit embeddings, one row per text (pass distinct texts: each is encoded)."""
        out = np.zeros((len(texts), 0))
        if not texts:
            return out
        ids = [e.ids for e in self._tok.encode_batch(list(texts))]
        # sorted by length so that a batch pads to its own longest answer, not max_length
        order = np.argsort([len(x) for x in ids], kind="stable")
        starts = range(0, len(order), self.batch_size)
        show = bars_enabled() and len(texts) >= 256
        for s in track(starts, f"embedding {len(texts)} answers", len(starts), show):
            batch = order[s : s + self.batch_size]
            rows = self._run([ids[i] for i in batch])
            if out.shape[1] == 0:
                out = np.zeros((len(texts), rows.shape[1]))
            out[batch] = rows
        return out

    def _run(self, ids: list) -> np.ndarray:
        n = max(len(x) for x in ids)
        input_ids = np.zeros((len(ids), n), dtype=np.int64)
        mask = np.zeros((len(ids), n), dtype=np.int64)
        for i, a in enumerate(ids):
            input_ids[i, : len(a)] = a
            mask[i, : len(a)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask, "token_type_ids": 0 * mask}
        (emb,) = self._session.run(["embedding"], feeds)
        return emb.astype(np.float64)

    def probabilities(self, cosines: np.ndarray, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """P(same meaning) of each pair from the head, given the pairs' embedding cosines (the
        short-answer rule is the judge's, not the model's)."""
        if not pairs:
            return np.zeros(0)
        x = np.array([pair_features(c, a, b) for c, (a, b) in zip(cosines, pairs)])
        return 1.0 / (1.0 + np.exp(-(x @ self.weights + self.bias)))


def default_answers_model(batch_size: int = DEFAULT_BATCH_SIZE) -> AnswerEquivalenceModel:
    """The shipped model, loaded once per process (``models.loaded``)."""
    return load_once(
        ("answers", "shipped", batch_size), lambda: AnswerEquivalenceModel(batch_size=batch_size)
    )


def shipped_model_available() -> bool:
    """True when the weights are installed and onnxruntime / tokenizers can be imported."""
    import importlib.util

    return (
        (MODEL_DIR / "config.json").exists()
        and importlib.util.find_spec("onnxruntime") is not None
        and importlib.util.find_spec("tokenizers") is not None
    )
