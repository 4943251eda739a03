"""Registry entries of the lexical diversity metrics."""

from __future__ import annotations

from ..registry import Metric, register
from ..results import SETS
from .cosine import cosine_diversity
from .distinct import avg_distinct, distinct
from .ead import ead
from .self_bleu import self_bleu

for _n in range(1, 6):
    register(
        Metric(
            f"distinct-{_n}",
            f"unique {_n}-grams / all {_n}-grams, pooled (Li et al. 2016)",
            distinct,
            fixed={"n": _n},
            default=_n <= 2,
            direction="higher",
        )
    )
register(
    Metric(
        "avg-distinct",
        "mean of distinct-1..5 (Tevet & Berant's distinct-n)",
        avg_distinct,
        default=True,
        direction="higher",
    )
)
register(
    Metric(
        "ead",
        "Expectation-Adjusted Distinct of unigrams, V=30522 by default (Liu et al. 2022)",
        ead,
        options=("tokenizer", "lowercase", "vocab"),
        fixed={"n": 1},
        default=True,
        direction="higher",
    )
)
for _n in range(2, 5):
    register(
        Metric(
            f"ead-{_n}",
            f"EAD over {_n}-grams with V**{_n} possible {_n}-grams (diveval's extension)",
            ead,
            options=("tokenizer", "lowercase", "vocab"),
            fixed={"n": _n},
            direction="higher",
        )
    )
register(
    Metric(
        "cos-diversity",
        "minus mean pairwise n-gram cosine similarity, n=1..5 (Tevet & Berant)",
        cosine_diversity,
        settings=(SETS,),
        default=True,
        direction="higher",
    )
)
register(
    Metric(
        "self-bleu",
        "mean BLEU-4 of each response against all others, nltk method1 "
        "(Zhu et al. 2018); lower = more diverse",
        self_bleu,
        fixed={"max_n": 4},
        default=True,
        direction="lower",
    )
)
for _n in range(1, 6):
    register(
        Metric(
            f"self-bleu-{_n}",
            f"Self-BLEU with {_n}-gram BLEU (uniform weights, method1)",
            self_bleu,
            fixed={"max_n": _n},
            direction="lower",
        )
    )
