"""Registry tables of the reference-based metrics: one ``Metric`` row per metric.

``REFERENCE_GROUPS``: the LSDSCC metrics (sets setting; they need ``reference_groups``).
``REFERENCES``: the multi-reference metrics (corpus setting; they need ``references``).
``DISTRIBUTIONS``: MAUVE, the model texts against the pooled references as human text.
"""

from __future__ import annotations

from typing import Any

from ..context import RunContext
from ..data import as_setting
from ..errors import InputError
from ..models.devices import ModelSettings, with_settings
from ..options import OPTION
from ..registry import Metric, implemented_by, register_tables
from ..results import CORPUS, SETS, Score
from .item_state import item_scores_state

_LSDSCC_OPTIONS = (
    "reference_groups",
    "aligner",
    "embedding_model",
    "device",
    "batch_size",
    "progress",
)


def _corpus(data, reference_groups, aligner, options, context: RunContext):
    """The alignment of a run, computed once: `diveval score -m lsdscc-mds -m lsdscc-pds` shares
    it through the run's context (the data and reference groups are the run's own, so the key
    needs only the choices that change the alignment)."""
    from .lsdscc import lsdscc_corpus

    al_key = aligner if isinstance(aligner, (str, type(None))) else ("id", id(aligner))
    key = (
        "lsdscc",
        id(data),
        id(reference_groups),
        al_key,
        tuple(sorted((k, v) for k, v in options.items() if k != "progress")),
    )
    return context.memo(
        key,
        lambda: lsdscc_corpus(
            data, reference_groups, aligner or OPTION["aligner"].default, **options
        ),
    )


def _make(metric: str):
    def compute(
        data: Any,
        reference_groups: Any = None,
        aligner: Any = None,
        embedding_model=None,
        progress=None,
        context: RunContext | None = None,
        settings: ModelSettings | None = None,
    ) -> Score:
        if reference_groups is None:
            raise InputError(
                f"{metric} needs reference groups: pass reference_groups (one list of "
                'groups per set), or give every .jsonl record a "reference_groups" field'
            )
        context = context if context is not None else RunContext()
        options: dict[str, Any] = {"settings": settings}
        if embedding_model is not None:
            options["embedding_model"] = embedding_model
        if progress:
            options["progress"] = True
        as_setting(data, SETS)  # refuses a corpus (list of strings) with a clear message
        return _corpus(data, reference_groups, aligner, options, context).score(metric)

    compute.__name__ = metric.replace("-", "_")
    return implemented_by("diveval.reference.lsdscc:lsdscc_corpus")(compute)


#: LSDSCC's three scores: (name, what it is). MaxBLEU is a quality score (closeness to the
#: references): "higher" = closer.
_LSDSCC_SCORES = (
    ("lsdscc-mds", "Mean Diversity Score: share of reference groups the set covers"),
    (
        "lsdscc-pds",
        "Probabilistic Diversity Score: share of references in the groups the set covers",
    ),
    (
        "lsdscc-maxbleu",
        "MaxBLEU: mean best aligner score of each response against its reference groups",
    ),
)

REFERENCE_GROUPS = [
    Metric(
        name,
        f"LSDSCC {what} (Xu et al. 2018; needs reference_groups)",
        _make(name),
        settings=(SETS,),
        options=_LSDSCC_OPTIONS,
        model="embedder",  # the embedding aligner's (the default BLEU aligner loads none)
        load=with_settings,
        direction="higher",
        # MaxBLEU is how close the responses come to the references; MDS and PDS are diversity
        tags=frozenset({"quality"}) if name == "lsdscc-maxbleu" else frozenset(),
        citation="Xu et al. 2018",
        reference="the authors' LSDSCC algorithm (BLEU aligner, numpy argmax alignment), restated "
        "in the tests and run on the LSDSCC test set, to 1e-12",
    )
    for name, what in _LSDSCC_SCORES
]


_LEXICAL = ("references", "reduction", "tokenizer", "lowercase")
_MODEL = ("references", "reduction", "embedding_model", "device", "batch_size", "precision")
_WHY = 'needs references: one list per response (JSONL field "references")'


def _need(references: Any, name: str) -> None:
    if references is None:
        raise InputError(f"{name} {_WHY}")


def _multiref(name: str, function: str, **fixed: Any):
    """The registry wrapper of ``multiref.<function>``: refuses a call without references."""

    @implemented_by(f"diveval.reference.multiref:{function}")
    def compute(data, references=None, **options) -> Score:
        from . import multiref

        _need(references, name)
        return getattr(multiref, function)(data, references, **fixed, **options)

    return compute


def _bert(label: str):
    @implemented_by("diveval.reference.multiref:bertscore")
    def compute(data, references=None, embedding_model=None, context=None, **options) -> Score:
        from .multiref import bertscore

        _need(references, f"ref-bertscore-{label.lower()}")
        return bertscore(data, references, model=embedding_model, context=context, **options)[label]

    return compute


