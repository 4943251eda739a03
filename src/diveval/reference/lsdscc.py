"""The LSDSCC metrics (Xu et al., NAACL 2018): MaxBLEU, MDS and PDS of a hypothesis set against
human references grouped by meaning.

Definitions (GUIDE section 2), for one query with reference groups G_1..G_K (in the order below):

* each hypothesis h is *aligned* to the group with the highest aligner score, the first group on
  ties (as ``numpy.argmax`` in the authors' repository);
* MDS = number of distinct aligned groups / K;
* PDS = sum of the sizes of the distinct aligned groups / number of references (all groups);
* MaxBLEU = mean over hypotheses of the best aligner score.

The corpus form is the mean of each metric over queries. The default aligner is the authors'
repository's BLEU (see ``diveval.reference.aligners``); the signature names the aligner.

Group order and ids: a list of groups keeps its order and its ids are the positions 0..K-1; a
mapping ``{group_id: [references]}`` (the LSDSCC JSON) keeps its ids as given and is ordered with
numeric ids first, by value ("1" < "2" < "10"), then every other id ("null", ...) in the order
given. On the LSDSCC test set this is the order the authors' loader produces (it numbers
non-integer ids after the last position, which can interleave them with large integer ids in
other files; diveval never interleaves). The order matters only for ties.

Rules for input the definitions leave open (each an ``InputError`` naming the set): a set with no
hypotheses, a query with no groups, an empty group, and an empty hypothesis (no token: under the
add-one BLEU it would score 1.0 against every group). An aligner that returns NaN or infinity is a
``ValueError``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ..errors import InputError
from ..progress import track
from ..results import SETS, Score, make_signature
from .aligners import Aligner, as_aligner

__all__ = [
    "LsdsccResult",
    "LsdsccCorpusResult",
    "lsdscc",
    "lsdscc_corpus",
    "order_groups",
    "prepare_groups",
]

METRICS = ("mds", "pds", "max_bleu")


def _numeric_id(key: Any) -> int | None:
    if isinstance(key, bool):
        return None
    if isinstance(key, (int, np.integer)):
        return int(key)
    if isinstance(key, str):
        try:
            return int(key)
        except ValueError:
            return None
    return None


def order_groups(groups: Mapping[Any, Sequence[str]]) -> list[tuple[Any, Sequence[str]]]:
    """(id, references) pairs: numeric ids ascending by value, then the others as given."""
    items = list(groups.items())
    numeric = [(n, i) for i, (k, _) in enumerate(items) if (n := _numeric_id(k)) is not None]
    numeric.sort()
    others = [i for i, (k, _) in enumerate(items) if _numeric_id(k) is None]
    return [items[i] for _, i in numeric] + [items[i] for i in others]


def _where(index: int | None, query: str | None) -> str:
    parts = []
    if index is not None:
        parts.append(f"set {index}")
    if query is not None:
        q = query if len(query) <= 60 else query[:57] + "..."
        parts.append(f"(query {q!r})")
    return " ".join(parts) + ": " if parts else ""


def prepare_groups(
    reference_groups: Any, index: int | None = None, query: str | None = None
) -> tuple[tuple, list[list[str]]]:
    """Validate one query's groups: (group ids, groups as lists of strings), in the documented order."""
    where = _where(index, query)
    if isinstance(reference_groups, str) or reference_groups is None:
        raise InputError(
            f"{where}reference groups must be a list of lists of strings "
            f"(or a mapping group id -> list of strings), got "
            f"{'nothing' if reference_groups is None else 'one string'}"
        )
    if isinstance(reference_groups, Mapping):
        pairs = order_groups(reference_groups)
    else:
        try:
            pairs = list(enumerate(reference_groups))
        except TypeError:
            raise InputError(
                f"{where}reference groups must be a list of lists of strings, "
                f"got {type(reference_groups).__name__}"
            ) from None
    if not pairs:
        raise InputError(f"{where}no reference groups")
    ids, groups = [], []
    for gid, refs in pairs:
        if isinstance(refs, str) or not isinstance(refs, (list, tuple)):
            raise InputError(
                f"{where}reference group {gid!r} must be a list of strings, "
                f"got {type(refs).__name__}"
            )
        if not refs:
            raise InputError(f"{where}reference group {gid!r} is empty")
        for r in refs:
            if not isinstance(r, str):
                raise InputError(
                    f"{where}reference group {gid!r} holds a {type(r).__name__}, not a string"
                )
        ids.append(gid)
        groups.append(list(refs))
    return tuple(ids), groups


