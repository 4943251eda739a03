"""Equivalence classes of a set of generations (NoveltyBench, Zhang et al. 2025), a sets-only metric.

The k generations of one prompt are partitioned greedily, in order: a generation joins the first
class whose *representative* (the class's first member) the judge calls equivalent to it, else it
opens a new class. ``distinct_k`` is the number of classes. A judge that is not transitive (a
learned one: A like B and B like C, A unlike C) can make the count depend on the order the
generations are listed in, as in the benchmark; they are taken in the order given. The patience-weighted utility is

    utility_k = sum_i p^(i-1) * new_i * quality_i / sum_i p^(i-1),   i = 1..k,

where ``new_i`` is 1 when generation i opens a class and ``quality_i`` is a user-given quality
(NoveltyBench uses a reward model mapped to 1..10; diveval's default quality is 1 for every
generation, so the default utility is the patience-weighted share of novel generations). This is
``np.average(generation_scores, weights=p ** arange(k))`` in NoveltyBench's ``src/score.py``.

Judges (``judge=``):

- ``"answers[:T]"``: diveval's shipped answer-equivalence judge (``models.answers_judge``), trained
  offline from NoveltyBench's stored classes to stand in for its classifier: P(same) of a
  bi-encoder (each answer's first 128 tokens, the benchmark's truncation) and a logistic head over
  the cosine, word overlaps and whether the pair is short, > T (default: the threshold fitted
  with the model, in its ``config.json``). Short answers are the model's to judge, not the word
  rule of the ``hf:`` judge: the stored classes were made without that rule. Its agreement with
  the benchmark's classes on withheld prompts is in ``benchmarks/answers_judge.py`` and the model
  card;
- ``"nli"`` (default): bidirectional entailment, the argmax label of NLI(a, b) and of NLI(b, a) is
  entailment in both directions; any NLI model, the shipped one by default, through diveval's
  cached NLI backend (each ordered pair goes to the model once). The model reads a pair cut to its
  length as the signature's ``trunc:`` says: the shipped model, ``pair128-longest-first``, 128
  tokens for the two texts together, cut from the longer one (two long answers keep about 62
  tokens each), not NoveltyBench's 128 tokens of each answer;
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

Which judge is the default: ``answers``, diveval's shipped answer-equivalence judge, because it
runs offline and agrees best with NoveltyBench's own classes on prompts it never saw (per-set
adjusted Rand index, ``benchmarks/answers_judge.py``; the shipped NLI judge's bidirectional
entailment splits paraphrased LLM answers that the benchmark calls one class). NoveltyBench's own
default, ``--alg classifier``, is ``hf:yimingzhang/deberta-v3-large-generation-similarity`` here: a
435M-parameter model fetched from the Hugging Face Hub, trained on human judgements of
"meaningfully different", the judge to use to reproduce NoveltyBench's numbers exactly; its
``unigram`` and ``bertscore`` alternatives (``--alg unigram`` / ``bertscore``) are ``unigram`` (no
model) and ``bertscore``. Semantic entropy keeps ``nli``, the equivalence its papers define.

A threshold the judge's similarity cannot reach (outside [-1, 1] for the cosine, [0, 1] for BLEU /
100, ROUGE-1 F1 and a probability; [-1, 1] for BERTScore F1, a mean of cosines) is refused: it
would make every pair, or none, equivalent.

Differences from NoveltyBench's code, on purpose: its ``partition.py`` stores ``max(partition)``
as "distinct", one less than the number of classes; diveval reports the number of classes, as the
paper defines distinct_k. Its classifier judge's word-overlap rule for texts of at most 5 words
belongs to its classifier, not to the partition: the ``hf:`` judge applies it, the other judges do
not.

Identical texts (``identical=``): ``"one"`` puts them in one class without asking the judge;
``"model"`` asks the judge about them like any other pair, as ``partition.py`` does. The default
depends on the judge: ``model`` for NoveltyBench's own classifier (``hf:``), whose numbers come
from asking it about every pair (its short-response rule even calls two copies of "no no no no"
different: 1 shared word, 4 words); ``one`` for every other judge, whose errors would otherwise
split identical answers (the NLI judge made ten classes of "4, 4, 4, 4, 4, 1, 5, 6, 4, 4", and
NoveltyBench's BLEU judge calls two copies of a text shorter than 4 words different: no 4-grams,
BLEU 0). Under ``model``, a partition that puts identical texts into different classes says so
in a warning, with the number of pairs it split. See :mod:`diveval.semantic.identical`; the
signature says which rule (``ident:``).

Stored classes (``classes=``): one list of class labels per set, one label per generation (e.g.
the ``partition`` field of NoveltyBench's ``scores.jsonl``, with ``quality=`` its
``generation_scores``), used instead of a judge: no judge is asked, and the signature says
``classes:given``. Labels are any non-negative integers; classes are renumbered in order of first
appearance (as NoveltyBench numbers them), so distinct_k is the number of different labels.

The judge is asked only the pairs NoveltyBench's loop asks (a generation against the earlier
classes' representatives in order, up to the first equivalent one: ``partition_sets``), batched
across sets (one judge call per generation position), and cached per run (``RunContext``): the
same ordered pair is never judged twice. The NLI judges run NLI(b, a) only where NLI(a, b) leaves
the verdict open.
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
from ..models.resolve import answers_model_for, nli_for
from ..models.similarity import load_pair_classifier
from ..options import OPTION
from ..results import SETS, Score, make_signature
from ..text.answer_overlap import SHORT_WORDS, short_pair_rule
from .embedding_diversity import unit_rows
from .homogenization import rouge_tokens
from .identical import MODEL, ONE, check_identical, split_warning

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
JUDGE_KINDS = ("answers", "nli", "nli-relaxed", "embedding", "bleu", "unigram", "bertscore", "hf")
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
    "answers": (0.0, 1.0),
}

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
    """Bidirectional entailment: both NLI(a, b) and NLI(b, a) have entailment as argmax.

    NLI(a, b) of every pair runs first; NLI(b, a) only for the pairs its label leaves open (for
    this rule, those where a entails b): a pair that fails one way fails the rule, whatever the
    other way says, so its second model run would change no verdict. On LLM answers most pairs
    fail the first way, so most pairs cost one model run, not two.
    """

    rule = "nli-bidirectional"

    def __init__(self, model: Any):
        self.model = model  # an NLIModel (diveval's CachedNLI in use)
        self.name = f"{self.rule}:{model.name}:{model.fingerprint}{truncation_of(model)}"

    def judge_pairs(self, pairs: Sequence[Pair]) -> list[bool]:
        if not pairs:
            return []
        forward = self._labels([a for a, _ in pairs], [b for _, b in pairs])
        verdicts = np.zeros(len(pairs), dtype=bool)
        # the labels that leave the verdict open: some label of NLI(b, a) would make it True
        open_labels = [x for x in range(3) if self.equivalent(np.full(3, x), np.arange(3)).any()]
        ask = [int(i) for i in np.flatnonzero(np.isin(forward, open_labels))]
        if ask:
            backward = self._labels([pairs[i][1] for i in ask], [pairs[i][0] for i in ask])
            verdicts[ask] = self.equivalent(forward[ask], backward)
        return [bool(x) for x in verdicts]

    def _labels(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        return np.argmax(np.asarray(self.model.predict(premises, hypotheses)), axis=1)

    @staticmethod
    def equivalent(one: np.ndarray, two: np.ndarray) -> np.ndarray:
        """From the argmax labels of NLI(a, b) and NLI(b, a)."""
        return (one == ENTAILMENT) & (two == ENTAILMENT)


def truncation_of(model: Any) -> str:
    """``:trunc:RULE`` for an NLI model that says how it cuts a pair to its length (its
    ``truncation``, e.g. ``pair128-longest-first``; a CachedNLI's wrapped model's), else "":
    on 100-300-token answers the cut decides what the model reads, so the signature names it."""
    rule = getattr(model, "truncation", None) or getattr(
        getattr(model, "model", None), "truncation", None
    )
    return f":trunc:{rule}" if isinstance(rule, str) and rule else ""


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


class AnswersJudge(Judge):
    """diveval's shipped answer-equivalence judge (``models.answers_judge``): the trained
    bi-encoder's P(same) > ``threshold`` (strictly, as partition.py); None takes the threshold
    fitted with the model. Short answers too are the model's to judge: NoveltyBench's stored
    classes, which this judge stands in for, were made without the word rule of its current
    code (the rule splits 784 pairs of the shared data, 574 of which the benchmark put in one
    class). Each distinct text is embedded once per judge, i.e. once per run."""

    def __init__(self, model: Any, threshold: Optional[float] = None):
        self.model = model
        self.threshold = model.threshold if threshold is None else float(threshold)
        self.embeddings: dict[str, np.ndarray] = {}
        self.name = (
            f"answers:{model.name}:{model.fingerprint}:p>{self.threshold:g}"
            f":trunc:{model.max_length}"
        )

    def judge_pairs(self, pairs: Sequence[Pair]) -> list[bool]:
        if not pairs:
            return []
        new = [t for t in dict.fromkeys(t for p in pairs for t in p) if t not in self.embeddings]
        self.embeddings.update(zip(new, self.model.embed(new)))
        cosines = np.array([float(self.embeddings[a] @ self.embeddings[b]) for a, b in pairs])
        return [bool(p > self.threshold) for p in self.model.probabilities(cosines, pairs)]


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
    """'answers[:T]' | 'nli' | 'nli-relaxed' | 'embedding[:T]' | 'bleu[:T]' | 'unigram[:T]' |
    'bertscore[:T]' | 'hf:PATH[:T]' -> (kind, threshold; None for the answers judge's own); an InputError otherwise (``parse_hf_judge`` gives an hf judge's PATH)."""
    kind, _, rest = spec.partition(":")
    if kind not in JUDGE_KINDS:
        raise InputError(
            f"unknown judge {spec!r}; choose answers[:THRESHOLD], nli, nli-relaxed, "
            "embedding[:THRESHOLD], "
            "bleu[:THRESHOLD], unigram[:THRESHOLD], bertscore[:THRESHOLD] or hf:PATH[:THRESHOLD]"
        )
    if kind == "hf":
        return kind, parse_hf_judge(spec)[1]
    if kind in ("nli", "nli-relaxed"):
        if rest:
            raise InputError(f"the {kind} judge takes no threshold (use --nli-model), got {spec!r}")
        return kind, None
    if not rest:
        # the answers judge's threshold was fitted with its model: None takes that one
        return kind, DEFAULT_THRESHOLDS.get(kind)
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
    if kind == "answers":
        return AnswersJudge(answers_model_for(settings), threshold)
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

    In NoveltyBench's order (its ``partition_responses``): the first generation not yet in a
    class opens one and is its representative, and the judge is asked about (representative,
    g) for every later generation g not yet in a class. So a generation is compared with the
    representatives of the earlier classes in order until one is equivalent, and never after:
    the judge sees only the pairs NoveltyBench's loop asks, ``expected_judged`` of them.
    Answer-major order (each generation against every earlier class at once) gives the same
    classes but also judges the classes after the one it joins.

    Batched over sets: at position i, the pairs of every set whose generation i opens a class
    go to the judge in one call (at most one call per position). identical: "model" (ask the
    judge about identical texts too) or "one" (identical texts are equivalent, unasked).
    """
    skip = identical == ONE
    labels: list[list[int]] = [[-1] * len(s) for s in sets]
    opened = [0] * len(sets)  # classes opened so far, per set
    for i in range(max((len(s) for s in sets), default=0)):
        openers = [k for k, s in enumerate(sets) if i < len(s) and labels[k][i] == -1]
        for k in openers:
            labels[k][i] = opened[k]
            opened[k] += 1
        asks = [(k, j) for k in openers for j in range(i + 1, len(sets[k])) if labels[k][j] == -1]
        pairs = [(sets[k][i], sets[k][j]) for k, j in asks]
        answers = iter(judge.judge_pairs([p for p in pairs if not (skip and p[0] == p[1])]))
        for (k, j), (a, b) in zip(asks, pairs):
            if (skip and a == b) or next(answers):
                labels[k][j] = labels[k][i]
    return labels


