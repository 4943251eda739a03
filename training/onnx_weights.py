"""Rebuild a BERT state dict from one of diveval's weight-only int8 ONNX exports.

The shipped models keep their weights only as int8 per output channel (``weight_only_int8.py``),
so a later training run that starts from a shipped model (the answers judge's distillation starts
from the NLI cross-encoder and from the shipped bi-encoder) recovers fp32 weights here: every
``DequantizeLinear`` is evaluated, and each weight is named by the bias its ``MatMul`` feeds (the
exporter keeps bias names) or, for an embedding table, by its shape. The result loads into
transformers' ``BertModel`` / ``BertForSequenceClassification`` under ``prefix``.

Needs ``onnx`` and numpy (build time only).
"""

from __future__ import annotations

import numpy as np


def dequantized_state_dict(path: str, strip: str = "") -> dict[str, np.ndarray]:
    """{parameter name: fp32 array} of the ONNX file at ``path``; names lose the ``strip`` prefix
    (e.g. ``"m."`` or ``"model."``, the export wrapper's attribute)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(path)
    graph = model.graph
    init = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    consumers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    producer = {o: node for node in graph.node for o in node.output}
    out: dict[str, np.ndarray] = {}
    for name, value in init.items():
        quantisation = name.endswith(("_scale", "_zero_point"))
        if value.dtype == np.float32 and name.startswith(strip) and not quantisation:
            out[name[len(strip) :]] = value
    embedding_by_rows = {2: "token_type_embeddings", 512: "position_embeddings"}
    for node in graph.node:
        if node.op_type != "DequantizeLinear":
            continue
        source = node.input[0]
        gathered = source not in init  # an embedding table: Gather(int8 table) -> Dequantize
        if gathered:
            source = producer[source].input[0]
        q = init[source].astype(np.float32)
        scale = init[node.input[1]].astype(np.float32)
        zero = init[node.input[2]].astype(np.float32) if len(node.input) > 2 else 0.0
        axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
        shape = [1] * q.ndim
        if np.ndim(scale):
            shape[axis] = -1
        w = (q - np.reshape(zero, shape)) * np.reshape(scale, shape)
        (user,) = consumers[node.output[0]]
        if gathered:
            rows = w.shape[0]
            kind = embedding_by_rows.get(rows, "word_embeddings")
            prefix = next(k for k in out if k.endswith("embeddings.LayerNorm.weight"))
            out[prefix.removesuffix("LayerNorm.weight") + kind + ".weight"] = w
        elif user.op_type == "MatMul":
            adds = [n for n in consumers[user.output[0]] if n.op_type == "Add"]
            bias = next(i for n in adds for i in n.input if i in init)
            out[bias[len(strip) :].removesuffix(".bias") + ".weight"] = w.T.copy()
        else:
            raise ValueError(f"{path}: a DequantizeLinear feeds {user.op_type}")
    return out
