"""Equivalence classes of a set of generations (NoveltyBench, Zhang et al. 2025), a sets-only metric.

The k generations of one prompt are partitioned greedily, in order: a generation joins the first
class whose *representative* (the class's first member) the judge calls equivalent to it, else it
opens a new class. ``distinct_k`` is the number of classes. The patience-weighted utility is

    utility_k = sum_i p^(i-1) * new_i * quality_i / sum_i p^(i-1),   i = 1..k,

where ``new_i`` is 1 when generation i opens a class and ``quality_i`` is a user-given quality
(NoveltyBench uses a reward model mapped to 1..10; diveval's default quality is 1 for every
generation, so the default utility is the patience-weighted share of novel generations). This is
``np.average(generation_scores, weights=p ** arange(k))`` in NoveltyBench's ``src/score.py``.

Judges (``judge=``):

- ``"nli"`` (default): bidirectional entailment, the argmax label of NLI(a, b) and of NLI(b, a) is
  entailment in both directions; any NLI model, the shipped one by default, through diveval's
  cached NLI backend (each ordered pair goes to the model once);
- ``"nli-relaxed"``: the weaker rule of the semantic-entropy reference code (jlko/semantic_uncertainty,
  ``get_semantic_ids(..., strict_entailment=False)``): neither direction's argmax label is
  contradiction, and not both are neutral (one-way entailment without contradiction counts as
  equivalent);
- ``"embedding[:T]"``: cosine of the sentence embeddings >= T (default 0.8);
- ``"bleu[:T]"``: NoveltyBench's symmetric BLEU, (BLEU(a|b) + BLEU(b|a)) / 200 >= T (default 0.3),
  sacrebleu's corpus BLEU on the single pair as NoveltyBench computes it (its ``bleu`` function;
  its partition offers no BLEU judge: the threshold is diveval's);
- ``"unigram[:T]"``: NoveltyBench's ``unigram`` judge, ROUGE-1 F1 of (representative, candidate)
  > T (default 0.458), as its ``rouge_scorer.RougeScorer(["rouge1"])`` computes it: no stemming,
  rouge-score's tokenizer (lower-case, the runs of a-z0-9), clipped unigram matches, F1 0 when a
  text has no token;
- ``"bertscore[:T]"``: NoveltyBench's ``bertscore`` judge, BERTScore F1 of the pair > T (default
  0.719), no idf, no baseline rescaling, with NoveltyBench's model ``microsoft/deberta-large`` at
  layer 16 (bert-score's layer for it, what ``evaluate``'s bertscore uses) unless
  ``embedding_model`` names another (a transformers name or folder, ``mpnet``; its layer: see
  ``models.bertscore``). NoveltyBench's ``equivalence_check_bertscore`` indexes the float its
  ``bertscore`` returns (``scores["f1"][0]``), so as published it raises; diveval applies the rule
  it states, F1 > 0.719. The model is not shipped: offline, it must be in the Hugging Face cache;
- ``"hf:PATH[:T]"``: NoveltyBench's trained judge, its ``equivalence_check_classifier``: a pair
  whose longer text has at most 5 words (lower-cased, split on white space) is equivalent when
  2 x (shared distinct words) >= the longer text's word count; any other pair is equivalent when
  the similarity classifier at PATH (a transformers sequence classifier, hub name or folder; see
  ``models.similarity``) gives P(similar) of (representative, candidate) > T (default 0.102,
  NoveltyBench's). NoveltyBench's checkpoint is
  ``hf:yimingzhang/deberta-v3-large-generation-similarity``;
- any callable ``judge(a, b) -> bool``.

Which judge is the default: ``nli``, because it runs offline with the NLI model diveval ships and
is the equivalence semantic entropy's papers define (the two metrics then share their classes).
NoveltyBench's own default, ``--alg classifier``, is ``hf:yimingzhang/deberta-v3-large-generation-
similarity`` here: a 435M-parameter model fetched from the Hugging Face Hub, trained on human
judgements of "meaningfully different", the judge to use to reproduce NoveltyBench's numbers; its
``unigram`` and ``bertscore`` alternatives (``--alg unigram`` / ``bertscore``) are ``unigram``
(no model: the judge to use without one) and ``bertscore``.

A threshold the judge's similarity cannot reach (outside [-1, 1] for the cosine, [0, 1] for BLEU /
100, ROUGE-1 F1 and a probability; [-1, 1] for BERTScore F1, a mean of cosines) is refused: it
would make every pair, or none, equivalent.

Differences from NoveltyBench's code, on purpose: its ``partition.py`` stores ``max(partition)``
as "distinct", one less than the number of classes; diveval reports the number of classes, as the
paper defines distinct_k. Its classifier judge's word-overlap rule for texts of at most 5 words
belongs to its classifier, not to the partition: the ``hf:`` judge applies it, the other judges do
not.

Identical texts (``identical=``): ``"model"`` (the default, as ``partition.py``) asks the judge about
them like any other pair, so NoveltyBench's BLEU judge calls two copies of a text shorter than 4
words different (no 4-grams: BLEU 0), and its classifier's short-response rule two copies of "no no
no no" (1 shared word, 4 words); ``"one"`` puts them in one class without asking the judge. See
:mod:`diveval.semantic.identical`; the signature says which (``ident:``).

Judge calls are batched across sets (one model call per generation position) and cached per run
(``RunContext``): the same ordered pair is never judged twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Hashable, Optional, Sequence

import numpy as np

from ..context import RunContext
from ..data import require_sets
from ..errors import InputError
from ..models import bertscore as bertscore_backend
from ..models.base import CONTRADICTION, ENTAILMENT, NEUTRAL
from ..models.bertscore_pairs import bertscore_f_of
from ..models.cache import cached_pair_scorer
from ..models.devices import (
    ModelSettings,
    RunSettingsKeywords,
    SettingsKeywords,
    settings_of,
    split_settings,
)
from ..models.embedders import embedder_for
from ..models.offline import error_line
from ..models.resolve import nli_for
from ..models.similarity import load_pair_classifier
from ..results import SETS, Score, make_signature
from .embedding_diversity import unit_rows
from .homogenization import rouge_tokens
from .identical import MODEL, ONE, check_identical

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

DEFAULT_PATIENCE = 0.8
DEFAULT_THRESHOLDS = {
    "embedding": 0.8,
    "bleu": 0.3,
    "unigram": 0.458,
    "bertscore": 0.719,
    "hf": 0.102,
}
JUDGE_KINDS = ("nli", "nli-relaxed", "embedding", "bleu", "unigram", "bertscore", "hf")
#: NoveltyBench's BERTScore model and layer (bert-score's ``model2layers`` entry for it)
NOVELTYBENCH_BERTSCORE = ("microsoft/deberta-large", 16)
# what each judge's similarity can reach: a threshold beyond it makes every pair (or none)
# equivalent, a constant score that looks like a measurement
THRESHOLD_RANGES = {
    "embedding": (-1.0, 1.0),
    "bleu": (0.0, 1.0),
    "unigram": (0.0, 1.0),
    "bertscore": (-1.0, 1.0),
    "hf": (0.0, 1.0),
}
SHORT_WORDS = 5  # NoveltyBench decides pairs of at most 5 words by word overlap

Pair = tuple[str, str]


class Judge:
    """Decides equivalence of (representative, candidate) pairs in batches.

    name: goes into the signature. ``judge_pairs`` returns one bool per pair.
    """

    name = "judge"

    def judge_pairs(self, pairs: Sequence[Pair]) -> list[bool]:
        raise NotImplementedError


class CallableJudge(Judge):
    """A user's ``f(a, b) -> bool``, called once per pair."""

    def __init__(self, fn: Callable[[str, str], Any], name: str | None = None):
        self.fn = fn
        self.name = name or f"callable:{getattr(fn, '__name__', 'judge')}"

    def judge_pairs(self, pairs: Sequence[Pair]) -> list[bool]:
        return [bool(self.fn(a, b)) for a, b in pairs]