def _prepare_hypotheses(
    hypotheses: Any, index: int | None = None, query: str | None = None
) -> list[str]:
    where = _where(index, query)
    if isinstance(hypotheses, str) or hypotheses is None:
        raise InputError(
            f"{where}hypotheses must be a list of strings, got "
            f"{'nothing' if hypotheses is None else 'one string'}"
        )
    try:
        hyps = list(hypotheses)
    except TypeError:
        raise InputError(
            f"{where}hypotheses must be a list of strings, got {type(hypotheses).__name__}"
        ) from None
    if not hyps:
        raise InputError(f"{where}no hypotheses")
    for j, h in enumerate(hyps):
        if not isinstance(h, str):
            raise InputError(f"{where}hypothesis {j} is a {type(h).__name__}, not a string")
        if not h.split():
            raise InputError(
                f"{where}hypothesis {j} is empty (the add-one BLEU would score it 1.0 "
                "against every group)"
            )
    return hyps


@dataclass(frozen=True, eq=False)
class LsdsccResult:
    """LSDSCC of one hypothesis set.

    alignment[i]: the id of the group hypothesis i is aligned to; best[i]: its aligner score;
    scores: the full [hypotheses, groups] aligner scores (read-only); group_ids / group_sizes in
    the order used for ties.
    """

    mds: float
    pds: float
    max_bleu: float
    alignment: tuple
    best: tuple[float, ...]
    group_ids: tuple
    group_sizes: tuple[int, ...]
    scores: np.ndarray = field(repr=False)
    aligner: str = "bleu"
    query: str | None = None

    @property
    def covered(self) -> tuple:
        """Ids of the groups at least one hypothesis is aligned to, in group order."""
        hit = set(self.alignment)
        return tuple(g for g in self.group_ids if g in hit)

    @property
    def signature(self) -> str:
        return make_signature("lsdscc", aligner=self.aligner, setting=SETS)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "mds": self.mds,
            "pds": self.pds,
            "max_score": self.max_bleu,  # the best aligner score: BLEU only with a BLEU aligner
            "max_score_aligner": self.aligner,
            "alignment": list(self.alignment),
            "best": list(self.best),
            "groups": {str(g): n for g, n in zip(self.group_ids, self.group_sizes)},
        }
        if self.query is not None:
            out = {"query": self.query, **out}
        return out


@dataclass(frozen=True, eq=False)
class LsdsccCorpusResult:
    """LSDSCC over queries: each metric is the mean of the per-query values."""

    mds: float
    pds: float
    max_bleu: float
    sets: tuple[LsdsccResult, ...]
    aligner: str

    @property
    def signature(self) -> str:
        return make_signature("lsdscc", aligner=self.aligner, setting=SETS)

    def items(self, metric: str) -> np.ndarray:
        """Per-query values of ``mds``, ``pds`` or ``max_bleu``."""
        if metric not in METRICS:
            raise ValueError(f"metric must be one of {METRICS}")
        return np.array([getattr(s, metric) for s in self.sets])

    def score(self, metric: str) -> Score:
        """One metric as a ``Score`` (registry name ``lsdscc-mds`` / ``-pds`` / ``-maxbleu``)."""
        key = _METRIC_KEY.get(metric, metric)
        if key not in METRICS:
            raise ValueError(f"unknown LSDSCC metric {metric!r}")
        name = _REGISTRY_NAME[key]
        return Score(
            name,
            getattr(self, key),
            make_signature(name, aligner=self.aligner, setting=SETS),
            SETS,
            self.items(key),
            {"alignment": [list(s.alignment) for s in self.sets], "aligner": self.aligner},
        )


_REGISTRY_NAME = {"mds": "lsdscc-mds", "pds": "lsdscc-pds", "max_bleu": "lsdscc-maxbleu"}
_METRIC_KEY = {v: k for k, v in _REGISTRY_NAME.items()}