def expected_judged(labels: Sequence[Sequence[int]]) -> int:
    """Pairs :func:`partition_sets` asks about, from the classes it found (identical texts
    included): generation j is compared with the representatives of classes 0..c when it joins
    class c, and with all earlier classes when it opens one."""
    total = 0
    for lab in labels:
        seen = 0
        for c in lab:
            total += min(c + 1, seen)
            seen = max(seen, c + 1)
    return total


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
    judge: str  # the judge's name, for signatures ("given" for stored classes)
    identical: Optional[str] = None  # the rule for identical texts; None for stored classes
    warnings: tuple[str, ...] = ()


def partition(
    sets: Any,
    judge: Any = None,
    *,
    classes: Optional[Sequence[Sequence[int]]] = None,
    quality: Callable[[str], float] | Sequence[Sequence[float]] | None = None,
    patience: float = DEFAULT_PATIENCE,
    identical: Optional[str] = None,
    context: RunContext | None = None,
    **judge_options: Unpack[JudgeOptions],
) -> Partition:
    """Partition each set into equivalence classes (see the module docstring).

    judge: the judge's spec (None: the ``judge`` option's default for equivalence-classes,
    ``answers``). classes: stored classes instead of a judge, one list of labels per set.
    quality: None (1 for every generation), a function of one generation, or one list of
    numbers per set, parallel to its generations. judge_options: the judge's models and the run's model ``settings`` (or a direct
    call's keywords, device=...).
    """
    items = require_sets(sets, "equivalence-classes")
    if any(len(s) == 0 for s in items):
        raise InputError("equivalence-classes: every set needs at least 1 generation")
    if not 0 < patience <= 1:
        raise InputError(f"patience must be in (0, 1], got {patience}")
    qualities = _qualities(items, quality)
    rule: Optional[str] = None
    if classes is not None:
        for given, flag in ((judge, "judge (--judge)"), (identical, "identical (--identical)")):
            if given is not None:
                raise InputError(
                    f"equivalence-classes: the classes are given, so no judge is asked: leave "
                    f"out {flag}"
                )
        labels = given_labels(items, classes)
        name = "given"
        # a stored partition may split identical answers too (NoveltyBench's curated-61)
        warning = split_warning(items, labels, "the given classes", "they are used as given")
    else:
        judge = OPTION["judge"].default_for("equivalence-classes") if judge is None else judge
        rule = check_identical(identical, "equivalence-classes", judge=judge)
        context = context if context is not None else RunContext()
        cached = run_judge(judge, context, judge_options)
        labels = partition_sets(items, cached, rule)
        name = cached.name
        warning = split_warning(items, labels) if rule == MODEL else None
    distinct = np.array([max(lab) + 1 for lab in labels], dtype=np.float64)
    utility = np.array(
        [patience_utility(lab, q, patience) for lab, q in zip(labels, qualities)], dtype=np.float64
    )
    return Partition(labels, distinct, utility, name, rule, (warning,) if warning else ())


