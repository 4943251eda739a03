"""Accuracy and per-class F1 of any NLI model on the held-out sets (``diveval nli-eval``).

The sets and the held-out slices come from :mod:`diveval.models.nli_data`, the module the training
recipe splits with, so the shipped model is never scored on a pair it was trained on (apart from
18 short dialogue-nli-gu test_1 pairs that also occur verbatim in its train file).
The majority-class baseline of a set is the accuracy of always answering that set's most frequent
gold label.

A model is anything with ``predict(premises, hypotheses) -> array [n, 3]`` in the order
(contradiction, neutral, entailment), and optionally ``name`` and ``fingerprint``.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional, Sequence

import numpy as np

from ..errors import InputError
from . import nli_data
from .nli_data import EVAL_SET_NAMES, LABELS, PathLike
from .resolve import resolve_nli_model
from .shipped_nli import ShippedNLIModel

#: Short descriptions for reports.
SET_DESCRIPTIONS = {
    "snli_heldout": "SNLI test, held-out slice (whole premises, seeded)",
    "mnli_heldout": "MultiNLI (TaxiNLI copy), held-out slice",
    "dnli_gu_test_1": "dialogue-nli-gu test, last turn as premise",
    "dnli_gu_test_5": "dialogue-nli-gu test, last 5 turns as premise",
    "anli_r1_dev": "ANLI round 1 dev (adversarial)",
    "sick_test": "SICK, official TEST split",
    "xnli_en_dev": "XNLI English dev",
}


def scores(gold: Sequence[int], pred: Sequence[int]) -> dict:
    """Accuracy, per-class F1, macro F1 and the majority-class baseline."""
    gold_a = np.asarray(gold, dtype=int)
    pred_a = np.asarray(pred, dtype=int)
    f1 = {}
    for k, name in enumerate(LABELS):
        tp = int(np.sum((pred_a == k) & (gold_a == k)))
        fp = int(np.sum((pred_a == k) & (gold_a != k)))
        fn = int(np.sum((pred_a != k) & (gold_a == k)))
        f1[name] = 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)
    counts = np.bincount(gold_a, minlength=3)
    majority = int(np.argmax(counts))
    return {
        "n": int(len(gold_a)),
        "accuracy": float(np.mean(gold_a == pred_a)) if len(gold_a) else float("nan"),
        "f1": f1,
        "macro_f1": float(np.mean(list(f1.values()))),
        "majority_label": LABELS[majority],
        "majority_accuracy": float(counts[majority] / max(1, len(gold))),
        "gold_counts": {LABELS[k]: int(c) for k, c in enumerate(counts)},
        "pred_counts": {LABELS[k]: int(c) for k, c in enumerate(np.bincount(pred, minlength=3))},
    }


def evaluate_nli(
    model,
    data_dir: PathLike,
    sets: Iterable[str] = EVAL_SET_NAMES,
    *,
    limit: Optional[int] = None,
    progress: Optional[Callable[[str, int], object]] = None,
) -> dict:
    """Score ``model`` on each held-out set in ``sets`` (names from ``nli_data.EVAL_SET_NAMES``).

    ``limit`` keeps the first ``limit`` pairs of each set (for quick checks; the report says so).
    ``progress(set_name, n_pairs)`` is called before each set. Returns
    ``{"model", "fingerprint", "limit", "sets": {name: scores(...) | {"description"}}}``.
    """
    try:
        data = nli_data.eval_sets(data_dir, sets)
    except FileNotFoundError as err:
        raise InputError(
            f"not the labelled NLI data folder: it has no {err.filename}", str(data_dir)
        ) from None
    by_set: dict[str, dict] = {}
    out: dict[str, Any] = {
        "model": getattr(model, "name", type(model).__name__),
        "fingerprint": getattr(model, "fingerprint", None),
        "limit": limit,
        "sets": by_set,
    }
    for name, pairs in data.items():
        if limit is not None:
            pairs = pairs[:limit]
        if progress is not None:
            progress(name, len(pairs))
        probs = np.asarray(model.predict([p.premise for p in pairs], [p.hypothesis for p in pairs]))
        if probs.shape != (len(pairs), 3):
            raise ValueError(f"model returned shape {probs.shape} for {len(pairs)} pairs")
        res = scores([p.label for p in pairs], probs.argmax(axis=1))
        res["description"] = SET_DESCRIPTIONS.get(name, name)
        by_set[name] = res
    return out


def format_nli_report(result: dict) -> str:
    """A plain-text table of :func:`evaluate_nli`'s result, majority baseline beside accuracy."""
    head = f"NLI held-out evaluation: {result['model']}"
    if result.get("fingerprint"):
        head += f" (weights {result['fingerprint']})"
    if result.get("limit"):
        head += f" [first {result['limit']} pairs per set]"
    lines = [
        head,
        "",
        f"{'set':<16} {'n':>5} {'acc':>6} {'major.':>6}  {'F1 con':>6} {'F1 neu':>6} {'F1 ent':>6} {'macroF1':>7}",
    ]
    for name, r in result["sets"].items():
        f = r["f1"]
        lines.append(
            f"{name:<16} {r['n']:>5} {100 * r['accuracy']:>6.1f} {100 * r['majority_accuracy']:>6.1f}  "
            f"{100 * f['contradiction']:>6.1f} {100 * f['neutral']:>6.1f} {100 * f['entailment']:>6.1f} "
            f"{100 * r['macro_f1']:>7.1f}"
        )
    lines.append("")
    lines.append("acc and major. (always the set's most frequent label) in %; F1 per class in %.")
    return "\n".join(lines)


def load_nli_model(name_or_path: Optional[str] = None, **kwargs):
    """What ``diveval nli-eval --model NAME_OR_PATH`` scores: ``None`` or the shipped model's name
    gives the shipped model; an ``.onnx`` file or a folder holding one (same layout as the shipped
    model: ``config.json``, ``vocab.txt``) gives a ShippedNLIModel of it; anything else goes to
    :func:`diveval.models.resolve.resolve_nli_model` (Hugging Face hub name or folder)."""
    from pathlib import Path

    if isinstance(name_or_path, str) and name_or_path:
        p = Path(name_or_path)
        if p.is_file() and p.suffix == ".onnx":
            return ShippedNLIModel(p.parent, model_file=p.name, **kwargs)
        if p.is_dir() and any(p.glob("*.onnx")):
            return ShippedNLIModel(p, **kwargs)
    return resolve_nli_model(name_or_path or None, **kwargs)