class NLIJudge(Judge):
    """Bidirectional entailment: both NLI(a, b) and NLI(b, a) have entailment as argmax."""

    rule = "nli-bidirectional"

    def __init__(self, model: Any):
        self.model = model  # an NLIModel (diveval's CachedNLI in use)
        self.name = f"{self.rule}:{model.name}:{model.fingerprint}"

    def judge_pairs(self, pairs: Sequence[Pair]) -> list[bool]:
        if not pairs:
            return []
        # both directions of every pair in one model call
        premises = [a for a, _ in pairs] + [b for _, b in pairs]
        hypotheses = [b for _, b in pairs] + [a for a, _ in pairs]
        labels = np.argmax(np.asarray(self.model.predict(premises, hypotheses)), axis=1)
        n = len(pairs)
        return [bool(x) for x in self.equivalent(labels[:n], labels[n:])]

    @staticmethod
    def equivalent(one: np.ndarray, two: np.ndarray) -> np.ndarray:
        """From the argmax labels of NLI(a, b) and NLI(b, a)."""
        return (one == ENTAILMENT) & (two == ENTAILMENT)


class RelaxedNLIJudge(NLIJudge):
    """Neither NLI(a, b) nor NLI(b, a) is a contradiction, and not both are neutral (the rule of
    the semantic-entropy reference code, weaker than bidirectional entailment)."""

    rule = "nli-relaxed"

    @staticmethod
    def equivalent(one: np.ndarray, two: np.ndarray) -> np.ndarray:
        return (
            (one != CONTRADICTION) & (two != CONTRADICTION) & ~((one == NEUTRAL) & (two == NEUTRAL))
        )