def given_labels(items: list[list[str]], classes: Any) -> list[list[int]]:
    """Stored classes, checked (one non-negative integer per generation of every set) and
    renumbered in order of first appearance."""
    if isinstance(classes, (str, bytes)) or not isinstance(classes, Sequence):
        raise InputError(
            "equivalence-classes: classes must be one list of labels per set (the CLI's "
            f"--classes names the record field that holds them), got {type(classes).__name__}"
        )
    if len(classes) != len(items):
        raise InputError(
            f"equivalence-classes: classes has {len(classes)} lists for {len(items)} sets"
        )
    out = []
    for g, (row, texts) in enumerate(zip(classes, items)):
        if isinstance(row, (str, bytes)) or not isinstance(row, (Sequence, np.ndarray)):
            raise InputError(f"set {g}: the classes must be a list of labels, got {row!r}")
        labels = list(row)
        if len(labels) != len(texts):
            raise InputError(f"set {g}: {len(labels)} class labels for {len(texts)} generations")
        bad = [
            x
            for x in labels
            if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) or x < 0
        ]
        if bad:
            raise InputError(f"set {g}: a class label is a non-negative integer, got {bad[0]!r}")
        first: dict[int, int] = {}
        out.append([first.setdefault(int(x), len(first)) for x in labels])
    return out


