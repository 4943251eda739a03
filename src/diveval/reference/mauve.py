"""MAUVE (Pillutla et al. 2021): how close the distribution of model text is to that of human text.

Both sets of texts are embedded (diveval's offline all-MiniLM-L6-v2 by default, or a named
sentence-transformers model, or any ``Embedder``; each unique text once, through the run's cached
embedder), and the features go to the authors' package, ``mauve-text``'s
``compute_mauve(p_features=human, q_features=model)``: the features of both sets are scaled to
unit length, reduced by PCA to the components that explain 90% of the variance, quantised by
k-means (faiss) into ``num_buckets`` clusters, and MAUVE is the area under the divergence curve of
the two cluster histograms P (human) and Q (model),

    MAUVE = AUC{ (exp(-c KL(Q | R_l)), exp(-c KL(P | R_l))) : R_l = l P + (1 - l) Q, l in (0, 1) }

with scaling factor c = 5. Higher = the model text is distributed more like the human text.

The model texts are the scored corpus; the human texts are the references, pooled: every
reference of every response, as listed (which response a reference is listed with does not
matter, only the pooled set does).

Seed sensitivity: the quantisation starts k-means from random centroids, so the value moves with
the clustering seed. ``value`` is MAUVE at mauve-text's default seed (25); ``details`` holds the
values at ``seeds`` consecutive seeds from it (``seed_values``) and their range
(``seed_min`` / ``seed_max``), the interval a reader should quote beside the value.

Row order: k-means' random start picks rows by position, so the same texts listed in another
order could give another value. diveval gives mauve-text each side's texts in code-point order
(signature ``rows:sorted``), so the value does not depend on the order of the input.

Undefined input: no model text or no human text, or fewer texts in all than clusters (faiss
cannot place k centroids on fewer than k points) is an ``InputError``. ``num_buckets="auto"`` is
mauve-text's rule, max(2, round(min(n_model, n_human) / 10)). The authors recommend thousands of
texts per side; small samples give noisy values (the seed interval shows how noisy).

Many corpora from one pool of texts (the resamples of a paired bootstrap): :class:`MauveRefit`
embeds each unique text once and refits only the quantisation (PCA, k-means) and the divergence
curve per corpus, at one seed, single-threaded (a refit of a few hundred texts takes about 10 ms
on one thread and 20 times longer on two busy ones, with the same value).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Iterator, Optional, Sequence, Union

import numpy as np

from ..errors import InputError, MissingDependencyError
from ..models.devices import ModelSettings, SettingsKeywords, model_signature, settings_of
from ..models.embedders import embedder_for
from ..results import CORPUS, Score, make_signature
from .multiref import check_references

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

DEFAULT_SEED = 25  # mauve-text's
DEFAULT_SEEDS = 5
SCALING_FACTOR = 5.0
EXPLAINED_VARIANCE = 0.9
KMEANS_NUM_REDO = 5
KMEANS_MAX_ITER = 500
DISCRETIZATION = 25


def _mauve_package():
    try:
        import mauve
    except ImportError:
        raise MissingDependencyError("MAUVE", "mauve") from None
    return mauve


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mauve-text")
    except PackageNotFoundError:  # pragma: no cover - imported from a checkout
        return "unknown"


def auto_buckets(n_model: int, n_human: int) -> int:
    """mauve-text's ``num_buckets='auto'``: a tenth of the smaller side, at least 2."""
    return max(2, int(round(min(n_model, n_human) / 10)))


@dataclass(frozen=True)
class Quantisation:
    """How mauve-text quantises the features and draws the divergence curve, under its own
    ``compute_mauve`` argument names: ``num_buckets`` k-means clusters after PCA to the
    explained variance, the k-means starts and iterations, the points on the curve, the
    scaling factor c."""

    num_buckets: int
    mauve_scaling_factor: float = SCALING_FACTOR
    kmeans_explained_var: float = EXPLAINED_VARIANCE
    kmeans_num_redo: int = KMEANS_NUM_REDO
    kmeans_max_iter: int = KMEANS_MAX_ITER
    divergence_curve_discretization_size: int = DISCRETIZATION