class EmbeddingJudge(Judge):
    """Cosine similarity of sentence embeddings at least ``threshold``."""

    def __init__(self, embedder: Any, threshold: float):
        self.embedder = embedder  # an Embedder (diveval's CachedEmbedder in use)
        self.threshold = threshold
        self.name = f"embedding:{threshold:g}:{embedder.name}:{embedder.fingerprint}"

    def judge_pairs(self, pairs: Sequence[Pair]) -> list[bool]:
        if not pairs:
            return []
        n = len(pairs)
        x = unit_rows(self.embedder.encode([a for a, _ in pairs] + [b for _, b in pairs]))
        cos = np.einsum("ij,ij->i", x[:n], x[n:])
        return [bool(c >= self.threshold) for c in cos]


class BleuJudge(Judge):
    """NoveltyBench's symmetric BLEU: mean of sacrebleu BLEU in both directions / 100."""

    def __init__(self, threshold: float):
        from sacrebleu.metrics import BLEU

        self.threshold = threshold
        self.bleu = BLEU()
        self.name = f"bleu:{threshold:g}:sacrebleu"

    def similarity(self, a: str, b: str) -> float:
        forward = self.bleu.corpus_score([a], [[b]]).score
        backward = self.bleu.corpus_score([b], [[a]]).score
        return (forward + backward) / 200

    def judge_pairs(self, pairs: Sequence[Pair]) -> list[bool]:
        return [self.similarity(a, b) >= self.threshold for a, b in pairs]


class UnigramJudge(Judge):
    """NoveltyBench's ``unigram`` judge: ROUGE-1 F1 of the pair > ``threshold`` (strictly)."""

    def __init__(self, threshold: float):
        self.threshold = threshold
        self.name = f"unigram:rouge1-F>{threshold:g}:tok:rouge-score:stem:no"

    @staticmethod
    def similarity(target: str, prediction: str) -> float:
        """ROUGE-1 F1 as ``RougeScorer(["rouge1"]).score(target, prediction)`` computes it."""
        from collections import Counter

        t, p = Counter(rouge_tokens(target)), Counter(rouge_tokens(prediction))
        overlap = sum(min(c, p[g]) for g, c in t.items())
        # rouge_score.rouge_scorer._score_ngrams and scoring.fmeasure, in the same order
        precision = overlap / max(sum(p.values()), 1)
        recall = overlap / max(sum(t.values()), 1)
        if precision + recall > 0:
            return 2 * precision * recall / (precision + recall)
        return 0.0

    def judge_pairs(self, pairs: Sequence[Pair]) -> list[bool]:
        return [self.similarity(a, b) > self.threshold for a, b in pairs]


