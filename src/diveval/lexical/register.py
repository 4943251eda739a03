"""Registry tables of the lexical diversity metrics: one ``Metric`` row per metric.

``CORE``: the dialogue-era metrics (Distinct-n, EAD, cosine diversity, Self-BLEU).
``LLM_EVALUATION``: the corpus-level metrics of LLM evaluation: compression ratios,
self-repetition, n-gram diversity score, POS templates and lexical richness.
``GEM``: the GEM benchmark's lexical set (entropy, conditional entropy, unique n-grams, MSTTR,
each also without punctuation; GEM's local recall is in the reference family).

The rows marked ``order_dependent`` JOIN the responses into one text: as given by default (the
published definitions), in code-point order with the ``join="sorted"`` option (CLI
``--join sorted``).
"""

from __future__ import annotations

from typing import Any, Callable

from ..registry import Metric, pair_mean_at_k, register_tables
from ..results import SETS, Score
from .compression import compression_ratio, pos_compression_ratio
from .cosine import cosine_diversity
from .distinct import avg_distinct, distinct
from .ead import ead, joined_warnings
from .expected import avg_distinct_at, distinct_at
from .gem import cond_entropy, entropy, intra_distinct, msttr, unique_ngrams
from .gem_state import gem_ngram_state, intra_distinct_state
from .ngram_state import ngram_metric_state
from .pos_templates import template_rate, templates_per_token
from .repetition import ngram_diversity, self_repetition
from .richness import distinct_at_k, hdd, mattr, mtld
from .self_bleu import self_bleu
from .self_bleu_state import self_bleu_state

_EAD_OPTIONS = ("tokenizer", "lowercase", "vocab")


def _joining(
    name: str,
    description: str,
    compute: Callable[..., Score],
    options: tuple[str, ...] = ("tokenizer", "lowercase"),
    **row: Any,
) -> Metric:
    """The row of a metric that JOINS the responses into one text: it takes the ``join`` option
    besides ``options`` and its value depends on the order of the responses."""
    return Metric(
        name, description, compute, options=(*options, "join"), order_dependent=True, **row
    )


#: What the rows of the two part-of-speech template metrics share.
_POS_TEMPLATE_ROW: dict[str, Any] = {
    "options": (),
    "extra": "pos",
    "direction": "lower",
    "citation": "Shaib et al. 2024",
    "tags": frozenset({"five-token-spans"}),
}

