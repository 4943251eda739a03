"""Corpus-level metrics of a list of documents, computed over the corpus or per set.

Several metrics of the LLM-evaluation literature (compression ratio, homogenization,
self-repetition, n-gram diversity, lexical richness) are defined on one list of documents. In the
corpus setting that list is the corpus; in the sets setting each set is one list, and the value is
the mean over sets (Tevet & Berant's two settings, GUIDE section 1).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ..data import as_setting
from ..errors import InputError
from ..results import CORPUS, Score, make_signature


def text_groups(data: Any, setting: str | None = None) -> tuple[str, list[list[str]]]:
    """(setting, the lists of documents): one list for a corpus, one per set."""
    found, items = as_setting(data, setting)
    return found, ([list(items)] if found == CORPUS else [list(s) for s in items])


#: How a metric over the *joined* responses (compression, n-gram diversity across boundaries,
#: MATTR/MTLD windows, POS templates) orders them before joining: ``"given"``, the published
#: definition and the default (the responses as listed: the score then depends on the listing), or
#: ``"sorted"`` (code-point order: the score is a property of the collection, whatever its listing).
#: API keyword ``join=``, CLI ``--join``, signature ``join:given`` / ``join:sorted``.
JOINS = ("given", "sorted")


def check_join(join: Any) -> str:
    """``join`` itself when it is one of :data:`JOINS`, else an InputError that names them."""
    if join not in JOINS:
        raise InputError(
            f"join must be 'given' (the responses joined as listed: the published definition, "
            f"the default) or 'sorted' (joined in code-point order), got {join!r}"
        )
    return str(join)


def in_join_order(texts: Sequence[str], join: str = "given") -> list[str]:
    """The documents in the order a joining metric joins them: as given, or in code-point order."""
    return list(texts) if check_join(join) == "given" else sorted(texts)


def values_score(
    metric: str,
    values: Any,
    setting: str,
    signature: str,
    details: Mapping[str, Any] | None = None,
) -> Score:
    """The Score of per-group values: the value itself (corpus) or the mean over sets, the per-set
    values its items (sets)."""
    arr = np.asarray(values, dtype=float)
    if setting == CORPUS:
        return Score(metric, float(arr[0]), signature, setting, None, dict(details or {}))
    return Score(metric, float(arr.mean()), signature, setting, arr, dict(details or {}))


def group_score(
    metric: str,
    values: Sequence[float],
    setting: str,
    sig: Mapping[str, Any],
    details: Mapping[str, Any] | None = None,
) -> Score:
    """:func:`values_score`, the signature ``sig`` and the setting."""
    return values_score(
        metric, values, setting, make_signature(metric, **sig, setting=setting), details
    )
