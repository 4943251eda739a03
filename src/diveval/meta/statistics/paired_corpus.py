"""Corpus-level paired tests: a corpus metric (one number over all prompts) has no per-prompt
values to difference, so each resampled or swapped corpus is scored as a weight vector over the
pair's 2n answers (the baseline's, then the candidate's), through the per-unit statistics its
state offers (``unit_statistics``), its references
(:mod:`diveval.meta.statistics.reference_resampling`), or, where neither applies, by scoring the
weighted corpus again (:func:`recomputed`).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ...options import PER_ITEM_OPTIONS
from ...results import CORPUS
from ...state import Units
from .reference_resampling import (
    check_references_given,
    refit_resampler,
    refitted,
    state_or_none,
)
from .resampling import bootstrap_p, permutation_p, swaps
from .systems import System, references_of


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


def unit_statistics(
    metric: Any,
    options: Mapping[str, Any],
    units: Sequence[str],
    shared: dict,
    references: Sequence[Any] = (),
    signature: str = "",
) -> Any | None:
    """The per-unit sufficient statistics of a corpus row whose state offers them
    (``state.unit_statistics``: an object whose ``values(weights, name)`` gives the metric of
    each weighted sum of units, and whose ``tag`` names the method in the signature), else None.
    The state's capability decides, never the metric's name or class; ``shared`` lets the rows of
    one pair share their tables; ``references`` (one list per unit) and the scored run's
    ``signature`` are for the metrics that read them."""
    offered = getattr(state_or_none(metric, options), "unit_statistics", None)
    if offered is None:
        return None
    return offered(Units(units, references, signature, shared))


class PairCorpus:
    """The corpus-level tests of one candidate against the baseline: every corpus metric is
    recomputed on the same resampled and swapped weight vectors over the pair's 2n answers."""

    def __init__(self, run: Any, pair_no: int, weights: np.ndarray):
        self.run, self.pair_no, self.weights = run, pair_no, weights
        self.tables: dict[tuple, Any] = {}  # the per-unit statistics of the pair's rows
        # weight matrices by number of resamples (a refitted metric draws fewer)
        self.corpus_weights: dict[int, dict[str, tuple[np.ndarray, bool]]] = {}

    def _weights(self, n_draws: int) -> dict[str, tuple[np.ndarray, bool]]:
        if n_draws not in self.corpus_weights:
            self.corpus_weights[n_draws] = corpus_weights(
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
        units = [base.items[i] for i in bi] + [cand.items[j] for j in ci]
        # units 0..n-1 the baseline's, n..2n-1 the candidate's: a resample or a swap is a weight
        # vector over the 2n units; the rows of the pair share their tables
        refs = [references_of(base, i) for i in bi] + [references_of(cand, j) for j in ci]
        # what scores a weighted corpus: the state's summed statistics, else a refit (MAUVE),
        # else (None) the metric recomputed on each corpus
        resampler = None
        if setting == CORPUS:
            if "references" in m.options:
                check_references_given(m, refs)
            resampler = unit_statistics(m, options, units, self.tables, refs, base_signature)
            if resampler is None:
                resampler = refit_resampler(m, options, units, refs)
        per_item = [o for o in PER_ITEM_OPTIONS if o in m.options]
        if resampler is None and (setting != CORPUS or per_item):
            why = (
                f"its {', '.join(per_item)} belong to each response and are not resampled"
                if setting == CORPUS
                else "no per-prompt values and no resamplable state"
            )
            head["note"] = f"{why}: this metric cannot be compared prompt by prompt"
            return None
        signature = head["signature"]
        n_draws = n_resamples
        if resampler is not None and refitted(m):
            n_draws = min(run.refit_resamples, n_resamples)
            signature = signature.replace(f"|B:{n_resamples}|", f"|B:{n_draws}|")
            head["resamples"] = n_draws
        cw = self._weights(n_draws)
        if resampler is None:
            # a corpus metric whose state does not add up over prompts (corpus Self-BLEU: each
            # response against all the others): recomputed on every resampled or swapped
            # corpus, through the registry, as sacrebleu's paired bootstrap recomputes BLEU
            signature += "|corpus:recomputed"

            def value(name: str) -> np.ndarray:
                return recomputed(m, units, cw[name][0], options)

        else:
            if resampler.tag:
                signature += f"|{resampler.tag}"

            def value(name: str) -> np.ndarray:
                return resampler.values(cw[name][0], name)

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


def corpus_weights(
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