CORE = [
    *(
        Metric(
            f"distinct-{n}",
            f"unique {n}-grams / all {n}-grams, pooled (Li et al. 2016)",
            distinct,
            fixed={"n": n},
            default=n <= 2,
            direction="higher",
            citation="Li et al. 2016",
            state=ngram_metric_state("distinct", n),
            at_k=distinct_at,
        )
        for n in range(1, 6)
    ),
    Metric(
        "avg-distinct",
        "mean of distinct-1..5 (Tevet & Berant's distinct-n)",
        avg_distinct,
        default=True,
        direction="higher",
        citation="Tevet & Berant 2021",
        reference="Tevet & Berant's published per-set values (metric_AveragedDistinctNgrams), to 3"
        " decimals",
        state=ngram_metric_state("avg-distinct", 5),
        at_k=avg_distinct_at,
    ),
    Metric(
        "ead",
        "Expectation-Adjusted Distinct of unigrams, V=30522 by default (the zh/ja-mecab/ko-mecab "
        "tokenizers: their own vocabulary) (Liu et al. 2022)",
        ead,
        options=_EAD_OPTIONS,
        fixed={"n": 1},
        joined_warnings=joined_warnings,
        default=True,
        direction="higher",
        citation="Liu et al. 2022",
        state=ngram_metric_state("ead", 1),
    ),
    *(
        Metric(
            f"ead-{n}",
            f"EAD over {n}-grams with V**{n} possible {n}-grams (diveval's extension)",
            ead,
            options=_EAD_OPTIONS,
            fixed={"n": n},
            joined_warnings=joined_warnings,
            direction="higher",
            citation="Liu et al. 2022",
            state=ngram_metric_state("ead", n),
        )
        for n in range(2, 5)
    ),
    Metric(
        "cos-diversity",
        "minus mean pairwise n-gram cosine similarity, n=1..5 (Tevet & Berant)",
        cosine_diversity,
        settings=(SETS,),
        default=True,
        direction="higher",
        citation="Tevet & Berant 2021",
        reference="Tevet & Berant's published per-set values (metric_AveragedCosineSimilarity), to"
        " 3 decimals",
        at_k=pair_mean_at_k(cosine_diversity),
    ),
    Metric(
        "self-bleu",
        "mean BLEU-4 of each response against all others, nltk method1 "
        "(Zhu et al. 2018); lower = more diverse",
        self_bleu,
        fixed={"max_n": 4},
        default=True,
        direction="lower",
        citation="Zhu et al. 2018",
        reference="nltk sentence_bleu of each sentence against all the others (method1), to 1e-9",
        state=self_bleu_state(4),
        passes=2,
    ),
    *(
        Metric(
            f"self-bleu-{n}",
            f"Self-BLEU with {n}-gram BLEU (uniform weights, method1)",
            self_bleu,
            fixed={"max_n": n},
            direction="lower",
            citation="Zhu et al. 2018",
            reference="nltk sentence_bleu of each sentence against all the others (method1), to "
            "1e-9",
            state=self_bleu_state(n),
            passes=2,
        )
        for n in range(1, 6)
    ),
    *(
        Metric(
            f"intra-distinct-{n}",
            f"mean over responses of each response's own Distinct-{n} (dialogue papers' "
            f"intra-dist; not the pooled distinct-{n})",
            intra_distinct,
            fixed={"n": n},
            direction="higher",
            tags=frozenset({"per-response"}),
            citation="Gu et al. 2019",
            reference="the per-response definition written with loops in the tests, to 1e-12",
            state=intra_distinct_state(n),
        )
        for n in (1, 2)
    ),
]


LLM_EVALUATION = [
    *(
        _joining(
            name,
            f"bytes of the responses joined as given / bytes after {alg} (Shaib et al. "
            "2024); higher = more repetitive",
            compression_ratio,
            options=(),
            fixed={"algorithm": alg},
            direction="lower",
            citation="Shaib et al. 2024",
            reference="the diversity package 0.3.1: xz equal to its 3 decimals; for gzip it "
            "compresses twice, so its ratio is a little lower (tested as such)",
        )
        for name, alg in (("compression-ratio", "gzip"), ("compression-ratio-xz", "xz"))
    ),
    _joining(
        "pos-compression-ratio",
        "gzip compression ratio of the part-of-speech tag sequence, spaCy en_core_web_md "
        "(Shaib et al. 2024); higher = more repetitive syntax",
        pos_compression_ratio,
        options=(),
        extra="pos",
        direction="lower",
        citation="Shaib et al. 2024",
    ),
    Metric(
        "self-repetition",
        "mean over responses of log(1 + occurrences of their 4-grams in other responses) "
        "(Salkar et al. 2022, as the diversity package)",
        self_repetition,
        fixed={"n": 4},
        direction="lower",
        citation="Salkar et al. 2022",
        reference="the diversity package 0.3.1 (self_repetition_score), to 1e-12",
    ),
    _joining(
        "ngram-diversity",
        "sum over n=1..4 of unique/all n-grams of the responses joined as given into one "
        "sequence (the diversity package's score; range 0-4)",
        ngram_diversity,
        fixed={"max_n": 4},
        direction="higher",
        citation="Shaib et al. 2024",
        reference="the diversity package 0.3.1 (ngram_diversity_score), to its 3 decimals with "
        "--tokenizer space (its split on single spaces); the default whitespace tokenizer "
        "equals it on single-spaced text only",
    ),
    *(
        _joining(name, description, function, reference=reference, **_POS_TEMPLATE_ROW)
        for name, description, function, reference in (
            (
                "template-rate",
                "fraction of responses holding a text of the 100 most frequent part-of-speech "
                "5-grams (Shaib et al. 2024); higher = more templated",
                template_rate,
                "the diversity package 0.3.1 (template_rate) with the same sentence splitter and"
                " tagger",
            ),
            (
                "templates-per-token",
                "mean over responses of POS-template occurrences per token (Shaib et al. 2024); "
                "higher = more templated",
                templates_per_token,
                "the diversity package 0.3.1 (templates_per_token) with the same sentence "
                "splitter and tagger, to 1e-12",
            ),
        )
    ),
    *(
        _joining(
            name,
            description,
            function,
            fixed=fixed,
            direction="higher",
            citation=citation,
            reference="lexicalrichness 0.5.1 on the same tokens, to 1e-12",
        )
        for name, description, function, fixed, citation in (
            (
                "mattr",
                "moving-average type/token ratio over windows of 50 tokens of the responses "
                "joined as given (Covington & McFall 2010)",
                mattr,
                {"window": 50},
                "Covington & McFall 2010",
            ),
            (
                "mtld",
                "measure of textual lexical diversity, factor threshold 0.72, forward and "
                "backward averaged, of the responses joined as given (McCarthy & Jarvis 2010)",
                mtld,
                {},
                "McCarthy & Jarvis 2010",
            ),
        )
    ),
    Metric(
        "hdd",
        "HD-D: expected type/token ratio of 42 tokens drawn without replacement from all "
        "the responses' tokens (McCarthy & Jarvis 2007)",
        hdd,
        direction="higher",
        citation="McCarthy & Jarvis 2007",
        reference="lexicalrichness 0.5.1 on the same tokens, to 1e-9",
    ),
    *(
        Metric(
            f"distinct-{n}-at-10",
            f"mean Distinct-{n} of 200 seeded random subsets of 10 responses (distinct@k; "
            "details: the curve over k with 95% percentile intervals)",
            distinct_at_k,
            fixed={"n": n, "k": 10},
            direction="higher",
            citation="Li et al. 2016",
        )
        for n in (1, 2)
    ),
]

