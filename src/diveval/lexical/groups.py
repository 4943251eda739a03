"""Corpus-level metrics of a list of documents, computed over the corpus or per set.

Several metrics of the LLM-evaluation literature (compression ratio, homogenization,
self-repetition, n-gram diversity, lexical richness) are defined on one list of documents. In the
corpus setting that list is the corpus; in the sets setting each set is one list, and the value is
the mean over sets (Tevet & Berant's two settings, GUIDE section 1).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..data import as_setting
from ..results import CORPUS, Score, make_signature


def text_groups(data: Any, setting: str | None = None) -> tuple[str, list[list[str]]]:
    """(setting, the lists of documents): one list for a corpus, one per set."""
    found, items = as_setting(data, setting)
    return found, ([list(items)] if found == CORPUS else [list(s) for s in items])


def canonical_order(texts: Sequence[str]) -> list[str]:
    """The documents in code-point order: metrics over the *joined* documents (compression,
    n-gram diversity across boundaries, MATTR/MTLD windows) depend on the order they are listed in;
    joining in a fixed order makes them a property of the collection, not of its listing."""
    return sorted(texts)


def group_score(
    metric: str,
    values: Sequence[float],
    setting: str,
    sig: Mapping[str, Any],
    details: Mapping[str, Any] | None = None,
) -> Score:
    """The Score of per-group values: the value itself (corpus) or the mean over sets (sets)."""
    arr = np.asarray(values, dtype=float)
    signature = make_signature(metric, **sig, setting=setting)
    if setting == CORPUS:
        return Score(metric, float(arr[0]), signature, setting, None, dict(details or {}))
    return Score(metric, float(arr.mean()), signature, setting, arr, dict(details or {}))


def score_groups(
    metric: str,
    data: Any,
    per_group: Callable[[list[str]], float],
    sig: Mapping[str, Any],
    setting: str | None = None,
) -> Score:
    """Apply ``per_group`` to the corpus or to every set and build the Score."""
    found, groups = text_groups(data, setting)
    return group_score(metric, [per_group(g) for g in groups], found, sig)
