"""Paired comparison of systems that answered the same prompts (Koehn 2004; sacrebleu's
``--paired-bs``): for every metric and every candidate against the baseline, the difference, its
interval, a p-value, and p-values adjusted across all rows by Holm (1979).

The unit is the *prompt*: both systems' responses to one prompt form a pair, so resamples draw
prompt indices, the same for both systems, and differences are read per prompt.

- A per-set metric (the sets setting) has one value per prompt. The interval is the percentile
  interval of the paired bootstrap of the mean per-prompt difference.
- A corpus metric (the corpus setting: one response per prompt, a number over all of them) has no
  per-prompt values; it is recomputed on every resample from the summed per-prompt *states*: for
  the n-gram family (pooled Distinct-n, avg-distinct, EAD) the n-gram totals add with the
  prompts' multiplicities and the distinct count is that of the union of the drawn prompts'
  n-gram sets. Averaging per-prompt values of a corpus metric would be another metric. A
  resample repeats prompts, and a repeated prompt adds n-grams but no new distinct ones, so
  resampled pooled values sit below the observed value; the interval is therefore the resampled
  differences' percentiles shifted to centre on the observed difference
  (``ci:shifted-percentile`` in the signature). A corpus metric whose state does not add up over
  prompts (corpus Self-BLEU: each response scored against all the others) is scored again on
  every resampled and swapped corpus through the registry (``corpus:recomputed``; Self-BLEU of
  300 responses takes about 3 ms, so 4 x 1,000 corpora cost seconds).
- A corpus metric that reads each response's references (ref-*, MAUVE): a prompt's references
  travel with its response, in the resamples and in the swaps
  (:mod:`diveval.meta.reference_resampling`). Where the value is the mean of independent
  per-item values (ref-rouge-l, ref-meteor, ref-embedding-average, ref-bertscore-*, ref-bleu-n
  with reduction max or mean), the per-prompt values are differenced as a per-set metric's
  (``corpus:item-mean``); pooled ref-bleu-n and ref-local-recall are finished from the summed
  per-prompt statistics of each resample (``corpus:summed-stats``); MAUVE is refitted on each
  resample from features computed once per unique text (``corpus:refit``), with its own, smaller
  number of resamples (``refit_resamples``, default 200: the fewest whose 95 % interval keeps 5
  resamples in each tail, the rule every interval here keeps; its smallest p-value, 1/201,
  passes Holm's first threshold at alpha 0.05 for up to 10 tests; 2 x (200 + 200) refits of a
  few hundred texts take about 10 s).
- The p-value, by default, is the paired permutation test (``test="permutation"``): under "the
  two systems are alike" (A/A) the two answers to a prompt are exchangeable, so swapping them on
  a random set of prompts draws from the exact null distribution of the difference. For a
  per-set metric a swap flips the sign of the prompt's difference (the sign-flip test); a corpus
  metric is recomputed from the swapped states (approximate randomization, which Riezler &
  Maxwell 2005 found keeps its level where the bootstrap does not). It is exact over all 2**n
  patterns when there are no more than the resamples, Monte Carlo otherwise. ``test="bootstrap"``
  reads the p-value from the paired bootstrap instead (sacrebleu's rule: the resampled
  differences, shifted to mean 0, against the observed one); on DailyDialog++ A/A runs it rejects
  a corpus EAD too often (about 0.13 at alpha 0.05; ``benchmarks/compare.py``), because a
  resample of prompts under-represents the spread of a pooled distinct count.
- Two levels (``levels=2``), for responses that are samples of a model: each system's sets are
  also resampled within the prompt (responses with replacement, ``INNER_DRAWS`` times, scored
  once), and each outer resample takes one inner draw per drawn prompt; the p-value is then the
  two-level bootstrap's. Off by default: the spread of per-prompt values across prompts already
  holds the within-prompt sampling variance (the law of total variance), so one level is valid
  for i.i.d. prompts and a second level counts that variance twice (Ren et al. 2010,
  "Nonparametric bootstrapping for hierarchical data"); and a set resampled with replacement
  repeats responses, which every diversity metric reads as less diverse, so the inner draws also
  shift the values. Its intervals are therefore wider, on purpose: the option is for a reader
  who wants the conservative answer.

Every resample is drawn from ``numpy.random.default_rng`` seeded by (seed, pair), so reruns are
byte-identical; every choice is in each row's signature.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ..errors import InputError
from ..lexical.ead import resolve_vocab_size
from ..lexical.ngram_state import NgramMetricState, ngram_keys, token_hashes
from ..options import PER_ITEM_OPTIONS
from ..registry import default_metrics, get_metric
from ..results import CORPUS, SETS
from ..scale.local import score
from ..text.ngrams import ngram_starts
from ..text.prepared import encode_texts
from ..text.tokenizers import get_tokenizer
from .at_k import score_at_k

# the choices and defaults the command line shows live apart, so that its parser imports no numpy
from .compare_options import (
    DEFAULT_ALPHA,
    DEFAULT_CONFIDENCE,
    DEFAULT_LEVELS,
    DEFAULT_REFIT_RESAMPLES,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    DEFAULT_TEST,
    LEVELS,
    TESTS,
)
from .compare_options import MATCHES as MATCHES  # read by the callers, not here
from .reference_resampling import per_item_mean, reference_resampler, refitted

INNER_DRAWS = 20  # two levels: within-prompt resamples of each system's sets, scored once each
ADJUSTMENT = "holm"
SIMULTANEOUS = "bonferroni"  # the intervals shown beside Holm's decisions (see _simultaneous)


# -- Holm ---------------------------------------------------------------------------------------


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values: sorted ascending, the i-th smallest (1-based)
    times m - i + 1, made non-decreasing by a running maximum, capped at 1. A hypothesis is
    rejected at level alpha exactly when its adjusted p-value is <= alpha.

    >>> holm([0.01, 0.04, 0.03]).round(4).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=float)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = p[order] * (m - np.arange(m))
    adjusted = np.minimum(np.maximum.accumulate(scaled), 1.0)
    out = np.empty(m)
    out[order] = adjusted
    return out


# -- resampling ---------------------------------------------------------------------------------


def multiplicities(n: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """[n_resamples, n] counts: how often each of n prompts is drawn in each bootstrap resample
    of n prompts with replacement (rows sum to n)."""
    idx = rng.integers(0, n, size=(n_resamples, n))
    flat = idx + (np.arange(n_resamples, dtype=np.int64) * n)[:, None]
    return np.bincount(flat.ravel(), minlength=n_resamples * n).reshape(n_resamples, n)


def _at_least(values: np.ndarray, observed: float) -> np.ndarray:
    """values >= observed, with a margin for the float rounding of equal sums."""
    tol = 1e-12 * max(1.0, abs(observed))
    return values >= observed - tol


def swaps(n: int, n_resamples: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """([draws, n] 0/1: which prompts swap the two systems' answers, exact): all 2**n patterns
    when there are no more than ``n_resamples`` of them, else ``n_resamples`` random ones."""
    if 2**n <= n_resamples:
        return (np.arange(2**n)[:, None] >> np.arange(n)) & 1, True
    return rng.integers(0, 2, size=(n_resamples, n), dtype=np.int8), False


def permutation_p(stats: np.ndarray, observed: float, exact: bool) -> float:
    """Two-sided p-value from the |difference| of each swap pattern: the share at least as large
    as the observed one (exact), or (1 + hits) / (1 + draws) with the observed pattern counted
    among random draws."""
    if observed == 0.0:
        return 1.0
    hits = _at_least(np.abs(stats), abs(observed))
    return float(hits.mean()) if exact else float((1 + hits.sum()) / (stats.size + 1))


def sign_flip_p(diffs: np.ndarray, n_resamples: int, rng: np.random.Generator) -> float:
    """Two-sided p-value of the sign-flip permutation test of mean(diffs) = 0 (swapping the two
    systems' answers to a prompt flips the sign of its difference): exact over all 2**n sign
    vectors when there are no more than ``n_resamples`` of them, otherwise Monte Carlo."""
    d = np.asarray(diffs, dtype=float)
    pattern, exact = swaps(d.size, n_resamples, rng)
    return permutation_p(matvec(1 - 2 * pattern.astype(float), d) / d.size, float(d.mean()), exact)


def bootstrap_p(deltas: np.ndarray, observed: float) -> float:
    """Two-sided p-value of the paired bootstrap (sacrebleu's rule): the resampled differences,
    shifted to mean 0, as the null distribution of the observed difference."""
    deltas = np.asarray(deltas, dtype=float)
    if observed == 0.0:
        return 1.0
    null = np.abs(deltas - deltas.mean())
    return float((1 + _at_least(null, abs(observed)).sum()) / (deltas.size + 1))


def percentile_interval(deltas: np.ndarray, confidence: float) -> tuple[float, float]:
    tail = (1 - confidence) / 2
    low, high = np.quantile(np.asarray(deltas, dtype=float), [tail, 1 - tail])
    return float(low), float(high)


# -- corpus metrics from per-prompt n-gram states --------------------------------------------------


class NgramTable:
    """Per-prompt n-gram states of one system, laid out for vectorised resampling.

    For each order n: ``totals[n]`` (n-gram count per prompt), ``single[n]`` (distinct n-grams
    found in that prompt only, per prompt) and ``shared[n]``, a sparse [keys, prompts] 0/1 matrix
    of the n-grams found in several prompts. A resample with multiplicities M [B, P] has
    ``M @ totals`` n-grams of which ``(M > 0) @ single`` plus the shared keys with a drawn prompt
    are distinct: the counts of the summed states, without building one per resample.
    """

    def __init__(
        self, texts: Sequence[Sequence[str]], orders: Iterable[int], tokenizer: Any
    ) -> None:
        self.n_prompts = len(texts)
        flat = [t for group in texts for t in group]
        self._owner = np.repeat(np.arange(self.n_prompts), [len(g) for g in texts])
        self._tids = encode_texts(flat, tokenizer)
        self._hashes = token_hashes(self._tids.vocab)
        self.totals: dict[int, np.ndarray] = {}
        self.single: dict[int, np.ndarray] = {}
        self.shared: dict[int, Any] = {}
        # (order, name of a weight matrix) -> counts: the metrics of one family share orders
        self._memo: dict[tuple[int, str], tuple[np.ndarray, np.ndarray]] = {}
        self._present: dict[str, np.ndarray] = {}
        for n in orders:
            self._order(n)

    def _order(self, n: int) -> None:
        if n in self.totals:
            return
        from scipy import sparse

        tids = self._tids
        starts = ngram_starts(tids, n)
        keys = ngram_keys(tids.ids, self._hashes, starts, n)
        prompt = self._owner[np.searchsorted(tids.offsets, starts, side="right") - 1]
        self.totals[n] = np.bincount(prompt, minlength=self.n_prompts).astype(float)
        order = np.lexsort((prompt, keys))
        k, p = keys[order], prompt[order]
        first = np.ones(k.size, dtype=bool)  # first of each (key, prompt) run
        first[1:] = (k[1:] != k[:-1]) | (p[1:] != p[:-1])
        k, p = k[first], p[first]
        new_key = np.ones(k.size, dtype=bool)
        new_key[1:] = k[1:] != k[:-1]
        key_id = np.cumsum(new_key) - 1
        prompts_per_key = np.bincount(key_id)
        alone = prompts_per_key[key_id] == 1
        self.single[n] = np.bincount(p[alone], minlength=self.n_prompts).astype(float)
        rows = np.unique(key_id[~alone], return_inverse=True)[1]
        self.shared[n] = sparse.csr_matrix(
            (np.ones(rows.size, dtype=np.float32), (rows, p[~alone])),
            shape=(int(rows.max()) + 1 if rows.size else 0, self.n_prompts),
        )

    def counts(
        self, n: int, weights: np.ndarray, name: str | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(distinct, total) n-grams of order n of each resample; ``weights`` [B, P]; ``name``
        names the weight matrix, so that metrics reading the same order share the counts."""
        if name is not None and (n, name) in self._memo:
            return self._memo[(n, name)]
        self._order(n)
        total = matvec(weights, self.totals[n])
        present = self._present.get(name) if name is not None else None
        if present is None:
            present = np.ascontiguousarray((weights > 0).T, dtype=np.float32)  # [P, B]
            if name is not None:
                self._present[name] = present
        distinct = matvec(present.T, self.single[n])
        shared = self.shared[n]
        if shared.shape[0]:
            step = max(1, 20_000_000 // shared.shape[0])  # bounds the dense [keys, step] block
            for start in range(0, present.shape[1], step):
                block = shared @ present[:, start : start + step]
                distinct[start : start + step] += (block > 0).sum(axis=0)
        if name is not None:
            self._memo[(n, name)] = (distinct, total)
        return distinct, total


def matvec(a: np.ndarray, v: np.ndarray) -> np.ndarray:
    """a @ v without BLAS: a matrix-vector product of this size gains nothing from BLAS threads,
    and on a busy machine their start-up cost 40 ms a call where einsum takes 0.2 ms."""
    return np.einsum("ij,j->i", a, np.asarray(v, dtype=float))


@dataclass(frozen=True)
class CorpusRecipe:
    """How an n-gram corpus metric is finished from counts (read from the metric's state)."""

    metric: str  # distinct, avg-distinct, ead
    n: int
    tokenizer: Any
    vocab: Any

    @property
    def orders(self) -> list[int]:
        return list(range(1, self.n + 1)) if self.metric == "avg-distinct" else [self.n]

    def values(self, table: NgramTable, weights: np.ndarray, name: str | None = None) -> np.ndarray:
        """The metric of each row of ``weights`` ([B, P] multiplicities of the prompts)."""

        def ratio(n: int) -> np.ndarray:
            distinct, total = table.counts(n, weights, name)
            return np.divide(distinct, total, out=np.zeros_like(distinct), where=total > 0)

        if self.metric == "distinct":
            return ratio(self.n)
        if self.metric == "avg-distinct":
            return np.mean([ratio(n) for n in self.orders], axis=0)
        size = float(resolve_vocab_size(self.vocab, self.tokenizer)[0]) ** self.n
        distinct, total = table.counts(self.n, weights, name)
        if size <= 1:
            expected = np.where(total > 0, 1.0, 0.0)
        else:
            expected = size * -np.expm1(total * math.log1p(-1.0 / size))
        return np.divide(distinct, expected, out=np.zeros_like(distinct), where=expected > 0)


def recomputed(
    metric: Any, units: Sequence[str], rows: np.ndarray, options: Mapping[str, Any]
) -> np.ndarray:
    """The metric on each weighted corpus: row r holds unit i ``rows[r, i]`` times, in unit
    order (resampled prompts repeat, swapped prompts change sides)."""
    out = np.empty(rows.shape[0])
    for r, w in enumerate(np.asarray(rows, dtype=np.int64)):
        corpus = [u for u, times in zip(units, w) for _ in range(times)]
        out[r] = metric(corpus, **options).value
    return out


def corpus_recipe(metric: Any, options: Mapping[str, Any]) -> CorpusRecipe | None:
    """The recipe of a metric row whose state is the n-gram family's, else None (the row's state
    decides, never its name)."""
    try:
        state = metric.make_state(options)
    except InputError:
        return None
    if not isinstance(state, NgramMetricState):
        return None
    tokenizer = get_tokenizer(state.tokenizer, state.lowercase)
    return CorpusRecipe(state.metric, state.n, tokenizer, state.vocab)


# -- inputs -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class System:
    """One system's answers: ``items`` (sets, or one response each) keyed by prompt ``keys``;
    ``prompts`` (optional) the prompt text of each item, checked to agree across systems;
    ``references`` (optional) each item's reference texts (the ref-* metrics and MAUVE), which
    travel with the item when prompts are resampled or swapped; ``per_item``: the per-item
    options (``diveval.options``' ``per_item``: stored classes, quality scores, log-probabilities)
    as ``{option: one entry per item}``, which travel with their item the same way."""

    name: str
    keys: tuple[str, ...]
    items: list
    prompts: tuple[str | None, ...] | None = None
    sampling: str | None = None  # the sampling settings the records carry, if any
    references: tuple[tuple[str, ...] | None, ...] | None = None
    per_item: Mapping[str, tuple] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.keys) != len(self.items):
            raise InputError(
                f"{self.name}: {len(self.keys)} prompt ids for {len(self.items)} items"
            )
        if self.references is not None and len(self.references) != len(self.items):
            raise InputError(
                f"{self.name}: {len(self.references)} lists of references for "
                f"{len(self.items)} items"
            )
        for key, values in self.per_item.items():
            if key not in PER_ITEM_OPTIONS:
                raise ValueError(f"{key!r} is not a per-item option")  # a developer's slip
            if len(values) != len(self.items):
                raise InputError(
                    f"{self.name}: {len(values)} entries of {key} for {len(self.items)} items"
                )
        seen: set[str] = set()
        for key in self.keys:
            if key in seen:
                raise InputError(f"{self.name}: prompt {key!r} appears more than once")
            seen.add(key)

    @property
    def setting(self) -> str:
        return SETS if self.items and isinstance(self.items[0], list) else CORPUS

    @property
    def k(self) -> int:
        """Responses per prompt as sampled: the largest set (empty responses are dropped on
        reading, so a set may hold fewer)."""
        return max(len(s) for s in self.items) if self.setting == SETS else 1


def as_system(name: str, data: Any) -> System:
    """A :class:`System` from one already, ``{prompt id: set or response}``, or a list (prompts
    matched by position)."""
    if isinstance(data, System):
        return data
    if isinstance(data, Mapping):
        return System(name, tuple(str(k) for k in data), [_plain(v) for v in data.values()])
    items = [_plain(v) for v in data]
    return System(name, tuple(str(i + 1) for i in range(len(items))), items)


def _plain(v: Any) -> Any:
    return v if isinstance(v, str) else list(v)


def item_options(system: System, options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` with the system's own per-item values (references, stored classes...), one
    entry per item of ``system.items``: what scoring those items takes."""
    out = {**options, **{k: list(v) for k, v in system.per_item.items()}}
    if system.references is not None:
        out["references"] = list(system.references)
    return out


def _with_references(system: System, references: Any) -> System:
    """``system`` holding the references given to :func:`compare` (``{prompt id: references}``,
    or one list per item of every system) where it holds none of its own."""
    if references is None or system.references is not None:
        return system
    if isinstance(references, Mapping):
        by_key = {str(k): v for k, v in references.items()}  # keys as the systems': strings
        refs = [by_key.get(k) for k in system.keys]
    else:
        refs = list(references)
        if len(refs) != len(system.items):
            raise InputError(
                f"references: {len(refs)} lists for the {len(system.items)} items of "
                f"{system.name}; give them as {{prompt id: references}} when systems differ"
            )
    return replace(system, references=tuple(None if r is None else tuple(r) for r in refs))


# -- results ------------------------------------------------------------------------------------


#: The keys of a row's dict, in the order of the JSON output (``gain`` and ``more_diverse`` are
#: read from the row; ``note`` follows where there is one).
_ROW_KEYS = (
    "metric",
    "baseline",
    "candidate",
    "baseline_value",
    "candidate_value",
    "difference",
    "direction",
    "gain",
    "interval",
    "interval_unadjusted",
    "interval_extended",
    "p_value",
    "p_adjusted",
    "significant",
    "more_diverse",
    "n_prompts",
    "test",
    "signature",
)


@dataclass(frozen=True)
class Row:
    """One metric, one candidate against the baseline."""

    metric: str
    baseline: str
    candidate: str
    direction: str
    n_prompts: int
    signature: str
    baseline_value: float | None = None
    candidate_value: float | None = None
    difference: float | None = None  # candidate - baseline
    # the interval shown: simultaneous over the run's tests (see :func:`_simultaneous`), so it
    # never excludes 0 beside "no decision"; the per-test interval, not adjusted, beside it
    interval: tuple[float, float] | None = None
    interval_unadjusted: tuple[float, float] | None = None
    interval_extended: bool = False  # the simultaneous interval was extended to reach 0
    p_value: float | None = None
    p_adjusted: float | None = None
    significant: bool = False
    test: str | None = None
    note: str | None = None  # why a metric could not be compared

    @property
    def comparable(self) -> bool:
        return self.p_value is not None

    @property
    def gain(self) -> float | None:
        """The difference in the more-diverse direction: > 0 when the candidate is more diverse."""
        if self.difference is None:
            return None
        return self.difference if self.direction == "higher" else -self.difference

    @property
    def more_diverse(self) -> str | None:
        """The system the test says is more diverse, or None when it does not say."""
        if not self.significant or not self.gain:
            return None
        return self.candidate if self.gain > 0 else self.baseline

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in _ROW_KEYS}
        for key in ("interval", "interval_unadjusted"):
            out[key] = list(getattr(self, key)) if getattr(self, key) else None
        return {**out, **({"note": self.note} if self.note else {})}


@dataclass(frozen=True)
class Comparison:
    """Every row of a comparison, the prompts left out of each pair, and the run's choices."""

    rows: tuple[Row, ...]
    baseline: str
    candidates: tuple[str, ...]
    settings: Mapping[str, Any]
    unmatched: Mapping[str, Mapping[str, list[str]]] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "comparison": {
                "baseline": self.baseline,
                "candidates": list(self.candidates),
                **dict(self.settings),
            },
            "unmatched": {c: dict(u) for c, u in self.unmatched.items()},
            "warnings": list(self.warnings),
            "rows": [r.to_dict() for r in self.rows],
        }


# -- the comparison -----------------------------------------------------------------------------


def _check_choices(test: str, n_resamples: int, alpha: float, confidence: float, levels: int):
    if test not in TESTS:
        raise InputError(f"unknown test {test!r}; choose {' or '.join(TESTS)}")
    if levels not in LEVELS:
        raise InputError(f"levels is 1 (prompts) or 2 (prompts, then responses), got {levels}")
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be in (0, 1), got {alpha}")
    if not 0 < confidence < 1:
        raise InputError(f"confidence must be in (0, 1), got {confidence}")
    if n_resamples * (1 - confidence) / 2 < 5:
        need = math.ceil(10 / (1 - confidence))
        raise InputError(
            f"{n_resamples} resamples are too few for a {confidence:g} interval: each tail needs "
            f"at least 5 resamples; use --resamples {need} or more"
        )


def _check_prompts(name: str, n: int, confidence: float) -> None:
    if n < 2:
        raise InputError(f"{name}: {n} prompt(s) in common with the baseline; a comparison needs 2")
    if n > 20:  # C(2n-1, n) outgrows a float, and any confidence short of 1 - 1e-10
        return
    distinct = math.comb(2 * n - 1, n)  # distinct bootstrap resamples of n prompts
    if distinct * (1 - confidence) < 2:
        raise InputError(
            f"{name}: {n} prompts in common are too few for a {confidence:g} interval (their "
            f"bootstrap has {distinct} distinct resamples); add prompts or lower --confidence"
        )


def _smallest_p(n: int, test: str, n_resamples: int) -> float:
    if test == "permutation" and 2**n <= n_resamples:
        return 2.0 / 2**n
    return 1.0 / (n_resamples + 1)


def _pair(baseline: System, candidate: System) -> tuple[list[int], list[int], dict[str, list[str]]]:
    where = {k: i for i, k in enumerate(candidate.keys)}
    mine = set(baseline.keys)
    bi = [i for i, k in enumerate(baseline.keys) if k in where]
    ci = [where[baseline.keys[i]] for i in bi]
    unmatched = {
        f"only in {baseline.name}": [k for k in baseline.keys if k not in where],
        f"only in {candidate.name}": [k for k in candidate.keys if k not in mine],
    }
    if baseline.prompts and candidate.prompts:
        for i, j in zip(bi, ci):
            a, b = baseline.prompts[i], candidate.prompts[j]
            if a is not None and b is not None and a != b:
                raise InputError(
                    f"prompt {baseline.keys[i]!r} is not the same prompt in {baseline.name} and "
                    f"{candidate.name}: {a[:40]!r} vs {b[:40]!r}"
                )
    return bi, ci, {k: v for k, v in unmatched.items() if v}


def _check_settings(systems: Sequence[System], at_k: int | None = None) -> None:
    first = systems[0]
    for s in systems[1:]:
        if s.setting != first.setting:
            raise InputError(
                f"{first.name} holds {first.setting} and {s.name} {s.setting}: compare inputs of "
                "one setting (one response per prompt, or a set of responses per prompt)"
            )
        if s.k != first.k and at_k is None:
            raise InputError(
                f"{first.name} has k = {first.k} responses per prompt and {s.name} k = {s.k}: "
                "diversity grows with k, so compare refuses inputs whose k differ (compare them "
                "at a common k with --at-k K)"
            )


def _inner_draws(items: list, rng: np.random.Generator) -> list[list[list[str]]]:
    """INNER_DRAWS copies of the sets, each set's responses drawn with replacement."""
    out = []
    for _ in range(INNER_DRAWS):
        out.append([[s[j] for j in rng.integers(0, len(s), size=len(s))] for s in items])
    return out


def compare(
    systems: Mapping[str, Any] | Sequence[System],
    metrics: Iterable[str] | None = None,
    *,
    baseline: str | None = None,
    test: str = DEFAULT_TEST,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    alpha: float = DEFAULT_ALPHA,
    confidence: float = DEFAULT_CONFIDENCE,
    levels: int = DEFAULT_LEVELS,
    match: str = "id",
    at_k: int | None = None,
    at_k_draws: int | None = None,
    at_k_seed: int | None = None,
    refit_resamples: int = DEFAULT_REFIT_RESAMPLES,
    **options: Any,
) -> Comparison:
    """Compare every candidate with the baseline on every metric (see the module docstring).

    systems: ``{name: {prompt id: set}}`` (or a list per name, prompts matched by position), or
    :class:`System` objects; the baseline is ``baseline`` or the first. metrics: registry names
    (default: the lexical defaults of the inputs' setting). options: metric options (tokenizer,
    lowercase, vocab, ...), the same for every system. at_k: every system's sets scored at K
    responses each (``meta.at_k``: exact expectations where they exist, else seeded draws), so
    systems sampled with different k compare; without it, inputs whose k differ are refused.
    references (an option): each prompt's references for ref-* and MAUVE, ``{prompt id:
    references}`` or one list per item of every system, for systems that hold none of their
    own. refit_resamples: the resamples (and swaps) of metrics refitted on each (MAUVE).

    >>> a = {f"p{i}": ["a b", "a b"] for i in range(12)}
    >>> b = {f"p{i}": ["a b", "c d"] for i in range(12)}
    >>> row = compare({"a": a, "b": b}, ["distinct-1"]).rows[0]
    >>> row.difference, row.significant, row.more_diverse
    (0.5, True, 'b')
    """
    _check_choices(test, n_resamples, alpha, confidence, levels)
    ordered = _ordered(systems, options.pop("references", None), baseline)
    _check_settings(ordered, at_k)
    base, candidates = ordered[0], ordered[1:]
    setting = base.setting
    if at_k is not None and setting != SETS:
        raise InputError("--at-k scores each prompt's set at K responses: it needs sets")
    if levels == 2 and setting != SETS:
        raise InputError("two levels resample the responses of each prompt: sets input only")
    pairs = []
    unmatched: dict[str, dict[str, list[str]]] = {}
    for cand in candidates:
        bi, ci, left = _pair(base, cand)
        _check_prompts(cand.name, len(bi), confidence)
        pairs.append((cand, bi, ci))
        if left:
            unmatched[cand.name] = left
    names_asked = list(metrics) if metrics is not None else default_metrics(setting)
    rows_metrics = [get_metric(n) for n in names_asked]
    if setting == CORPUS and any(refitted(m) for m in rows_metrics):  # before any model loads
        _check_refit(min(refit_resamples, n_resamples), confidence)
    run = _Run(
        base=base,
        setting=setting,
        test=test if levels == 1 else "bootstrap",
        n_resamples=n_resamples,
        refit_resamples=refit_resamples,
        seed=seed,
        levels=levels,
        options={k: v for k, v in options.items() if v is not None},
        # None: the defaults, where a metric undefined on the input is skipped
        asked=list(metrics) if metrics is not None else None,
        at_k={"at_k": at_k, "at_k_draws": at_k_draws, "at_k_seed": at_k_seed},
    )
    run.score_all(ordered)
    choices = (
        f"compare:{run.test}|ci:percentile|B:{n_resamples}|seed:{seed}|alpha:{alpha:g}|"
        f"conf:{confidence:g}|adjust:{ADJUSTMENT}|shown:{SIMULTANEOUS}|levels:{levels}"
        + (f"|inner:{INNER_DRAWS}" if levels == 2 else "")
        + f"|match:{match}"
    )
    drafts = [
        draft
        for pair_no, (cand, bi, ci) in enumerate(pairs)
        for draft in run.pair_rows(pair_no, cand, bi, ci, rows_metrics, choices, confidence)
    ]
    m_tests = _adjust(drafts, alpha, n_resamples, run.test)
    level, thin = _simultaneous(drafts, alpha, m_tests)
    refit = {d.pop("resamples") for d in drafts if "resamples" in d}
    settings = {
        "setting": setting,
        "metrics": names_asked,
        "test": run.test,
        "interval": "percentile bootstrap",
        "interval_shown": f"simultaneous (Bonferroni): each at 1 - alpha/m = {level:.6g}",
        "interval_unadjusted": f"per test at confidence {confidence:g}, not adjusted",
        "resamples": n_resamples,
        "seed": seed,
        "alpha": alpha,
        "confidence": confidence,
        "adjustment": f"{ADJUSTMENT} over {m_tests} tests",
        "levels": levels,
        "match": match,
        "k": base.k,
        "sampling": {s.name: s.sampling for s in ordered if s.sampling},
        **({"refit_resamples": min(refit)} if refit else {}),
    }
    warnings = tuple(
        f"{c}: {len(ids)} prompt(s) {side} left out: {_shown(ids)}"
        for c, sides in unmatched.items()
        for side, ids in sides.items()
    ) + tuple(thin)
    return Comparison(
        tuple(Row(**d) for d in drafts),
        base.name,
        tuple(c.name for c in candidates),
        settings,
        unmatched,
        warnings,
    )


def _ordered(
    systems: Mapping[str, Any] | Sequence[System], references: Any, baseline: str | None
) -> list[System]:
    """The systems as :class:`System` objects with their references, the baseline first."""
    if isinstance(systems, Mapping):
        ordered = [as_system(str(k), v) for k, v in systems.items()]
    else:
        ordered = [as_system(s.name, s) for s in systems]
    ordered = [_with_references(s, references) for s in ordered]
    if len(ordered) < 2:
        raise InputError("compare needs a baseline and at least one candidate")
    names = [s.name for s in ordered]
    if len(set(names)) != len(names):
        raise InputError(f"two systems share a name: {', '.join(names)}")
    if baseline is not None:
        if baseline not in names:
            raise InputError(f"no system {baseline!r} to take as baseline; have {', '.join(names)}")
        ordered = [s for s in ordered if s.name == baseline] + [
            s for s in ordered if s.name != baseline
        ]
    return ordered


def _adjust(drafts: list[dict[str, Any]], alpha: float, n_resamples: int, test: str) -> int:
    """Holm's adjustment over the tested rows (in place); refuses a run whose smallest possible
    p-value cannot pass Holm's first threshold. Returns the number of tests."""
    tested = [d for d in drafts if "p_value" in d]
    m_tests = len(tested)
    for d in tested:
        n_draws = d.get("resamples", n_resamples)
        smallest = _smallest_p(d["n_prompts"], test, n_draws)
        if smallest > alpha / m_tests:
            raise InputError(
                f"{d['candidate']}, {d['metric']}: {d['n_prompts']} prompts and {n_draws} "
                f"resamples cannot reach Holm's first threshold alpha/m = {alpha / m_tests:.2g} "
                f"over {m_tests} tests (the smallest p-value is {smallest:.2g}); add prompts or "
                + ("--refit-resamples" if n_draws != n_resamples else "--resamples")
            )
    adjusted = holm([d["p_value"] for d in tested])
    for d, q in zip(tested, adjusted):
        d["p_adjusted"] = float(q)
        d["significant"] = bool(q <= alpha)
    return m_tests


def _simultaneous(
    drafts: list[dict[str, Any]], alpha: float, m_tests: int
) -> tuple[float, list[str]]:
    """The intervals shown (in place), from each tested row's resampled differences: Bonferroni's
    simultaneous intervals, each at level 1 - alpha/m over the m tests, which all hold together
    with probability at least 1 - alpha, as Holm's decisions keep the family-wise error at alpha.

    A (1 - alpha) interval of one difference is not adjusted for the other tests: beside Holm's
    decisions it can exclude 0 where the adjusted test finds nothing, which reads as a
    contradiction. Holm rejects whatever Bonferroni rejects (its adjusted p is at most m p), so a
    row without a decision has p > alpha/m, and a 1 - alpha/m interval from the same test would
    hold 0. The interval is the bootstrap's and the p-value the permutation test's, two
    procedures that can disagree at the margin: where the simultaneous interval of a row without
    a decision still excludes 0, it is extended to reach 0 and marked (``interval_extended``),
    so the table never shows an interval that decides where the test does not. Returns (the
    level, warnings: tails of fewer than 2 resamples)."""
    tested = [d for d in drafts if "deltas" in d]
    level = 1 - alpha / max(m_tests, 1)
    thin: list[str] = []
    for d in tested:
        deltas = d.pop("deltas")
        low, high = percentile_interval(deltas, level)
        if not d["significant"] and (low > 0 or high < 0):
            low, high = min(low, 0.0), max(high, 0.0)
            d["interval_extended"] = True
        d["interval"] = (low, high)
        tail = len(deltas) * (1 - level) / 2
        flag = "--refit-resamples" if "resamples" in d else "--resamples"
        # the per-test interval needs 5 resamples in each tail (_check_choices); the
        # simultaneous one, at a level that grows with the tests, is only warned about, under 2:
        # refusing would refuse the defaults (6 metrics, 1,000 resamples: 4.2 in each tail)
        if tail < 2 and flag not in " ".join(thin):
            thin.append(
                f"the simultaneous intervals (each at {level:.6g}, over {m_tests} tests) keep "
                f"{tail:.3g} resamples in each tail: their bounds are the most extreme resamples "
                f"and too narrow; {flag} {math.ceil(10 / (1 - level))} steadies them"
            )
    return level, thin


@dataclass
class _Run:
    """One comparison's choices and every system's scores: the rows of each candidate against
    the baseline come from here."""

    base: System
    setting: str
    test: str
    n_resamples: int
    refit_resamples: int
    seed: int
    levels: int
    options: dict[str, Any]
    asked: list[str] | None
    at_k: dict[str, Any]
    scored: dict[str, Any] = field(default_factory=dict)
    inner: dict[str, list[Any]] = field(default_factory=dict)

    def _scored_sets(self, items: list, options: Mapping[str, Any]) -> Any:
        if self.at_k["at_k"] is None:
            return score(items, self.asked, **options)
        # the per-item values go along, so that at-k refuses what it cannot draw with the sets
        return score_at_k(items, self.asked, **self.at_k, **options)

    def score_all(self, ordered: Sequence[System]) -> None:
        """Every system scored once, on all of its prompts, each item with its own per-item
        values (and, with two levels, on INNER_DRAWS within-prompt resamples of its sets)."""
        self.scored = {
            s.name: self._scored_sets(s.items, item_options(s, self.options)) for s in ordered
        }
        if self.levels == 2:
            held = sorted({k for s in ordered for k in s.per_item})
            if held:
                # a within-prompt resample draws responses, and their stored classes or scores
                # would have to be drawn with them: not done, so refused rather than misaligned
                raise InputError(
                    f"two levels resample each set's responses without their {', '.join(held)}: "
                    "use one level"
                )
            for i, s in enumerate(ordered):
                draws = _inner_draws(s.items, np.random.default_rng([self.seed, 2, i]))
                self.inner[s.name] = [self._scored_sets(d, self.options) for d in draws]

    def pair_rows(
        self,
        pair_no: int,
        cand: System,
        bi: list[int],
        ci: list[int],
        metrics: Sequence[Any],
        choices: str,
        confidence: float,
    ) -> list[dict[str, Any]]:
        """The draft rows of one candidate against the baseline, one per metric."""
        base = self.base
        n = len(bi)
        weights = multiplicities(
            n, self.n_resamples, np.random.default_rng([self.seed, 0, pair_no])
        )
        pair = _PairCorpus(self, pair_no, weights)
        drafts = []
        for m in metrics:
            b_score = self.scored[base.name].get(m.name)
            c_score = self.scored[cand.name].get(m.name)
            head: dict[str, Any] = {"metric": m.name, "baseline": base.name, "candidate": cand.name}
            head.update(direction=m.direction, n_prompts=n)
            if b_score is None or c_score is None:
                skipped = self.scored[base.name].skipped | self.scored[cand.name].skipped
                drafts.append(
                    {**head, "signature": choices, "note": f"not scored: {skipped.get(m.name, '')}"}
                )
                continue
            head["signature"] = f"{b_score.signature}|{choices}"
            item_mean = self.setting == CORPUS and per_item_mean(m, self.options)
            if item_mean:
                # a mean of per-item values, each reading only its response and references
                head["signature"] += "|corpus:item-mean"
            by_prompt = self.setting == SETS or item_mean
            tested: tuple | None
            if by_prompt and b_score.items is not None and c_score.items is not None:
                tested = self._by_prompt(m.name, pair_no, cand, b_score, c_score, bi, ci, weights)
            else:
                tested = pair.tested(m, cand, bi, ci, b_score.signature, head)
            if tested is None:
                drafts.append(head)
                continue
            values, observed, deltas, p = tested
            drafts.append(
                {
                    **head,
                    "baseline_value": values[0],
                    "candidate_value": values[1],
                    "difference": observed,
                    "interval_unadjusted": percentile_interval(deltas, confidence),
                    "deltas": deltas,  # the simultaneous interval needs the number of tests
                    "p_value": p,
                    "test": self.test,
                }
            )
        return drafts

    def _by_prompt(self, name, pair_no, cand, b_score, c_score, bi, ci, weights) -> tuple:
        """(values, observed difference, resampled differences, p) from per-prompt values."""
        n = len(bi)
        bv = np.asarray(b_score.items)[bi]
        cv = np.asarray(c_score.items)[ci]
        d = cv - bv
        observed = float(d.mean())
        if self.levels == 2:
            deltas = _two_level(
                [np.asarray(x[name].items)[bi] for x in self.inner[self.base.name]],
                [np.asarray(x[name].items)[ci] for x in self.inner[cand.name]],
                weights,
                np.random.default_rng([self.seed, 3, pair_no]),
            )
        else:
            deltas = matvec(weights, d) / n
        if self.test == "permutation":
            p = sign_flip_p(d, self.n_resamples, np.random.default_rng([self.seed, 1, pair_no]))
        else:
            p = bootstrap_p(deltas, observed)
        return (float(bv.mean()), float(cv.mean())), observed, deltas, p


class _PairCorpus:
    """The corpus-level tests of one candidate against the baseline: every corpus metric is
    recomputed on the same resampled and swapped weight vectors over the pair's 2n answers."""

    def __init__(self, run: _Run, pair_no: int, weights: np.ndarray):
        self.run, self.pair_no, self.weights = run, pair_no, weights
        self.tables: dict[tuple, NgramTable] = {}
        # weight matrices by number of resamples (a refitted metric draws fewer)
        self.corpus_weights: dict[int, dict[str, tuple[np.ndarray, bool]]] = {}

    def _weights(self, n_draws: int) -> dict[str, tuple[np.ndarray, bool]]:
        if n_draws not in self.corpus_weights:
            self.corpus_weights[n_draws] = _corpus_weights(
                self.weights[:n_draws], self.run.test, self.run.seed, self.pair_no
            )
        return self.corpus_weights[n_draws]

    def tested(
        self,
        m: Any,
        cand: System,
        bi: list[int],
        ci: list[int],
        base_signature: str,
        head: dict[str, Any],
    ) -> tuple | None:
        """(values, observed difference, resampled differences, p) of a corpus metric, its
        signature completed in ``head``; None (a note in ``head``) where it cannot be tested."""
        run, base = self.run, self.run.base
        options, setting, n_resamples = run.options, run.setting, run.n_resamples
        recipe = corpus_recipe(m, options) if setting == CORPUS else None
        units = [base.items[i] for i in bi] + [cand.items[j] for j in ci]
        refs = [_refs(base, i) for i in bi] + [_refs(cand, j) for j in ci]
        by_refs = (
            reference_resampler(m, options, units, refs, base_signature)
            if setting == CORPUS and recipe is None
            else None
        )
        per_item = [o for o in PER_ITEM_OPTIONS if o in m.options]
        if recipe is None and by_refs is None and (setting != CORPUS or per_item):
            why = (
                f"its {', '.join(per_item)} belong to each response and are not resampled"
                if setting == CORPUS
                else "no per-prompt values and no resamplable state"
            )
            head["note"] = f"{why}: this metric cannot be compared prompt by prompt"
            return None
        signature = head["signature"]
        n_draws = n_resamples
        if by_refs is not None and by_refs[1] == "corpus:refit":
            n_draws = min(run.refit_resamples, n_resamples)
            signature = signature.replace(f"|B:{n_resamples}|", f"|B:{n_draws}|")
            head["resamples"] = n_draws
        cw = self._weights(n_draws)
        if by_refs is not None:
            resampler, tag = by_refs
            signature += f"|{tag}"

            def value(name: str) -> np.ndarray:
                return resampler.values(cw[name][0])

        elif recipe is None:
            # a corpus metric whose state does not add up over prompts (corpus Self-BLEU: each
            # response against all the others): recomputed on every resampled or swapped
            # corpus, through the registry, as sacrebleu's paired bootstrap recomputes BLEU
            signature += "|corpus:recomputed"

            def value(name: str) -> np.ndarray:
                return recomputed(m, units, cw[name][0], options)

        else:
            # one table over both systems' answers: units 0..n-1 the baseline's, n..2n-1 the
            # candidate's, so a resample or a swap is a weight vector over the 2n units; one per
            # tokenizer, shared by the metrics of the pair
            key = tuple(sorted(map(str, recipe.tokenizer.signature.items())))
            if key not in self.tables:
                self.tables[key] = NgramTable([[u] for u in units], recipe.orders, recipe.tokenizer)
            joint = self.tables[key]

            def value(name: str) -> np.ndarray:
                return recipe.values(joint, cw[name][0], name)

        values = (float(value("observed-baseline")[0]), float(value("observed-cand")[0]))
        observed = values[1] - values[0]
        deltas = value("bootstrap-cand") - value("bootstrap-baseline")
        if run.test == "permutation":
            stats = value("swap-cand") - value("swap-baseline")
            p = permutation_p(stats, observed, cw["swap-cand"][1])
        else:
            p = bootstrap_p(deltas, observed)
        # a resample repeats prompts, whose n-grams are then no longer new (and whose texts
        # MAUVE clusters twice): the resampled values of a pooled metric sit off the observed
        # one, so the interval is the resamples' spread about the observed difference, not their
        # percentiles
        deltas = deltas - deltas.mean() + observed
        head["signature"] = signature.replace("|ci:percentile|", "|ci:shifted-percentile|")
        return values, observed, deltas, p


def _corpus_weights(
    weights: np.ndarray, test: str, seed: int, pair_no: int
) -> dict[str, tuple[np.ndarray, bool]]:
    """The weight matrices over a pair's 2n units (baseline's answers, then the candidate's):
    the observed corpora, the bootstrap resamples, and (permutation) the swapped corpora; with
    each, whether its swaps are exhaustive."""
    n = weights.shape[1]
    zero, one, empty = np.zeros((1, n)), np.ones((1, n)), np.zeros_like(weights)
    out = {
        "observed-baseline": (np.hstack([one, zero]), False),
        "observed-cand": (np.hstack([zero, one]), False),
        "bootstrap-baseline": (np.hstack([weights, empty]), False),
        "bootstrap-cand": (np.hstack([empty, weights]), False),
    }
    if test == "permutation":
        pattern, exact = swaps(n, weights.shape[0], np.random.default_rng([seed, 1, pair_no]))
        kept = 1 - pattern
        out["swap-baseline"] = (np.hstack([kept, pattern]), exact)
        out["swap-cand"] = (np.hstack([pattern, kept]), exact)
    return out


def _refs(system: System, i: int) -> tuple[str, ...] | None:
    return None if system.references is None else system.references[i]


def _check_refit(draws: int, confidence: float) -> None:
    if draws * (1 - confidence) / 2 < 5:
        need = math.ceil(10 / (1 - confidence))
        raise InputError(
            f"{draws} resamples of a refitted metric (MAUVE) are too few for a {confidence:g} "
            f"interval: each tail needs at least 5; use --refit-resamples {need} or more"
        )


def _shown(ids: list[str]) -> str:
    return ", ".join(ids[:5]) + (f", ... ({len(ids)} in all)" if len(ids) > 5 else "")


def _two_level(
    base_draws: list[np.ndarray],
    cand_draws: list[np.ndarray],
    weights: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Mean differences of outer resamples (prompt multiplicities ``weights``) where each drawn
    copy of a prompt takes one inner draw of each system at random."""
    bd, cd = np.stack(base_draws), np.stack(cand_draws)  # [INNER_DRAWS, n]
    n_resamples, n = weights.shape
    # one draw per (resample, prompt) and system: a prompt drawn twice reuses its inner draw,
    # the approximation that keeps the resampling a matrix product
    rb = rng.integers(0, bd.shape[0], size=(n_resamples, n))
    rc = rng.integers(0, cd.shape[0], size=(n_resamples, n))
    cols = np.arange(n)
    return (weights * (cd[rc, cols] - bd[rb, cols])).sum(axis=1) / n