class BertScoreJudge(Judge):
    """NoveltyBench's ``bertscore`` judge: BERTScore F1 of the pair > ``threshold`` (strictly).

    scorer: a loaded bert-score ``BERTScorer`` (``models.bertscore.bert_scorer``); each distinct
    text of a call is embedded once."""

    def __init__(self, scorer: Any, name: str, fingerprint: str, layer: int, threshold: float):
        self.scorer = scorer
        self.threshold = threshold
        self.name = f"bertscore:{name}:{fingerprint}:layer:{layer}:idf:no:F>{threshold:g}"

    def similarities(self, pairs: Sequence[Pair]) -> np.ndarray:
        """BERTScore F1 of each pair (symmetric: either text may be the reference)."""
        if not pairs:
            return np.zeros(0)
        docs = list(dict.fromkeys([t for pair in pairs for t in pair]))
        index = {d: i for i, d in enumerate(docs)}
        f = bertscore_f_of(self.scorer, docs, self.scorer.batch_size)
        first = np.array([index[a] for a, _ in pairs], dtype=np.int64)
        second = np.array([index[b] for _, b in pairs], dtype=np.int64)
        return np.asarray(f(first, second), dtype=np.float64)

    def judge_pairs(self, pairs: Sequence[Pair]) -> list[bool]:
        return [bool(s > self.threshold) for s in self.similarities(pairs)]


def bertscore_judge(
    threshold: float, embedding_model: Any = None, settings: Optional[ModelSettings] = None
) -> BertScoreJudge:
    """The ``bertscore`` judge: NoveltyBench's deberta-large at layer 16 unless ``embedding_model``
    names another BERTScore model (``models.bertscore.resolve_bertscore_model``)."""
    if embedding_model is None:
        model, layer = NOVELTYBENCH_BERTSCORE
    elif isinstance(embedding_model, str):
        model, layer = bertscore_backend.resolve_bertscore_model(embedding_model, None)
    else:
        raise InputError("the bertscore judge takes a model name or folder (--embedding-model)")
    try:
        scorer, name, fp = bertscore_backend.bert_scorer(model, layer, settings or ModelSettings())
    except (OSError, ValueError) as err:
        raise InputError(
            f"the bertscore judge cannot load {model!r} ({error_line(err)}); it must be in the Hugging Face "
            "cache offline, or name a local model with --embedding-model"
        ) from None
    return BertScoreJudge(scorer, name, fp, layer, threshold)


def short_pair_rule(a: str, b: str, max_words: int = SHORT_WORDS) -> Optional[bool]:
    """NoveltyBench's rule for short responses: when the longer of the two has at most
    ``max_words`` words (lower-cased, split on white space), they are equivalent iff twice the
    number of distinct words they share is at least the longer one's word count; None (the
    classifier decides) for longer pairs."""
    wa, wb = a.strip().lower().split(), b.strip().lower().split()
    longer = max(len(wa), len(wb))
    if longer > max_words:
        return None
    return 2 * len(set(wa) & set(wb)) >= longer


class ClassifierJudge(Judge):
    """NoveltyBench's trained judge: the short-response rule, else a similarity classifier's
    P(similar) of (representative, candidate) above ``threshold`` (strictly, as partition.py)."""

    def __init__(self, scorer: Any, threshold: float, max_words: int = SHORT_WORDS):
        self.scorer = scorer  # a PairScorer (diveval's CachedPairScorer in use)
        self.threshold = threshold
        self.max_words = max_words
        self.name = f"hf:{scorer.name}:{scorer.fingerprint}:p>{threshold:g}:short<={max_words}w"

    def judge_pairs(self, pairs: Sequence[Pair]) -> list[bool]:
        verdicts = [short_pair_rule(a, b, self.max_words) for a, b in pairs]
        ask = [i for i, v in enumerate(verdicts) if v is None]
        if ask:
            scores = self.scorer.score_pairs([pairs[i][0] for i in ask], [pairs[i][1] for i in ask])
            for i, p in zip(ask, np.asarray(scores, dtype=np.float64)):
                verdicts[i] = bool(p > self.threshold)
        return [bool(v) for v in verdicts]


