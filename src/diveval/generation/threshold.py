"""Diversity Threshold Generation (Stasaski & Hearst 2022, section 6).

Sample n = 5 responses. While the set is not above the threshold and fewer than S = 20 samples
were drawn: score every (n-1)-subset, drop the response missing from the best subset, sample one
replacement. The ending set is the set when the loop stops (``keep="last"``, the paper's
procedure). Nothing makes that set at least as diverse as the starting one: a replacement can be
duplicative enough to pull the set below where it started (on DailyDialog++ dev with a pool of
human responses and averaged distinct-n, 14 of 1,028 contexts end lower). ``keep="best"`` returns
instead the most diverse set met on the way (the earliest on ties), which is never below the
starting set; the same samples are drawn either way.

Rules this module fixes (the paper leaves them open):

- *above* is strict: a set reaches the threshold when its score is > threshold (the NLI preset's
  "more than 10 contradictions" is ``score > 10``), by more than float noise: by more than
  ``ABOVE_RTOL`` (1e-12) x max(1, |threshold|). Averaged distinct-n of a set whose exact value is
  0.98 (distinct-1 9/10, distinct-2..5 1) comes out of float arithmetic as 0.9800000000000001;
  it is *at* the paper's 0.98, not above it. Metric values that differ from the threshold by
  1e-12 relative are not told apart by any metric here (they are ratios of counts and means).
  Such a score is *stored* as the threshold itself (:func:`settle`): the record's
  ``end_diversity`` is the number the decision compared, so ``end_diversity > threshold`` and
  ``reached`` never disagree (0.9800000000000001 beside ``reached: false`` contradicted itself);
- ties between subsets: the first best subset in set order wins, i.e. the response dropped is the
  earliest one whose removal gives the best score; the replacement takes the dropped response's
  place in the set (so the order of the set is stable);
- samples: the first n come from one ``generator.sample(context, n, seed)`` call; replacement j
  (j = 1, 2, ...) from ``generator.sample(context, 1, seed + j)``; the same seed gives the same run;
- a generator that has nothing left to give (``GeneratorExhausted``, e.g. a pool of candidates)
  ends the loop with ``stop = "exhausted"``; one that cannot give the first n raises InputError;
- utterance overlap: how many responses of the starting set (by sample, not by text) are still in
  the ending set.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Optional, Sequence

from ..errors import InputError
from ..models.generators import GeneratorExhausted, check_samples, resolve_generator
from .scorers import resolve_preset

STOP_REACHED, STOP_BUDGET, STOP_EXHAUSTED = "reached", "budget", "exhausted"

#: Relative margin a score must clear to be above the threshold (float noise, see the docstring).
ABOVE_RTOL = 1e-12


def settle(score: float, threshold: float) -> float:
    """``score`` as the threshold decision reads it: the threshold itself when the two differ by
    float noise only (``ABOVE_RTOL``), else ``score`` unchanged. Stored values go through this, so
    a record's score and its ``reached`` are one computation."""
    if math.isfinite(threshold) and abs(score - threshold) <= ABOVE_RTOL * max(1.0, abs(threshold)):
        return float(threshold)
    return float(score)


def above(score: float, threshold: float) -> bool:
    """Whether ``score`` is above ``threshold`` by more than float noise (NaN is never above)."""
    if not math.isfinite(threshold):
        return bool(score > threshold)
    return bool(score - threshold > ABOVE_RTOL * max(1.0, abs(threshold)))


@dataclass(frozen=True)
class Step:
    """One replacement: the set's score before it, the leave-one-out scores, which response went
    (index in the set and text) and what came in."""

    score_before: float
    subset_scores: tuple[float, ...]
    dropped_index: int
    dropped: str
    added: str


#: The fields a record holds only when there is something to say (a report, the steps asked for).
_OPTIONAL = ("report", "steps")


#: The order a record (``to_dict``) writes the fields in: ``threshold_source`` next to the
#: threshold it explains, although the dataclass declares it among the defaulted fields.
_RECORD_ORDER = ("context", "metric", "threshold", "threshold_source")


# Not kw_only (Python 3.10+): the defaulted fields come last so that 3.9 can declare the class.
@dataclass(frozen=True)
class ThresholdResult:
    """One context's run; its fields in the order its record (``to_dict``) writes them, but
    ``threshold_source`` (written after ``threshold``)."""

    context: Any
    metric: str
    threshold: float
    start: tuple[str, ...]
    start_diversity: float
    end: tuple[str, ...]
    end_diversity: float
    samples: int  # responses drawn in all (n at least)
    reached: bool
    stop: str  # "reached", "budget" or "exhausted"
    overlap: int  # responses of the starting set still in the ending set
    threshold_source: str = ""  # which threshold and why (a preset's, measured for a model, given)
    keep: str = "last"
    signature: str = ""
    report: dict = field(default_factory=dict)  # {metric: {"start": x, "end": y}}
    steps: tuple[Step, ...] = ()

    def to_dict(self, with_steps: bool = False) -> dict[str, Any]:
        names = [f.name for f in fields(self) if f.name not in _OPTIONAL]
        names = [*_RECORD_ORDER, *(n for n in names if n not in _RECORD_ORDER)]
        out = {name: getattr(self, name) for name in names}
        out["start"], out["end"] = list(self.start), list(self.end)
        if self.report:
            out["report"] = {k: dict(v) for k, v in self.report.items()}
        if with_steps:
            out["steps"] = [
                {**asdict(s), "subset_scores": list(s.subset_scores)} for s in self.steps
            ]
        return out