_GEM_CITATION = "Gehrmann et al. 2021"
_GEM_REFERENCE = (
    "GEM-metrics' formulas (ngrams.py NGramStats, msttr.py MSTTR) restated with loops in the "
    "tests, to 1e-12"
)
_PUNCT = ((True, "", ""), (False, "-nopunct", ", punctuation tokens dropped"))

#: GEM's n-gram counts: (name, what it measures given n, function, the n it is published for).
_GEM_NGRAM_COUNTS = (
    ("entropy", "Shannon entropy (bits) of the {n}-gram distribution", entropy, (1, 2, 3)),
    (
        "cond-entropy",
        "conditional entropy (bits) of a word given the {before} before it",
        cond_entropy,
        (2, 3),
    ),
    ("unique", "number of {n}-grams that occur exactly once", unique_ngrams, (1, 2, 3)),
)

GEM = [
    *(
        Metric(
            f"{name}-{n}{suffix}",
            what_n.format(n=n, before=n - 1) + f" (GEM){what}",
            function,
            fixed={"n": n, "keep_punctuation": keep},
            direction="higher",
            citation=_GEM_CITATION,
            reference=_GEM_REFERENCE,
            state=gem_ngram_state(name, n, keep),
        )
        for name, what_n, function, ns in _GEM_NGRAM_COUNTS
        for keep, suffix, what in _PUNCT
        for n in ns
    ),
    *(
        _joining(
            f"msttr-100{suffix}",
            "mean type/token ratio of segments of 100 tokens of the responses joined as given, "
            f"the last partial segment dropped (GEM's MSTTR-100){what}",
            msttr,
            fixed={"window": 100, "keep_punctuation": keep},
            direction="higher",
            citation=_GEM_CITATION,
            reference=_GEM_REFERENCE,
        )
        for keep, suffix, what in _PUNCT
    ),
]

#: The family's groups, titled (the documentation lists them under these titles).
TABLES = {
    "Lexical": CORE,
    "Lexical: LLM evaluation": LLM_EVALUATION,
    "Lexical: GEM benchmark": GEM,
}
TABLE = register_tables(TABLES)