class CachedJudge(Judge):
    """Asks the wrapped judge only about pairs it has not seen (within a call too)."""

    def __init__(self, judge: Judge):
        self.judge = judge
        self.name = judge.name
        self.memo: dict[Pair, bool] = {}
        self.judged = 0  # pairs the wrapped judge was asked about

    def judge_pairs(self, pairs: Sequence[Pair]) -> list[bool]:
        todo = list(dict.fromkeys(p for p in pairs if p not in self.memo))
        if todo:
            self.judged += len(todo)
            self.memo.update(zip(todo, self.judge.judge_pairs(todo)))
        return [self.memo[p] for p in pairs]


def parse_hf_judge(spec: str) -> tuple[str, float]:
    """'hf:PATH[:T]' -> (PATH, T); T is the last ':' part when it is a number (default 0.102)."""
    rest = spec.partition(":")[2]
    path, _, last = rest.rpartition(":")
    try:
        threshold = float(last) if path else None
    except ValueError:
        threshold = None
    if threshold is None:
        path, threshold = rest, DEFAULT_THRESHOLDS["hf"]
    if not path:
        raise InputError(f"the hf judge names a classifier: hf:PATH[:THRESHOLD], got {spec!r}")
    return path, check_threshold("hf", threshold, spec)


def parse_judge(spec: str) -> tuple[str, float | None]:
    """'nli' | 'nli-relaxed' | 'embedding[:T]' | 'bleu[:T]' | 'unigram[:T]' | 'bertscore[:T]' |
    'hf:PATH[:T]' -> (kind,
    threshold); an InputError otherwise (``parse_hf_judge`` gives an hf judge's PATH)."""
    kind, _, rest = spec.partition(":")
    if kind not in JUDGE_KINDS:
        raise InputError(
            f"unknown judge {spec!r}; choose nli, nli-relaxed, embedding[:THRESHOLD], "
            "bleu[:THRESHOLD], unigram[:THRESHOLD], bertscore[:THRESHOLD] or hf:PATH[:THRESHOLD]"
        )
    if kind == "hf":
        return kind, parse_hf_judge(spec)[1]
    if kind in ("nli", "nli-relaxed"):
        if rest:
            raise InputError(f"the {kind} judge takes no threshold (use --nli-model), got {spec!r}")
        return kind, None
    if not rest:
        return kind, DEFAULT_THRESHOLDS[kind]
    try:
        threshold = float(rest)
    except ValueError:
        raise InputError(f"judge threshold must be a number, got {rest!r} in {spec!r}") from None
    return kind, check_threshold(kind, threshold, spec)


def check_threshold(kind: str, threshold: float, spec: str) -> float:
    """The threshold, or an InputError when the judge's similarity cannot reach it."""
    if not np.isfinite(threshold):
        raise InputError(f"judge threshold must be finite, got {spec!r}")
    low, high = THRESHOLD_RANGES[kind]
    if not low <= threshold <= high:
        raise InputError(
            f"judge threshold {threshold:g} in {spec!r} is outside [{low:g}, {high:g}], the range "
            f"of the {kind} judge's similarity"
        )
    return threshold


