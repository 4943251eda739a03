"""Registry tables of the semantic diversity metrics: one ``Metric`` row per metric.

``MODEL_BACKED``: NLI Diversity, Sent-BERT diversity, the Vendi Score, and the set-geometry
metrics of the embedding cosine kernel (RKE, DCScore, IntDiv, LogDet, Chamfer, remote clique).
``HOMOGENIZATION``: homogenization (Padmakumar & He 2023; Shaib et al. 2024), the mean similarity
of each document to the others.
``EQUIVALENCE``: NoveltyBench's equivalence classes (Zhang et al. 2025; a judge partitions each
set).
``SEMANTIC_SETS``: semantic entropy over a set's meaning classes (Kuhn et al. 2023), the spectral
measures of its similarity graph (Lin, Trivedi & Sun 2023) and similarity-sensitive Hill numbers
(Leinster & Cobbold 2012).

A model-backed row declares its model's kind and ``load`` (``models.embedders.with_embedder``,
``models.resolve.with_nli``): the registry loads the run's model and calls the metric's function
itself (``registry.Implementation``, imported when first called: ``import diveval`` stays cheap).
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..models.devices import SETTINGS_OPTIONS, with_settings
from ..models.embedders import with_embedder
from ..models.resolve import with_nli
from ..options import OPTION
from ..registry import Implementation, Metric, implemented_by, pair_mean_at_k, register_tables
from ..results import CORPUS, SETS
from .gram_state import VendiState

_MODEL_SETTINGS = (*SETTINGS_OPTIONS, "progress")


def _nli(variant: str):
    @implemented_by(
        f"diveval.semantic.nli_diversity:nli_{'counts' if variant == 'counts' else 'diversity'}"
    )
    def compute(sets, model=None, **options):
        from .nli_diversity import nli_counts, nli_diversity

        if variant == "counts":
            return nli_counts(sets, model, **options)
        return nli_diversity(sets, model, variant, **options)

    return compute


def _embedding_row(name: str) -> Implementation:
    """The compute of an embedding metric ``function(sets, model, **options)`` of
    ``semantic.set_geometry``: the function itself; the row's ``load`` gives it the run's
    embedder."""
    return Implementation(f"diveval.semantic.set_geometry:{name}")


_sent_bert = Implementation("diveval.semantic.embedding_diversity:embedding_diversity")


def _sent_bert_at_k(sets, **options):
    """Sent-BERT on the whole sets (its own at-K value), its embedder loaded as the row loads it."""
    return _sent_bert(sets, **with_embedder(options, None))


@implemented_by("diveval.semantic.vendi:vendi")
def _vendi(data, model=None, **options):
    from .vendi import vendi

    return vendi(data, "embedding", model=model, **options)


@implemented_by("diveval.semantic.vendi:vendi")
def _vendi_ngram(data, **options):
    from .vendi import vendi

    return vendi(data, "ngram", **options)


_NLI_DESCRIPTIONS = {
    "baseline": "NLI Diversity: sum over ordered pairs of +1 contradiction / -1 entailment (Stasaski & Hearst 2022)",
    "neutral": "NLI Diversity, neutral pairs also +1 (Stasaski & Hearst 2022)",
    "confidence": "NLI Diversity weighted by P(contradiction) / -P(entailment) (Stasaski & Hearst 2022)",
    "counts": "NLI label counts per set; value: mean contradictions per set",
}


_GEOMETRY_REFERENCES = {
    "rke": "vendi-score 0.0.3 (score_K with q=2 on the same cosine kernel, to 1e-9)",
    "intdiv": "vendi-score 0.0.3 (intdiv_K on the same cosine kernel, to 1e-12)",
    "chamfer": "the diversity package 0.3.1 (chamfer_dist on the same embeddings, to its 3 "
    "decimals)",
    "remote-clique": "the diversity package 0.3.1 (remote_clique on the same embeddings, times "
    "n/(n-1): it averages the zero self-distances in, to its 3 decimals)",
}
#: the set-geometry rows (semantic/set_geometry.py): functions of each set's cosine kernel
_GEOMETRY = (
    (
        "rke",
        _embedding_row("rke"),
        "Rényi kernel entropy 1/||K/n||_F^2 of the embedding cosine kernel, per set: the "
        "order-2 Vendi Score (Jalali et al. 2023)",
        "Jalali et al. 2023",
    ),
    (
        "dcscore",
        _embedding_row("dcscore"),
        "DCScore tr(softmax_row(K/tau)), tau=1, of the embedding cosine kernel, per set "
        "(Zhu et al. 2025)",
        "Zhu et al. 2025",
    ),
    (
        "intdiv",
        _embedding_row("intdiv"),
        "internal diversity 1 - mean cosine of the set's embeddings, self-pairs included "
        "(vendi-score's intdiv, uniform weights)",
        "Friedman & Dieng 2022",
    ),
    (
        "logdet",
        _embedding_row("logdet"),
        "log det(K + eps I), eps=1e-6, of the embedding cosine kernel, per set: the "
        "determinantal (DPP) volume of the responses (Kulesza & Taskar 2012)",
        "Kulesza & Taskar 2012",
    ),
    (
        "chamfer",
        _embedding_row("chamfer"),
        "Chamfer distance: mean over responses of the cosine distance to the nearest other "
        "response of the set (Cox et al. 2021)",
        "Cox et al. 2021",
    ),
    (
        "remote-clique",
        _embedding_row("remote_clique"),
        "remote clique: mean cosine distance over the pairs of a set (Cox et al. 2021)",
        "Cox et al. 2021",
    ),
)

MODEL_BACKED = [
    *(
        Metric(
            f"nli-{variant}",
            text,
            _nli(variant),
            settings=(SETS,),
            options=("nli_model", *_MODEL_SETTINGS),
            extra="nli",  # "models" for HF models
            model="nli",
            load=with_nli,
            direction="higher",
            citation="Stasaski & Hearst 2022",
        )
        for variant, text in _NLI_DESCRIPTIONS.items()
    ),
    Metric(
        "sent-bert",
        "minus mean pairwise cosine of sentence embeddings (Tevet & Berant's Sent-BERT)",
        _sent_bert,
        settings=(SETS,),
        options=("embedding_model", *_MODEL_SETTINGS),
        extra="models",
        model="embedder",
        load=with_embedder,
        direction="higher",
        citation="Tevet & Berant 2021",
        reference="sentence-transformers encode() and the pairwise cosines computed directly, to "
        "1e-5",
        at_k=pair_mean_at_k(_sent_bert_at_k),
    ),
]

#: the geometry of a set of embeddings (or n-gram vectors): kernels, volumes and distances
GEOMETRY = [
    Metric(
        "vendi",
        "Vendi Score: effective number of distinct items, embedding cosine kernel, q=1 (Friedman & Dieng 2022)",
        _vendi,
        settings=(CORPUS, SETS),
        options=("embedding_model", "identical", *_MODEL_SETTINGS),
        extra="models",
        model="embedder",
        load=with_embedder,
        direction="higher",
        citation="Friedman & Dieng 2022",
        reference="vendi-score 0.0.3 (score_K on the same cosine kernel, q = 0.5, 1, 2, inf, "
        "to 1e-9)",
        state=VendiState,  # corpus: Gram matrices of the parts' embeddings add up
    ),
    Metric(
        "vendi-ngram",
        "Vendi Score with the cosine kernel of 1-2-gram counts, q=1",
        _vendi_ngram,
        settings=(CORPUS, SETS),
        options=("tokenizer", "lowercase", "identical", "memory_budget", "progress"),
        direction="higher",
        citation="Friedman & Dieng 2022",
    ),
    *(
        Metric(
            name,
            text,
            compute,
            settings=(SETS,),
            options=("embedding_model", "identical", *_MODEL_SETTINGS),
            extra="models",
            model="embedder",
            load=with_embedder,
            direction="higher",
            citation=citation,
            reference=_GEOMETRY_REFERENCES.get(name, ""),
        )
        for name, compute, text, citation in _GEOMETRY
    ),
    *(
        Metric(
            name,
            text,
            compute,
            settings=(SETS,),
            options=("embedding_model", "logprobs", "identical", *_MODEL_SETTINGS),
            extra="models",
            model="embedder",
            load=with_embedder,
            direction="higher",
            citation="Friedman & Dieng 2022",
            reference=reference,
        )
        for name, compute, text, reference in (
            (
                "vendi-weighted",
                _embedding_row("vendi_weighted"),
                "probability-weighted Vendi Score, kernel K o sqrt(p) sqrt(p)^T with p the "
                "responses' sequence probabilities (the input's logprobs), per set",
                "vendi-score 0.0.3 (score_K with p on the same cosine kernel, to 1e-9)",
            ),
            (
                "intdiv-weighted",
                _embedding_row("intdiv_weighted"),
                "internal diversity 1 - sum_ij p_i p_j K_ij with p the responses' sequence "
                "probabilities (the input's logprobs), per set",
                "vendi-score 0.0.3 (intdiv_K with p on the same cosine kernel, to 1e-12)",
            ),
        )
    ),
]


#: the options of every all-pairs metric: the memory budget, a seeded pair sample, a bar
PAIR_OPTIONS = ("memory_budget", "pairs", "pairs_seed", "progress")


def _pair_options(options: dict) -> dict:
    """The run's option ``pairs_seed`` is the functions' ``seed`` (of the pair sample)."""
    if "pairs_seed" in options:
        options["seed"] = options.pop("pairs_seed")
    return options


@implemented_by("diveval.semantic.homogenization:homogenization_rouge_l")
def _rouge_l(data, **options):
    from .homogenization import homogenization_rouge_l

    return homogenization_rouge_l(data, **_pair_options(options))


@implemented_by("diveval.semantic.homogenization:homogenization_bertscore")
def _bertscore(data, embedding_model=None, context=None, **options):
    from .homogenization import homogenization_bertscore

    if embedding_model is not None and not isinstance(embedding_model, str):
        raise InputError(
            "homogenization-bertscore needs a transformers model (a folder or a name), "
            f"not {type(embedding_model).__name__}"
        )
    return homogenization_bertscore(
        data, embedding_model, context=context, **_pair_options(options)
    )


@implemented_by("diveval.semantic.homogenization:homogenization_bleu")
def _bleu(data, **options):
    from .homogenization import homogenization_bleu

    return homogenization_bleu(data, **_pair_options(options))


HOMOGENIZATION = [
    Metric(
        "homogenization-rougel",
        "mean over responses of their mean ROUGE-L F1 to every other response "
        "(Padmakumar & He 2023; Shaib et al. 2024); higher = more homogeneous",
        _rouge_l,
        options=("identical", *PAIR_OPTIONS),
        direction="lower",
        citation="Padmakumar & He 2023",
        reference="rouge-score (RougeScorer rougeL F of every pair, to 1e-12) and the diversity "
        "package 0.3.1 (homogenization_score, to its 3 decimals)",
    ),
    Metric(
        "homogenization-bertscore",
        "mean over responses of their mean BERTScore F1 to every other response, "
        "all-MiniLM-L6-v2 layer 6 by default (Padmakumar & He 2023); higher = more homogeneous",
        _bertscore,
        options=(
            "embedding_model",
            "device",
            "precision",
            "batch_size",
            "identical",
            *PAIR_OPTIONS,
        ),
        extra="models",
        model="embedder",
        load=with_settings,
        direction="lower",
        citation="Padmakumar & He 2023",
        reference="bert-score (BERTScorer F1 of every ordered pair), to 1e-5 (float32 embeddings)",
    ),
    Metric(
        "homogenization-bleu",
        "mean over responses of their mean BLEU-4 (nltk method1) against every other response "
        "as the single reference (Shaib et al. 2024); higher = more homogeneous",
        _bleu,
        options=("tokenizer", "lowercase", "identical", *PAIR_OPTIONS),
        direction="lower",
        citation="Shaib et al. 2024",
        reference="nltk sentence_bleu (method1) of every ordered pair, to 1e-12",
    ),
]


@implemented_by("diveval.semantic.equivalence:equivalence_classes")
def _equivalence_classes(sets, judge=None, context=None, **options):
    from .equivalence import equivalence_classes

    # judge unset (None): the implementation's default, unless stored classes stand in for it
    return equivalence_classes(sets, judge, context=context, **options)


#: The options of the metrics that partition a set with a judge: how it judges, and its models.
_JUDGED = ("judge", "identical")
_JUDGE_MODELS = ("nli_model", "embedding_model", *_MODEL_SETTINGS)

EQUIVALENCE = [
    Metric(
        "equivalence-classes",
        "distinct_k: number of equivalence classes of a set under a judge (answers: diveval's "
        "shipped answer-equivalence model, the default | nli | embedding | bleu | "
        "NoveltyBench's unigram, bertscore and hf: trained classifier), "
        "greedy in order, or the classes a file stores (NoveltyBench's partition); details: "
        "patience-weighted utility, p=0.8 (NoveltyBench)",
        _equivalence_classes,
        settings=(SETS,),
        options=(*_JUDGED, "classes", "quality", *_JUDGE_MODELS),
        extra="nli",
        model="nli",
        direction="higher",
        citation="Zhang et al. 2025",
        reference="NoveltyBench's partition (partition.py) and utility (score.py), restated in the"
        " tests and run with random judges; its BLEU judge's formula; its unigram judge against "
        "rouge-score (to 1e-15) and its bertscore judge against bert-score (to 1e-5)",
    ),
]


@implemented_by("diveval.semantic.semantic_entropy:semantic_entropy")
def _semantic_entropy(sets, judge=None, context=None, **options):
    from .semantic_entropy import semantic_entropy

    return semantic_entropy(sets, judge or OPTION["judge"].default, context=context, **options)


def _spectral(which: str):
    @implemented_by(f"diveval.semantic.spectral:spectral_{which}")
    def compute(sets, similarity=None, context=None, **options):
        from . import spectral

        return getattr(spectral, f"spectral_{which}")(sets, similarity, context=context, **options)

    return compute


@implemented_by("diveval.semantic.hill:similarity_hill")
def _similarity_hill(sets, similarity=None, context=None, **options):
    from .hill import similarity_hill

    return similarity_hill(sets, similarity, context=context, **options)


_SIMILARITY_OPTIONS = ("similarity", "identical", "nli_model", "embedding_model", *_MODEL_SETTINGS)


def _similarity_metric(name: str, description: str, compute: Any, **row: Any) -> Metric:
    """The row of a metric of each set's similarity matrix (chosen by ``similarity``): sets only,
    higher = more diverse."""
    return Metric(
        name,
        description,
        compute,
        settings=(SETS,),
        options=_SIMILARITY_OPTIONS,
        direction="higher",
        **row,
    )


SEMANTIC_SETS = [
    Metric(
        "semantic-entropy",
        "semantic entropy -sum_c p(c) log p(c) over a set's meaning classes, p(c) = |c|/k, or "
        "likelihood-weighted with the input's logprobs (Kuhn et al. 2023; Farquhar et al. 2024); "
        "judge nli (bidirectional entailment) or nli-relaxed (no contradiction, not both neutral)",
        _semantic_entropy,
        settings=(SETS,),
        options=(*_JUDGED, "logprobs", *_JUDGE_MODELS),
        extra="nli",
        model="nli",
        direction="higher",
        citation="Kuhn et al. 2023; Farquhar et al. 2024",
        reference="jlko/semantic_uncertainty's get_semantic_ids, cluster_assignment_entropy, "
        "logsumexp_by_id and predictive_entropy_rao, restated in the tests, to 1e-12",
    ),
    *(
        _similarity_metric(
            f"spectral-{which}",
            text,
            _spectral(which),
            extra="nli",
            model="nli",
            citation="Lin, Trivedi & Sun 2023",
            reference="zlin7/UQ-NLG's clustering.py (get_affinity_mat, get_L_mat, get_eig) and "
            "uq_bb.py restated in the tests (their W is float32: to 1e-5), and the Laplacian "
            "written with loops with numpy's general eig, and networkx's, to 1e-9",
        )
        for which, text in (
            (
                "eigv",
                "EigV: sum_k max(0, 1 - lambda_k) over the normalised Laplacian of a set's "
                "similarity graph, NLI entailment by default (Lin, Trivedi & Sun 2023)",
            ),
            (
                "degree",
                "Degree: 1 - trace(D)/k^2 of a set's similarity graph, one minus the mean "
                "similarity, NLI entailment by default (Lin, Trivedi & Sun 2023)",
            ),
            (
                "eccentricity",
                "Eccentricity: norm of the centred spectral embedding (Laplacian eigenvectors of "
                "eigenvalue < 0.9) of a set's similarity graph (Lin, Trivedi & Sun 2023)",
            ),
        )
    ),
    _similarity_metric(
        "similarity-hill",
        "similarity-sensitive Hill number D_1^Z of a set, uniform p, Z = embedding cosine clipped "
        "at 0 by default; details: the profile over q (Leinster & Cobbold 2012)",
        _similarity_hill,
        extra="models",
        model="embedder",
        citation="Leinster & Cobbold 2012",
        reference="greylock 1.1.0 (Metacommunity alpha diversity with the same similarity "
        "matrix), and with Z = I the ordinary Hill numbers, to 1e-9",
    ),
]

#: The family's groups, titled (the documentation lists them under these titles).
TABLES = {
    "Semantic (model-backed)": MODEL_BACKED,
    "Geometry of a set": GEOMETRY,
    "Homogenization": HOMOGENIZATION,
    "Equivalence classes": EQUIVALENCE,
    "Meaning classes and similarity graphs": SEMANTIC_SETS,
}
TABLE = register_tables(TABLES)