@implemented_by("diveval.reference.local_recall:local_recall")
def _local_recall(data, references=None, **options) -> Score:
    from .local_recall import local_recall

    return local_recall(data, references, **options)


def _local_recall_state(options: dict[str, Any]) -> Any:
    from .local_recall import local_recall_state

    return local_recall_state(options)


def _against_references(
    name: str,
    description: str,
    compute: Any,
    options: tuple[str, ...],
    *,
    pooled_bleu: bool = False,
    **row: Any,
) -> Metric:
    """The row of a quality score of each response against its references: corpus setting,
    "higher" = closer to the references, one state of per-item scores (``pooled_bleu``: BLEU's
    corpus statistics pooled, for ref-bleu-N)."""
    return Metric(
        name,
        description,
        compute,
        settings=(CORPUS,),
        options=options,
        direction="higher",
        tags=frozenset({"quality"}),
        state=item_scores_state(name, pooled_bleu=pooled_bleu),
        **row,
    )


REFERENCES = [
    *(
        _against_references(
            f"ref-bleu-{n}",
            f"multi-reference BLEU-{n} (value: corpus BLEU; needs references)",
            _multiref(f"ref-bleu-{n}", "bleu", n=n),
            (*_LEXICAL, "smoothing"),
            citation="Papineni et al. 2002",
            reference="nltk sentence_bleu / corpus_bleu with several references, to 1e-12; "
            "sacrebleu corpus_bleu without smoothing",
            pooled_bleu=True,
        )
        for n in range(1, 5)
    ),
    _against_references(
        "ref-rouge-l",
        "ROUGE-L F (rouge-score), best reference (needs references)",
        _multiref("ref-rouge-l", "rouge_l"),
        ("references", "reduction", "variant"),
        extra="reference",
        citation="Lin 2004",
        reference="rouge-score score_multi (max) and score per reference (mean), to 1e-12",
    ),
    _against_references(
        "ref-meteor",
        "METEOR (nltk + WordNet 3.0), best reference (needs references)",
        _multiref("ref-meteor", "meteor"),
        _LEXICAL,
        extra="reference",
        citation="Banerjee & Lavie 2005",
        reference="nltk meteor_score (max) and single_meteor_score (mean) with WordNet 3.0, to "
        "1e-12",
    ),
    _against_references(
        "ref-embedding-average",
        "embedding average (spaCy en_core_web_md vectors), best reference (needs references)",
        _multiref("ref-embedding-average", "embedding_average"),
        _LEXICAL,
        extra="reference",
        citation="Liu et al. 2016",
    ),
    *(
        _against_references(
            f"ref-bertscore-{label.lower()}",
            f"BERTScore {what} (MiniLM-L6 layer 6), best reference (needs references)",
            _bert(label),
            _MODEL,
            extra="models",
            model="embedder",
            load=with_settings,
            citation="Zhang et al. 2020",
            reference="bert-score BERTScorer's own multi-reference path, to 1e-5",
        )
        for label, what in (("P", "precision"), ("R", "recall"), ("F", "F1"))
    ),
    Metric(
        "ref-local-recall",
        "share of the words that every reference of an item uses which its response uses, "
        "pooled over items, punctuation dropped (van Miltenburg et al. 2018, as the GEM "
        "benchmark; needs references)",
        _local_recall,
        settings=(CORPUS,),
        options=("references", "tokenizer", "lowercase"),
        direction="higher",
        tags=frozenset({"quality"}),
        citation="van Miltenburg et al. 2018; Gehrmann et al. 2021",
        reference="GEM-metrics' LocalRecall restated with loops in the tests (all levels), to "
        "1e-12",
        state=_local_recall_state,
    ),
]


@implemented_by("diveval.reference.mauve:mauve")
def _mauve(data, references=None, embedding_model=None, **options) -> Score:
    from .mauve import mauve

    _need(references, "mauve")
    return mauve(data, references, embedding_model, **options)


# the model texts against the human texts as distributions (no pairing of response and reference)
DISTRIBUTIONS = [
    Metric(
        "mauve",
        "MAUVE: area under the divergence curve of k-means histograms of model and human text "
        "embeddings; details: the range over 5 clustering seeds (needs references: the human "
        "texts, pooled)",
        _mauve,
        settings=(CORPUS,),
        options=(
            "references",
            "embedding_model",
            "device",
            "batch_size",
            "precision",
            "cache_dir",
            "progress",
        ),
        extra="mauve",
        model="embedder",
        load=with_settings,
        resampling="refit",
        direction="higher",
        tags=frozenset({"quality"}),
        citation="Pillutla et al. 2021",
        reference="mauve-text's compute_mauve on the same features, to 1e-12",
    ),
]

#: The family's groups, titled (the documentation lists them under these titles).
TABLES = {
    "Against reference groups (LSDSCC)": REFERENCE_GROUPS,
    "Against references": REFERENCES,
    "Model text against human text": DISTRIBUTIONS,
}
TABLE = register_tables(TABLES)