def make_judge(
    judge: Any = "nli",
    *,
    nli_model: Any = None,
    embedding_model: Any = None,
    settings: Optional[ModelSettings] = None,
    **keywords: Unpack[SettingsKeywords],
) -> Judge:
    """A Judge from a spec string, a Judge, or a callable ``f(a, b) -> bool``; its model loaded
    with ``settings`` (the run's, or their keywords: device, batch_size, cache_dir, ...)."""
    if isinstance(judge, Judge):
        return judge
    if callable(judge):
        return CallableJudge(judge)
    if not isinstance(judge, str):
        raise InputError(
            f"judge must be a string, a Judge or a callable, got {type(judge).__name__}"
        )
    kind, threshold = parse_judge(judge)
    settings = settings_of(settings, **keywords)
    if kind in ("nli", "nli-relaxed"):
        rule = NLIJudge if kind == "nli" else RelaxedNLIJudge
        return rule(nli_for(nli_model, settings))
    if kind == "embedding":
        return EmbeddingJudge(embedder_for(embedding_model, settings), float(threshold or 0.0))
    if kind == "hf":
        path, hf_threshold = parse_hf_judge(judge)
        scorer = load_pair_classifier(path, settings)
        return ClassifierJudge(cached_pair_scorer(scorer, settings.cache_dir), hf_threshold)
    if kind == "unigram":
        return UnigramJudge(float(threshold or 0.0))
    if kind == "bertscore":
        return bertscore_judge(float(threshold or 0.0), embedding_model, settings)
    return BleuJudge(float(threshold or 0.0))


def _judge_key(judge: Any, nli_model: Any, embedding_model: Any, cache_dir: Any) -> Hashable:
    def ident(x: Any) -> Hashable:
        return x if x is None or isinstance(x, str) else id(x)

    return ("equivalence-judge", ident(judge), ident(nli_model), ident(embedding_model), cache_dir)


def run_judge(judge: Any, context: RunContext, judge_options: JudgeOptions) -> CachedJudge:
    """The judge of a run, made once per run (``context``) and its verdicts cached: its models
    loaded with the given ``settings``, else the run's, else a direct call's keywords."""
    options: dict[str, Any] = dict(judge_options)
    settings, models = split_settings(options, options.pop("settings", None), context)
    key = _judge_key(
        judge, models.get("nli_model"), models.get("embedding_model"), settings.cache_dir
    )
    return context.memo(key, lambda: CachedJudge(make_judge(judge, settings=settings, **models)))


def partition_sets(
    sets: Sequence[Sequence[str]], judge: Judge, identical: str = MODEL
) -> list[list[int]]:
    """Class index of every generation of every set (classes numbered in order of opening).

    Batched over sets: at generation position j, every set's pairs (representative of each open
    class, generation j) go to the judge in one call; a generation joins the first class in order
    of opening whose representative is judged equivalent. identical: "model" (ask the judge
    about identical texts too) or "one" (identical texts are equivalent, unasked).
    """
    skip = identical == ONE
    labels: list[list[int]] = [[-1] * len(s) for s in sets]
    reps: list[list[int]] = [[] for _ in sets]  # index of each class's representative
    for j in range(max((len(s) for s in sets), default=0)):
        asks = [(k, c) for k, s in enumerate(sets) if j < len(s) for c in range(len(reps[k]))]
        pairs = [(sets[k][reps[k][c]], sets[k][j]) for k, c in asks]
        ask = [p for p in pairs if not (skip and p[0] == p[1])]
        answers = iter(judge.judge_pairs(ask))
        verdicts = [True if skip and a == b else next(answers) for a, b in pairs]
        joined: dict[int, int] = {}
        for (k, c), same in zip(asks, verdicts):
            if same and k not in joined:
                joined[k] = c  # asks are in class order, so the first True is the first class
        for k, s in enumerate(sets):
            if j >= len(s):
                continue
            if k in joined:
                labels[k][j] = joined[k]
            else:
                labels[k][j] = len(reps[k])
                reps[k].append(j)
    return labels


def patience_utility(labels: Sequence[int], quality: Sequence[float], patience: float) -> float:
    """NoveltyBench's utility: quality of class-opening generations, weighted by p^(i-1)."""
    seen: set[int] = set()
    gains = np.zeros(len(labels))
    for i, (c, q) in enumerate(zip(labels, quality)):
        if c not in seen:
            seen.add(c)
            gains[i] = q
    weights = patience ** np.arange(len(labels), dtype=np.float64)
    return float(np.dot(gains, weights) / weights.sum())