def mauve_of_features(human: np.ndarray, model: np.ndarray, seed: int, how: Quantisation) -> Any:
    """mauve-text's ``compute_mauve`` on two feature matrices (human = P, model = Q)."""
    return _mauve_package().compute_mauve(
        p_features=human, q_features=model, seed=seed, verbose=False, **asdict(how)
    )


def _check_settings(num_buckets: Any, seeds: Any, seed: Any, scaling_factor: Any) -> None:
    if num_buckets != "auto" and (
        isinstance(num_buckets, bool) or not isinstance(num_buckets, int) or num_buckets < 2
    ):
        raise InputError(f"mauve: num_buckets is 'auto' or an integer >= 2, got {num_buckets!r}")
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise InputError(f"mauve: seeds is the number of clustering seeds (>= 1), got {seeds!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"mauve: seed is a non-negative integer, got {seed!r}")
    if not float(scaling_factor) > 0:
        raise InputError(f"mauve: the scaling factor must be > 0, got {scaling_factor!r}")


def mauve(
    hypotheses: Any,
    references: Any,
    model: Any = None,
    *,
    settings: Optional[ModelSettings] = None,
    seed: int = DEFAULT_SEED,
    seeds: int = DEFAULT_SEEDS,
    num_buckets: Union[int, str] = "auto",
    scaling_factor: float = SCALING_FACTOR,
    explained_variance: float = EXPLAINED_VARIANCE,
    num_redo: int = KMEANS_NUM_REDO,
    max_iter: int = KMEANS_MAX_ITER,
    discretization: int = DISCRETIZATION,
    progress: Optional[bool] = None,
    **keywords: Unpack[SettingsKeywords],
) -> Score:
    """MAUVE of the model texts (``hypotheses``) against the pooled human texts (``references``,
    one list per response), over sentence embeddings quantised by k-means (see the module):

    MAUVE = AUC of (exp(-c KL(Q|R)), exp(-c KL(P|R))), R = l P + (1-l) Q, c = 5

    ``value``: MAUVE at ``seed`` (25, mauve-text's default). ``details``: ``seed_values`` (MAUVE
    at seeds ``seed .. seed+seeds-1``), ``seed_min`` / ``seed_max`` (their range),
    ``mauve_star`` and ``frontier_integral`` (mauve-text's smoothed variant and frontier integral
    at ``seed``), ``num_buckets``, ``n_model``, ``n_human``. model: None (the offline
    all-MiniLM-L6-v2), a sentence-transformers name or folder, or any ``Embedder``; settings:
    the run's model settings, or their keywords (``device``, ``batch_size``, ...).
    """
    del progress  # the embedder shows its own progress bar when stderr is a terminal
    _check_settings(num_buckets, seeds, seed, scaling_factor)
    hyps, refs = check_references(hypotheses, references)
    if any(not isinstance(h, str) for h in hyps):
        raise InputError("mauve embeds texts: give the responses as strings")
    human = [r for group in refs for r in group]
    k = auto_buckets(len(hyps), len(human)) if num_buckets == "auto" else int(num_buckets)
    if len(hyps) + len(human) < k:
        raise InputError(
            f"mauve: {len(hyps)} model and {len(human)} human texts are too few for {k} clusters "
            "(k-means needs at least as many texts as clusters; the authors advise thousands "
            "per side)"
        )
    _mauve_package()  # before the embedder: a missing extra costs no model load
    model_sorted, human_sorted = sorted(hyps), sorted(human)
    emb = embedder_for(model, settings_of(settings, **keywords))
    vectors = emb.encode(model_sorted + human_sorted)
    q_feats, p_feats = vectors[: len(model_sorted)], vectors[len(model_sorted) :]
    how = Quantisation(
        k,
        float(scaling_factor),
        float(explained_variance),
        int(num_redo),
        int(max_iter),
        int(discretization),
    )
    runs = {s: mauve_of_features(p_feats, q_feats, s, how) for s in _seeds(seed, seeds)}
    main = runs[seed]
    values = {s: float(r.mauve) for s, r in runs.items()}
    sig = make_signature(
        "mauve",
        **model_signature(emb),
        buckets=f"{k}" + ("(auto)" if num_buckets == "auto" else ""),
        c=f"{how.mauve_scaling_factor:g}",
        pca=f"{how.kmeans_explained_var:g}",
        kmeans=f"faiss,redo{how.kmeans_num_redo},iter{how.kmeans_max_iter}",
        curve=how.divergence_curve_discretization_size,
        seed=seed,
        seeds=f"{seed}-{seed + seeds - 1}",
        rows="sorted",
        mauve=_version(),
        setting=CORPUS,
    )
    details = {
        "seed_values": values,
        "seed_min": min(values.values()),
        "seed_max": max(values.values()),
        "mauve_star": float(main.mauve_star),
        "frontier_integral": float(main.frontier_integral),
        "num_buckets": k,
        "n_model": len(hyps),
        "n_human": len(human),
    }
    return Score("mauve", float(main.mauve), sig, CORPUS, None, details)


def _seeds(seed: int, seeds: int) -> Sequence[int]:
    return list(range(seed, seed + seeds))


class MauveRefit:
    """MAUVE of many corpora whose texts come from one pool: each unique text is embedded once
    (at construction); :meth:`value` refits the quantisation and the divergence curve on the
    rows of one corpus, so it equals :func:`mauve`'s ``value`` on that corpus (each side's rows
    in code-point order, as there; the buckets mauve-text's ``auto`` rule of the corpus's sizes).

    ``texts``: every text a corpus may hold, either side; :meth:`rows` turns texts into rows.
    """

    def __init__(
        self,
        texts: Sequence[str],
        model: Any = None,
        *,
        seed: int = DEFAULT_SEED,
        settings: Optional[ModelSettings] = None,
        **keywords: Unpack[SettingsKeywords],
    ) -> None:
        _mauve_package()
        # rows in code-point order: sorting a corpus's rows sorts its texts
        unique = sorted(set(texts))
        self._row = {t: i for i, t in enumerate(unique)}
        self.features = embedder_for(model, settings_of(settings, **keywords)).encode(unique)
        self.seed = seed

    def rows(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([self._row[t] for t in texts], dtype=np.int64)

    def value(self, model_rows: np.ndarray, human_rows: np.ndarray) -> float:
        """MAUVE of the corpus whose model texts are ``model_rows`` and human texts
        ``human_rows`` (rows of :meth:`rows`, repeats kept)."""
        q = self.features[np.sort(model_rows)]
        p = self.features[np.sort(human_rows)]
        k = auto_buckets(len(q), len(p))
        if len(q) + len(p) < k or not len(q) or not len(p):
            raise InputError(f"mauve: {len(q)} model and {len(p)} human texts cannot be compared")
        return float(mauve_of_features(p, q, self.seed, Quantisation(k)).mauve)

    @contextlib.contextmanager
    def quiet(self) -> Iterator[None]:
        """One thread for every library (a refit is too small to gain from more, and busy cores
        make threads wait), and faiss's C-level warning about few points per centroid, printed
        on every refit of a small corpus, kept off stderr."""
        from threadpoolctl import threadpool_limits  # scikit-learn's dependency, as mauve-text

        with threadpool_limits(1), _stderr_silenced():
            yield


@contextlib.contextmanager
def _stderr_silenced() -> Iterator[None]:
    try:
        fd = 2
        saved = os.dup(fd)
    except OSError:  # no file descriptor 2 (an embedded interpreter): nothing to silence
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), fd)
            yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)
