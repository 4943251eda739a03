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
  (:mod:`diveval.meta.statistics.reference_resampling`). Where the value is the mean of independent
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
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from ...errors import InputError
from ...models.devices import ModelSettings, resolve_settings
from ...registry import default_metrics, get_metric
from ...results import CORPUS, SETS
from ...scale.local import score
from ..estimation.at_k import score_at_k

# the choices and defaults the command line shows live apart, so that its parser imports no numpy
from .compare_options import (
    DEFAULT_ALPHA,
    DEFAULT_CONFIDENCE,
    DEFAULT_LEVELS,
    DEFAULT_REFIT_RESAMPLES,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    DEFAULT_TEST,
    check_choices,
)
from .compare_options import MATCHES as MATCHES  # read by the callers, not here
from .compare_results import Comparison, Row
from .paired_corpus import PairCorpus
from .reference_resampling import per_item_mean, refitted
from .resampling import (
    bootstrap_p,
    holm,
    matvec,
    multiplicities,
    percentile_interval,
    sign_flip_p,
)
from .systems import (
    System,
    check_prompts,
    check_settings,
    item_options,
    ordered_systems,
    pair_prompts,
    shown_ids,
)

INNER_DRAWS = 20  # two levels: within-prompt resamples of each system's sets, scored once each
ADJUSTMENT = "holm"
SIMULTANEOUS = "bonferroni"  # the intervals shown beside Holm's decisions (see _simultaneous)


def _smallest_p(n: int, test: str, n_resamples: int) -> float:
    if test == "permutation" and 2**n <= n_resamples:
        return 2.0 / 2**n
    return 1.0 / (n_resamples + 1)


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
    models: ModelSettings | None = None,
    **options: Any,
) -> Comparison:
    """Compare every candidate with the baseline on every metric (see the module docstring).

    systems: ``{name: {prompt id: set}}`` (or a list per name, prompts matched by position), or
    :class:`System` objects; the baseline is ``baseline`` or the first. metrics: registry names
    (default: the lexical defaults of the inputs' setting). options: metric options (tokenizer,
    lowercase, vocab, ...), the same for every system. at_k: every system's sets scored at K
    responses each (``meta.estimation.at_k``: exact expectations where they exist, else seeded
    draws), so systems sampled with different k compare; without it, inputs whose k differ are
    refused.
    references (an option): each prompt's references for ref-* and MAUVE, ``{prompt id:
    references}`` or one list per item of every system, for systems that hold none of their
    own. refit_resamples: the resamples (and swaps) of metrics refitted on each (MAUVE).
    models: the model settings the caller resolved (None: resolved here from ``options``), for
    every system's scoring.

    >>> a = {f"p{i}": ["a b", "a b"] for i in range(12)}
    >>> b = {f"p{i}": ["a b", "c d"] for i in range(12)}
    >>> row = compare({"a": a, "b": b}, ["distinct-1"]).rows[0]
    >>> row.difference, row.significant, row.more_diverse
    (0.5, True, 'b')
    """
    check_choices(test, n_resamples, alpha, confidence, levels)
    ordered = ordered_systems(systems, options.pop("references", None), baseline)
    check_settings(ordered, at_k)
    base, candidates = ordered[0], ordered[1:]
    setting = base.setting
    if at_k is not None and setting != SETS:
        raise InputError("--at-k scores each prompt's set at K responses: it needs sets")
    if levels == 2 and setting != SETS:
        raise InputError("two levels resample the responses of each prompt: sets input only")
    pairs = []
    unmatched: dict[str, dict[str, list[str]]] = {}
    for cand in candidates:
        bi, ci, left = pair_prompts(base, cand)
        check_prompts(cand.name, len(bi), confidence)
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
        models=models if models is not None else resolve_settings(options),
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
    m_tests = adjust_drafts(drafts, alpha, n_resamples, run.test)
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
        f"{c}: {len(ids)} prompt(s) {side} left out: {shown_ids(ids)}"
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


def adjust_drafts(drafts: list[dict[str, Any]], alpha: float, n_resamples: int, test: str) -> int:
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
    models: ModelSettings
    asked: list[str] | None
    at_k: dict[str, Any]
    scored: dict[str, Any] = field(default_factory=dict)
    inner: dict[str, list[Any]] = field(default_factory=dict)

    def _scored_sets(self, items: list, options: Mapping[str, Any]) -> Any:
        if self.at_k["at_k"] is None:
            return score(items, self.asked, models=self.models, **options)
        # the per-item values go along, so that at-k refuses what it cannot draw with the sets
        return score_at_k(items, self.asked, **self.at_k, models=self.models, **options)

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
        pair = PairCorpus(self, pair_no, weights)
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


def _check_refit(draws: int, confidence: float) -> None:
    if draws * (1 - confidence) / 2 < 5:
        need = math.ceil(10 / (1 - confidence))
        raise InputError(
            f"{draws} resamples of a refitted metric (MAUVE) are too few for a {confidence:g} "
            f"interval: each tail needs at least 5; use --refit-resamples {need} or more"
        )


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
