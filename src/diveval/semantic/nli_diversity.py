"""NLI Diversity (Stasaski & Hearst 2022), a sets-only metric.

In a set of m responses, every ordered pair (premise u_i, hypothesis u_j), i != j, m(m-1) pairs in
all, goes through a 3-way NLI model; the pair's label is the argmax of its probabilities, ties
going to the first label in the order (contradiction, neutral, entailment). Each pair scores

- ``baseline``:   +1 contradiction, 0 neutral, -1 entailment;
- ``neutral``:    +1 contradiction, +1 neutral, -1 entailment (neutral pairs count as diverse);
- ``confidence``: +P(contradiction) when contradiction is the argmax, -P(entailment) when
  entailment is, 0 for neutral;

and a set's NLI Diversity is the SUM over its pairs (as in the paper: a set of 5 ranges over
[-20, 20]); the headline value is the mean over sets. Every result also carries the per-set counts
of each label (``details["counts"]``). ``nli-counts`` reports the mean number of contradictions per
set as its value, with the same counts.

All pairs of all sets go to the model in one call, each unique (premise, hypothesis) pair once
(``models.cache``), so the four registered variants of one run share one model pass.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..data import ordered_pairs, require_pairs, require_sets
from ..errors import InputError
from ..models.base import CONTRADICTION, ENTAILMENT, NEUTRAL, NLI_LABELS
from ..models.devices import resolve_settings, signature_device, signature_precision
from ..models.resolve import nli_for
from ..results import SETS, Score, make_signature

VARIANTS = ("baseline", "neutral", "confidence")


def argmax_labels(probs: np.ndarray) -> np.ndarray:
    """Label index of each row; ties go to the first in (contradiction, neutral, entailment)."""
    return np.argmax(np.asarray(probs), axis=1)  # numpy's argmax returns the first maximum


def pair_scores(probs: np.ndarray, variant: str = "baseline") -> np.ndarray:
    """Each pair's contribution to NLI Diversity under ``variant`` (see the module docstring)."""
    if variant not in VARIANTS:
        raise InputError(
            f"unknown NLI Diversity variant {variant!r}; choose one of {', '.join(VARIANTS)}"
        )
    probs = np.asarray(probs, dtype=np.float64)
    labels = argmax_labels(probs)
    out = np.zeros(labels.size)
    is_c, is_n, is_e = labels == CONTRADICTION, labels == NEUTRAL, labels == ENTAILMENT
    if variant == "confidence":
        out[is_c] = probs[is_c, CONTRADICTION]
        out[is_e] = -probs[is_e, ENTAILMENT]
    else:
        out[is_c] = 1.0
        out[is_e] = -1.0
        if variant == "neutral":
            out[is_n] = 1.0
    return out


def _validate(sets: Any) -> tuple[list[list[str]], np.ndarray]:
    items = require_sets(sets, "NLI Diversity")
    sizes = np.array([len(s) for s in items], dtype=np.int64)
    require_pairs(sizes, "NLI Diversity")
    return items, sizes


def nli_predictions(sets: Any, model: Any = None, **settings: Any):
    """(probs [pairs, 3], set index of each pair, sizes, the cached model) for all ordered pairs.
    model: the run's NLI model (``models.resolve.nli_for``), or a spec resolved with
    ``settings`` (device, batch_size, precision, cache_dir)."""
    items, sizes = _validate(sets)
    texts = [t for s in items for t in s]
    first, second, owner = ordered_pairs(sizes)
    nli = nli_for(model, resolve_settings(**settings))
    probs = nli.predict([texts[i] for i in first], [texts[j] for j in second])
    return probs, owner, sizes, nli


def _label_counts(labels: np.ndarray, owner: np.ndarray, n_sets: int) -> dict[str, np.ndarray]:
    table = np.bincount(owner * 3 + labels, minlength=3 * n_sets).reshape(n_sets, 3)
    return {name: table[:, k] for k, name in enumerate(NLI_LABELS)}


def nli_diversity(
    sets: Any,
    model: Any = None,
    variant: str = "baseline",
    *,
    progress: Optional[bool] = None,
    metric: Optional[str] = None,
    **settings: Any,
) -> Score:
    """NLI Diversity of each response set and their mean (Stasaski & Hearst 2022).

    sets: a list of lists of strings, each with at least 2 responses. model: the run's NLI model
    (what the registry row passes), None (the NLI model shipped with diveval), a Hugging Face
    model name or folder, or any ``NLIModel``. variant: "baseline", "neutral" or "confidence".
    settings: device, batch_size, precision, cache_dir (the on-disk score cache) for a model
    named here.
    ``items`` holds the per-set sums; ``details["counts"]`` the per-set label counts.
    """
    del progress  # backends show their own progress bar when stderr is a terminal
    if variant not in VARIANTS:
        raise InputError(
            f"unknown NLI Diversity variant {variant!r}; choose one of {', '.join(VARIANTS)}"
        )
    probs, owner, sizes, nli = nli_predictions(sets, model, **settings)
    n_sets = sizes.size
    per_set = np.bincount(owner, weights=pair_scores(probs, variant), minlength=n_sets)
    counts = _label_counts(argmax_labels(probs), owner, n_sets)
    name = metric or f"nli-{variant}"
    counting = name == "nli-counts"
    sig = make_signature(
        name,
        variant=None if counting else variant,
        model=nli.name,
        fp=nli.fingerprint,
        dev=signature_device(nli),
        prec=signature_precision(nli),
        pairs="ordered",
        agg="count" if counting else "sum",
        setting=SETS,
    )
    details = {
        "counts": counts,
        "total": {k: int(v.sum()) for k, v in counts.items()},
        "pairs": sizes * (sizes - 1),
    }
    if counting:
        return Score(
            name, float(counts["contradiction"].mean()), sig, SETS, counts["contradiction"], details
        )
    return Score(name, float(per_set.mean()), sig, SETS, per_set, details)


def nli_counts(sets: Any, model: Any = None, **options: Any) -> Score:
    """Per-set label counts of NLI Diversity; value: the mean number of contradictions per set."""
    options.pop("variant", None)
    return nli_diversity(sets, model, "baseline", metric="nli-counts", **options)