def _qualities(items: list[list[str]], quality: Any) -> list[list[float]]:
    if quality is None:
        return [[1.0] * len(s) for s in items]
    if callable(quality):
        return [[float(quality(t)) for t in s] for s in items]
    if isinstance(quality, (str, bytes)) or not isinstance(quality, Sequence):
        raise InputError(
            "quality must be a function or one list of numbers per set (the CLI's --quality "
            f"names the record field that holds them), got {type(quality).__name__}"
        )
    if len(quality) != len(items):
        raise InputError(f"quality has {len(quality)} lists for {len(items)} sets")
    out = []
    for g, (row, texts) in enumerate(zip(quality, items)):
        numbers = _numbers(row)
        if numbers is None or len(numbers) != len(texts):
            raise InputError(
                f"set {g}: quality must give one number per generation, finite ({len(texts)} here), "
                f"got {row!r}"
            )
        out.append(numbers)
    return out


def _numbers(row: Any) -> list[float] | None:
    """``row`` as finite floats, or None when it is not a list of finite numbers."""
    if isinstance(row, (str, bytes)) or not isinstance(row, (Sequence, np.ndarray)):
        return None
    if any(
        isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.number)) for x in row
    ):
        return None
    numbers = [float(x) for x in row]
    return numbers if all(np.isfinite(numbers)) else None


