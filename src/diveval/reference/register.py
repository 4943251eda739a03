"""Registry entries of the LSDSCC metrics (sets setting; they need ``reference_groups``)."""

from __future__ import annotations

from typing import Any

from ..data import as_setting
from ..errors import InputError
from ..registry import Metric, register
from ..results import SETS, Score

_OPTIONS = ("reference_groups", "aligner", "embedding_model", "device", "batch_size", "progress")

# The three metrics share one alignment: `diveval score -m lsdscc-mds -m lsdscc-pds` computes it
# once. One entry, keyed by the inputs' content (so a list changed in place is not served stale).
_last: dict[str, Any] = {}


def _freeze(x: Any) -> Any:
    if isinstance(x, str):
        return x
    if isinstance(x, dict):
        return ("dict", tuple((k, _freeze(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return tuple(_freeze(v) for v in x)
    return ("id", id(x))


def _corpus(data, reference_groups, aligner, options):
    from .lsdscc import lsdscc_corpus

    al_key = aligner if isinstance(aligner, (str, type(None))) else ("id", id(aligner))
    key = (
        _freeze(data),
        _freeze(reference_groups),
        al_key,
        tuple(sorted((k, v) for k, v in options.items() if k != "progress")),
    )
    if _last.get("key") == key:
        return _last["result"]
    result = lsdscc_corpus(data, reference_groups, aligner or "bleu", **options)
    _last.clear()
    _last.update(key=key, aligner=aligner, result=result)  # holding the aligner keeps its id unique
    return result


def _make(metric: str):
    def compute(
        data: Any,
        reference_groups: Any = None,
        aligner: Any = None,
        embedding_model=None,
        device=None,
        batch_size=None,
        progress=None,
    ) -> Score:
        if reference_groups is None:
            raise InputError(
                f"{metric} needs reference groups: pass reference_groups (one list of "
                'groups per set), or give every .jsonl record a "reference_groups" field'
            )
        options = {
            k: v
            for k, v in (
                ("embedding_model", embedding_model),
                ("device", device),
                ("batch_size", batch_size),
            )
            if v is not None
        }
        if progress:
            options["progress"] = True
        as_setting(data, SETS)  # refuses a corpus (list of strings) with a clear message
        return _corpus(data, reference_groups, aligner, options).score(metric)

    compute.__name__ = metric.replace("-", "_")
    return compute


register(
    Metric(
        "lsdscc-mds",
        "LSDSCC Mean Diversity Score: share of reference groups the set covers "
        "(Xu et al. 2018; needs reference_groups)",
        _make("lsdscc-mds"),
        settings=(SETS,),
        options=_OPTIONS,
        direction="higher",
    )
)
register(
    Metric(
        "lsdscc-pds",
        "LSDSCC Probabilistic Diversity Score: share of references in the groups "
        "the set covers (Xu et al. 2018; needs reference_groups)",
        _make("lsdscc-pds"),
        settings=(SETS,),
        options=_OPTIONS,
        direction="higher",
    )
)
register(
    Metric(
        "lsdscc-maxbleu",
        "LSDSCC MaxBLEU: mean best aligner score of each response against its "
        "reference groups (Xu et al. 2018; needs reference_groups)",
        _make("lsdscc-maxbleu"),
        settings=(SETS,),
        options=_OPTIONS,
        direction="higher",
    )
)