def _result(
    scores: np.ndarray,
    hyps: list[str],
    ids: tuple,
    groups: list[list[str]],
    aligner: Aligner,
    index: int | None,
    query: str | None,
) -> LsdsccResult:
    scores = np.asarray(scores, dtype=np.float64)
    if scores.shape != (len(hyps), len(groups)):
        raise ValueError(
            f"aligner {aligner.name!r} returned scores of shape {scores.shape}, "
            f"expected {(len(hyps), len(groups))}"
        )
    if not np.isfinite(scores).all():
        i, k = np.argwhere(~np.isfinite(scores))[0]
        raise ValueError(
            f"{_where(index, query)}aligner {aligner.name!r} returned {scores[i, k]} "
            f"for hypothesis {i} and group {ids[k]!r}"
        )
    arg = np.argmax(scores, axis=1)  # first group on ties
    sizes = np.array([len(g) for g in groups], dtype=np.int64)
    hit = np.unique(arg)
    scores.setflags(write=False)
    return LsdsccResult(
        mds=len(hit) / len(groups),
        pds=float(sizes[hit].sum() / sizes.sum()),
        max_bleu=float(scores[np.arange(len(hyps)), arg].mean()),
        alignment=tuple(ids[k] for k in arg),
        best=tuple(float(x) for x in scores[np.arange(len(hyps)), arg]),
        group_ids=ids,
        group_sizes=tuple(int(x) for x in sizes),
        scores=scores,
        aligner=aligner.name,
        query=query,
    )


def lsdscc(
    hypotheses: Sequence[str], reference_groups: Any, aligner: Any = "bleu", **aligner_options: Any
) -> LsdsccResult:
    """MDS, PDS, MaxBLEU and the alignment of one hypothesis set.

    hypotheses: the responses to one query; reference_groups: a list of groups (lists of
    reference strings) or a mapping group id -> references; aligner: ``"bleu"`` (default),
    ``"nltk-bleu"``, ``"nist"``, ``"embedding"``, an ``Aligner``, or any callable
    ``(hypothesis, references) -> float``. aligner_options: ``embedding_model`` and the model
    ``settings`` (or their keywords, ``device``, ``batch_size``) for the embedding aligner.

    >>> r = lsdscc(["i agree", "go and watch it"], {"1": ["totally agree"], "2": ["go watch it"]})
    >>> r.mds, r.pds, r.alignment
    (1.0, 1.0, ('1', '2'))
    """
    al = as_aligner(aligner, **aligner_options)
    hyps = _prepare_hypotheses(hypotheses)
    ids, groups = prepare_groups(reference_groups)
    return _result(al.score_sets([(hyps, groups)])[0], hyps, ids, groups, al, None, None)


def lsdscc_corpus(
    hypothesis_sets: Sequence[Sequence[str]],
    reference_groups: Sequence[Any],
    aligner: Any = "bleu",
    queries: Sequence[str] | None = None,
    progress: bool | None = False,
    **aligner_options: Any,
) -> LsdsccCorpusResult:
    """The corpus form: one hypothesis set and one list (or mapping) of groups per query; each
    metric is the mean over queries. ``queries`` (optional) name the sets in results and errors."""
    al = as_aligner(aligner, **aligner_options)
    if isinstance(hypothesis_sets, str) or isinstance(reference_groups, (str, Mapping)):
        raise InputError("expected one hypothesis set and one list of reference groups per query")
    sets = list(hypothesis_sets)
    groups_per_set = list(reference_groups)
    if not sets:
        raise InputError("no hypothesis sets to score")
    if len(sets) != len(groups_per_set):
        raise InputError(
            f"{len(sets)} hypothesis sets but {len(groups_per_set)} lists of reference groups"
        )
    qs = list(queries) if queries is not None else [None] * len(sets)
    if len(qs) != len(sets):
        raise InputError(f"{len(sets)} hypothesis sets but {len(qs)} queries")
    prepared = []
    for i, (h, g, q) in enumerate(zip(sets, groups_per_set, qs)):
        hyps = _prepare_hypotheses(h, i, q)
        ids, groups = prepare_groups(g, i, q)
        prepared.append((hyps, ids, groups))
    results: list[LsdsccResult] = []
    chunk = 64
    starts: Iterable[int] = range(0, len(prepared), chunk)
    if progress:
        starts = track(starts, f"LSDSCC ({al.name})", total=len(prepared[::chunk]))
    for s in starts:
        part = prepared[s : s + chunk]
        mats = al.score_sets([(h, g) for h, _, g in part])
        for j, ((hyps, ids, groups), m) in enumerate(zip(part, mats)):
            results.append(_result(m, hyps, ids, groups, al, s + j, qs[s + j]))
    return LsdsccCorpusResult(
        mds=float(np.mean([r.mds for r in results])),
        pds=float(np.mean([r.pds for r in results])),
        max_bleu=float(np.mean([r.max_bleu for r in results])),
        sets=tuple(results),
        aligner=al.name,
    )