class JudgeOptions(RunSettingsKeywords, total=False):
    """The models a judge may use, and how they run: the run's ``settings``, or a direct call's
    keywords (device, batch_size, precision, cache_dir)."""

    nli_model: Any
    embedding_model: Any
    settings: Optional[ModelSettings]


@dataclass(frozen=True)
class Partition:
    """The classes of each set, distinct_k and utility per set."""

    labels: list[list[int]]
    distinct: np.ndarray
    utility: np.ndarray
    judge: str  # the judge's name, for signatures


def partition(
    sets: Any,
    judge: Any = "nli",
    *,
    quality: Callable[[str], float] | Sequence[Sequence[float]] | None = None,
    patience: float = DEFAULT_PATIENCE,
    identical: Optional[str] = None,
    context: RunContext | None = None,
    **judge_options: Unpack[JudgeOptions],
) -> Partition:
    """Partition each set into equivalence classes (see the module docstring).

    quality: None (1 for every generation), a function of one generation, or one list of numbers
    per set, parallel to its generations. judge_options: the judge's models and the run's model
    ``settings`` (or a direct call's keywords, device=...).
    """
    items = require_sets(sets, "equivalence-classes")
    if any(len(s) == 0 for s in items):
        raise InputError("equivalence-classes: every set needs at least 1 generation")
    if not 0 < patience <= 1:
        raise InputError(f"patience must be in (0, 1], got {patience}")
    qualities = _qualities(items, quality)
    context = context if context is not None else RunContext()
    cached = run_judge(judge, context, judge_options)
    labels = partition_sets(items, cached, check_identical(identical, "equivalence-classes"))
    distinct = np.array([max(lab) + 1 for lab in labels], dtype=np.float64)
    utility = np.array(
        [patience_utility(lab, q, patience) for lab, q in zip(labels, qualities)], dtype=np.float64
    )
    return Partition(labels, distinct, utility, cached.name)


def _qualities(items: list[list[str]], quality: Any) -> list[list[float]]:
    if quality is None:
        return [[1.0] * len(s) for s in items]
    if callable(quality):
        return [[float(quality(t)) for t in s] for s in items]
    out = [[float(q) for q in row] for row in quality]
    if len(out) != len(items) or any(len(q) != len(s) for q, s in zip(out, items)):
        raise InputError("quality must give one number per generation of every set")
    return out


def _per_set_lists(labels: list[list[int]]) -> np.ndarray:
    """One list per set in a 1-D array: per-set detail, so JSON shows it only with --items."""
    out = np.empty(len(labels), dtype=object)
    for k, lab in enumerate(labels):
        out[k] = list(lab)
    return out


def equivalence_classes(
    sets: Any,
    judge: Any = "nli",
    *,
    progress: Optional[bool] = None,
    quality: Callable[[str], float] | Sequence[Sequence[float]] | None = None,
    patience: float = DEFAULT_PATIENCE,
    identical: Optional[str] = None,
    context: RunContext | None = None,
    **options: Unpack[JudgeOptions],
) -> Score:
    """distinct_k per set (value: the mean over sets), with the utility in ``details``.

    identical: "model" (default, as NoveltyBench: the judge decides identical texts too) or "one"
    (identical texts are one class without asking the judge).

    ``details``: ``utility`` (per set), ``utility_mean``, ``labels`` (class of each generation).
    """
    del progress
    rule = check_identical(identical, "equivalence-classes")
    context = context if context is not None else RunContext()
    result = partition(
        sets,
        judge,
        quality=quality,
        patience=patience,
        identical=rule,
        context=context,
        **options,
    )
    sig = make_signature(
        "equivalence-classes",
        judge=result.judge,
        rep="first",
        patience=patience,
        quality="given" if quality is not None else "1",
        ident=rule,
        setting=SETS,
    )
    details = {
        "utility": result.utility,
        "utility_mean": float(result.utility.mean()),
        "labels": _per_set_lists(result.labels),
    }
    return Score(
        "equivalence-classes", float(result.distinct.mean()), sig, SETS, result.distinct, details
    )