def _per_set_lists(labels: list[list[int]]) -> np.ndarray:
    """One list per set in a 1-D array: per-set detail, so JSON shows it only with --items."""
    out = np.empty(len(labels), dtype=object)
    for k, lab in enumerate(labels):
        out[k] = list(lab)
    return out


def equivalence_classes(
    sets: Any,
    judge: Any = None,
    *,
    progress: Optional[bool] = None,
    classes: Optional[Sequence[Sequence[int]]] = None,
    quality: Callable[[str], float] | Sequence[Sequence[float]] | None = None,
    patience: float = DEFAULT_PATIENCE,
    identical: Optional[str] = None,
    context: RunContext | None = None,
    **options: Unpack[JudgeOptions],
) -> Score:
    """distinct_k per set (value: the mean over sets), with the utility in ``details``.

    judge: the judge (None: ``answers``). classes: stored classes instead of a judge, one list of
    labels per set (e.g. NoveltyBench's ``partition``). identical: "one" (identical texts are one
    class without asking the judge) or "model" (the judge decides identical texts too, as
    NoveltyBench); None: "model" for an ``hf:`` judge, "one" for any other.

    ``details``: ``utility`` (per set), ``utility_mean``, ``labels`` (class of each generation),
    and ``warnings`` when identical generations were put into different classes.
    """
    del progress
    result = partition(
        sets,
        judge,
        classes=classes,
        quality=quality,
        patience=patience,
        identical=identical,
        context=context if context is not None else RunContext(),
        **options,
    )
    source: dict[str, Any] = (
        {"classes": "given"} if classes is not None else {"judge": result.judge, "rep": "first"}
    )
    sig = make_signature(
        "equivalence-classes",
        **source,
        patience=patience,
        quality="given" if quality is not None else "1",
        ident=result.identical,
        setting=SETS,
    )
    details: dict[str, Any] = {
        "utility": result.utility,
        "utility_mean": float(result.utility.mean()),
        "labels": _per_set_lists(result.labels),
    }
    if result.warnings:
        details["warnings"] = list(result.warnings)
    return Score(
        "equivalence-classes", float(result.distinct.mean()), sig, SETS, result.distinct, details
    )