def _draw(generator, context, k: int, seed: int) -> list[str]:
    return check_samples(
        generator.sample(context, k, seed), k, str(getattr(generator, "name", generator))
    )


def _best_subset(subset_scores: Sequence[float]) -> int:
    """Index of the first maximum; NaN never wins."""
    best, best_i = None, -1
    for i, s in enumerate(subset_scores):
        s = float(s)
        if s != s:  # NaN
            continue
        if best is None or s > best:
            best, best_i = s, i
    if best_i < 0:
        raise InputError("every leave-one-out subset scored NaN; the metric is undefined here")
    return best_i


def threshold_generate(
    context: Any,
    generator: Any,
    metric: Any,
    threshold: Optional[float] = None,
    n: int = 5,
    max_samples: int = 20,
    seed: int = 0,
    *,
    keep: str = "last",
    report: Any = None,
    **options: Any,
) -> ThresholdResult:
    """Diversity Threshold Generation for one context (see the module docstring).

    generator: any ``Generator`` (``sample(context, k, seed) -> list[str]``). metric: a preset
    name ("nli", "avg-distinct", "sent-bert", with the paper's thresholds), a registered sets
    metric name (then ``threshold`` is required), or a set scorer (``generation.scorers``).
    report: extra scorer(s) scored on the starting and ending sets only (the NLI preset reports
    nli-baseline). keep: "last" (the paper's ending set) or "best" (the most diverse set met).
    options: metric options (tokenizer, nli_model, embedding_model, cache_dir, ...).
    """
    _check_run(n, max_samples, keep)
    scorer, threshold, preset_report, why = resolve_preset(metric, threshold, **options)
    if not hasattr(generator, "sample"):
        generator = resolve_generator(generator)
    reporters = [preset_report] if preset_report else []
    if report is not None:
        reporters += list(report) if isinstance(report, (list, tuple)) else [report]
    try:
        first = _draw(generator, context, n, seed)
    except GeneratorExhausted as err:
        raise InputError(f"the generator cannot give the first {n} responses: {err}") from None
    start_score = settle(scorer.score(first), threshold)
    search = _Search(list(first), list(range(n)), start_score, n)
    search.replace_until_above(generator, context, scorer, threshold, max_samples, seed)
    end = search.best if keep == "best" else search.last
    reported = {}
    for r in reporters:
        reported[r.name] = {"start": float(r.score(first)), "end": float(r.score(end.responses))}
    return ThresholdResult(
        context=context,
        metric=scorer.name,
        threshold=threshold,
        start=tuple(first),
        start_diversity=float(start_score),
        end=tuple(end.responses),
        end_diversity=end.score,
        samples=search.drawn,
        reached=end.score > threshold,
        stop=search.stop,
        overlap=sum(1 for o in end.origin if o < n),
        keep=keep,
        steps=tuple(search.steps),
        signature=getattr(scorer, "signature", "") or "",
        report=reported,
        threshold_source=why,
    )


def _check_run(n: int, max_samples: int, keep: str) -> None:
    if n < 2:
        raise InputError(f"n must be at least 2 (a set needs pairs), got {n}")
    if max_samples < n:
        raise InputError(f"max_samples ({max_samples}) must be at least n ({n})")
    if keep not in ("last", "best"):
        raise InputError(f'keep must be "last" or "best", got {keep!r}')


@dataclass(frozen=True)
class _Set:
    """A set met on the way: its score, its responses, and which draw each slot holds (the
    first n draws are the starting set)."""

    score: float
    responses: list[str]
    origin: list[int]


@dataclass
class _Search:
    """The paper's loop: while the set is not above the threshold and the budget allows, drop
    the response whose absence leaves the most diverse subset and draw a replacement."""

    current: list[str]
    origin: list[int]  # which draw each slot holds
    score: float
    drawn: int
    steps: list[Step] = field(default_factory=list)
    stop: str = STOP_REACHED
    best: _Set = field(init=False)

    def __post_init__(self) -> None:
        self.best = self.last

    @property
    def last(self) -> _Set:
        return _Set(self.score, list(self.current), list(self.origin))

    def replace_until_above(
        self, generator, context, scorer, threshold: float, max_samples: int, seed: int
    ) -> None:
        n = len(self.current)
        while not self.score > threshold:  # settled: above by more than float noise
            if self.drawn >= max_samples:
                self.stop = STOP_BUDGET
                return
            subset_scores = [float(s) for s in scorer.leave_one_out(self.current)]
            drop = _best_subset(subset_scores)
            try:
                (new,) = _draw(generator, context, 1, seed + self.drawn - n + 1)
            except GeneratorExhausted:
                self.stop = STOP_EXHAUSTED
                return
            self.steps.append(Step(self.score, tuple(subset_scores), drop, self.current[drop], new))
            self.current[drop] = new
            self.origin[drop] = self.drawn
            self.drawn += 1
            self.score = settle(scorer.score(self.current), threshold)
            if self.score > self.best.score:
                self.best = self.last
