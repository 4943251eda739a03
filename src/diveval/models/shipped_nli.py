"""The NLI cross-encoder that ships inside diveval: MiniLM-L6, 3-way, int8 ONNX.

Runs with onnxruntime and the ``tokenizers`` WordPiece tokenizer only (no torch), fully offline.
Probabilities come in the fixed order (contradiction, neutral, entailment). How it was trained and
how well it does: ``nli_minilm/MODEL_CARD.md``. Heavy imports happen in the constructor, so
``import diveval`` stays cheap.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional, Sequence, Union

import numpy as np

from ..progress import bars_enabled, track
from .base import NLI_LABELS, BatchedNLI
from .fingerprint import file_sha256
from .loaded import load_once
from .threads import onnx_threads

#: Folder of the shipped weights, tokenizer and card (package data).
MODEL_DIR = Path(__file__).resolve().parent / "nli_minilm"
MODEL_NAME = "diveval-nli-minilm-l6"
#: Pairs per model run; any size gives the same scores (see ShippedNLIModel).
DEFAULT_BATCH_SIZE = 32


def weight_only_int8_session(model_path: Path, threads: Optional[int] = None):
    """An onnxruntime CPU session of a shipped weight-only int8 model (``threads``: None for
    ``models.threads``' default)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    # Fold DequantizeLinear of the int8 weights into fp32 constants once, at load (onnxruntime
    # keeps QDQ pairs unfolded by default, for quantised kernels this model does not use):
    # otherwise every run dequantises all weights again.
    opts.add_session_config_entry("session.disable_quant_qdq", "1")
    # onnxruntime's default (a thread per core, two pools) oversubscribes a busy machine
    opts.intra_op_num_threads = int(threads) if threads else onnx_threads()
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(
        str(model_path), sess_options=opts, providers=["CPUExecutionProvider"]
    )


class ShippedNLIModel(BatchedNLI):
    """A 3-way NLI cross-encoder stored as an ONNX file beside a BERT ``vocab.txt``.

    ``model_dir`` defaults to the shipped model; any folder in the same layout works (``model_file``
    picks one ONNX file in it, e.g. the fp32 export for comparison). Pairs are sorted by length and
    padded per batch, so a batch costs what its longest pair costs, not ``max_length``.

    ``batch_size`` defaults to 32, the fastest measured (``benchmarks/nli.py``). Scores do not
    depend on it: the weights are int8 but activations stay fp32 (weight-only quantisation,
    ``training/weight_only_int8.py``), so no scale is taken from the batch, and padding adds
    exact zeros; a pair's probabilities are bit-identical alone, in any batch and in any order.
    (The earlier dynamic int8 file took each activation's scale from the whole batch, which moved
    a pair's probabilities by up to ~0.03 with its neighbours; its default batch size was 1.)
    """

    def __init__(
        self,
        model_dir: Union[str, Path, None] = None,
        *,
        model_file: Optional[str] = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_length: Optional[int] = None,
        threads: Optional[int] = None,
    ) -> None:
        from tokenizers import BertWordPieceTokenizer

        self.model_dir = Path(model_dir) if model_dir is not None else MODEL_DIR
        cfg_path = self.model_dir / "config.json"
        cfg = json.loads(cfg_path.read_text()) if cfg_path.exists() else {}
        default_file = cfg.get("model_file", "model.w8.onnx")
        self.model_path = self.model_dir / (model_file or default_file)
        if not self.model_path.exists():
            raise FileNotFoundError(f"no NLI model file at {self.model_path}")
        labels = tuple(cfg.get("labels", NLI_LABELS))
        if labels != NLI_LABELS:
            raise ValueError(f"{self.model_dir}: label order {labels} is not {NLI_LABELS}")
        self.batch_size = int(batch_size)
        self.max_length = int(max_length or cfg.get("max_length", 128))
        self.name = cfg.get("name", MODEL_NAME)
        if model_file and model_file != default_file:  # e.g. the fp32 export: another model
            self.name = f"{self.name}:{Path(model_file).stem}"
        # Short sha256 of the weights: what a score's signature records.
        self.fingerprint = file_sha256(self.model_path)[:12]

        self._tok = BertWordPieceTokenizer(
            str(self.model_dir / "vocab.txt"), lowercase=cfg.get("lowercase", True)
        )
        # a pair is cut to max_length tokens in all ([CLS] a [SEP] b [SEP]), a token at a time
        # from the longer text (tokenizers' longest_first): two long answers keep about 62 tokens
        # each. The model was trained with this cut (MODEL_CARD.md); signatures name it
        # (``truncation``), since on LLM answers it decides what the model reads
        self._tok.enable_truncation(self.max_length, strategy="longest_first")
        self.truncation = f"pair{self.max_length}-longest-first"
        self._session = weight_only_int8_session(self.model_path, threads)
        self._input_names = {i.name for i in self._session.get_inputs()}

    def __repr__(self) -> str:
        return f"ShippedNLIModel(name={self.name!r}, fingerprint={self.fingerprint!r})"

    def _encode(self, premises: Sequence[str], hypotheses: Sequence[str]):
        enc = self._tok.encode_batch(list(zip(premises, hypotheses)))
        return [e.ids for e in enc], [e.type_ids for e in enc]

    def _run(self, ids: list, types: list) -> np.ndarray:
        n = max(len(x) for x in ids)
        input_ids = np.zeros((len(ids), n), dtype=np.int64)
        type_ids = np.zeros((len(ids), n), dtype=np.int64)
        mask = np.zeros((len(ids), n), dtype=np.int64)
        for i, (a, t) in enumerate(zip(ids, types)):
            input_ids[i, : len(a)] = a
            type_ids[i, : len(t)] = t
            mask[i, : len(a)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask, "token_type_ids": type_ids}
        (logits,) = self._session.run(
            ["logits"], {k: v for k, v in feeds.items() if k in self._input_names}
        )
        logits = logits.astype(np.float64)
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=1, keepdims=True)

    def _fill(
        self, out: np.ndarray, premises: Sequence[str], hypotheses: Sequence[str], batch_size: int
    ) -> None:
        ids, types = self._encode(premises, hypotheses)
        order = np.argsort([len(x) for x in ids], kind="stable")
        starts = range(0, len(order), batch_size)
        show = bars_enabled() and len(premises) >= 512  # about a second or more
        for s in track(starts, f"NLI on {len(premises)} pairs", len(starts), show):
            b = order[s : s + batch_size]
            out[b] = self._run([ids[i] for i in b], [types[i] for i in b])


def default_nli_model() -> ShippedNLIModel:
    """The shipped model, loaded once per process (``models.loaded``)."""
    return load_once(("nli", "shipped"), ShippedNLIModel)


def shipped_model_available() -> bool:
    """True when the weights are installed and onnxruntime / tokenizers can be imported."""
    import importlib.util

    return (
        (MODEL_DIR / "config.json").exists()
        and importlib.util.find_spec("onnxruntime") is not None
        and importlib.util.find_spec("tokenizers") is not None
    )
