"""Length bias (Liu et al. 2022, "Rethinking and Refining the Distinct Metric", Figure 1).

For each length L, draw ``n_sets`` corpora of ``n_responses`` responses of exactly L tokens and
score each corpus with corpus metrics (Distinct-n, EAD, ...). A metric free of length bias stays
flat as L grows while the word distribution is fixed; Distinct falls.

Two sources of responses:
- ``designated``: the paper's distribution P(X = k) = (1/v) * integral_0^v lambda^k e^-lambda / k!
  dlambda, i.e. lambda ~ Uniform(0, v) then X ~ Poisson(lambda), each token drawn independently,
  v = 30522; tokens are the integers written as strings, joined by spaces (seeded numpy).
- ``natural``: a user corpus grouped by token length; responses of length L are drawn with
  replacement from the corpus's responses of that length (lengths with none are skipped and
  listed in ``missing``).

The trend of each metric is the OLS slope of the per-corpus scores on L with a t interval
(scipy.stats.linregress), plus the relative change between the first and last length.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ...constants import BERT_VOCAB_SIZE, DEFAULT_CONFIDENCE, DEFAULT_TOKENIZER, WHITESPACE
from ...errors import InputError, MissingDependencyError
from ...registry import get_metric
from ...scale.local import score
from ...text.tokenizers import get_tokenizer

DESIGNATED_V = BERT_VOCAB_SIZE  # the paper's v: BERT's vocabulary
DEFAULT_LENGTHS = tuple(range(5, 41, 5))
DEFAULT_METRICS = ("distinct-1", "ead")


def parse_lengths(spec: str) -> list[int]:
    """'5:40:5' -> [5, 10, ..., 40] (inclusive end); '5,10,20' -> [5, 10, 20]."""
    try:
        if ":" in spec:
            parts = [int(p) for p in spec.split(":")]
            if len(parts) == 2:
                parts.append(1)
            if len(parts) != 3 or parts[2] <= 0:
                raise ValueError
            lengths = list(range(parts[0], parts[1] + 1, parts[2]))
        else:
            lengths = [int(p) for p in spec.split(",") if p.strip()]
    except ValueError:
        raise InputError(
            f"lengths must look like START:END[:STEP] or L1,L2,...; got {spec!r}"
        ) from None
    if not lengths or min(lengths) < 1:
        raise InputError(f"lengths must be positive integers; got {spec!r}")
    return lengths


def designated_tokens(rng: np.random.Generator, size: Any, v: int = DESIGNATED_V) -> np.ndarray:
    """Integers drawn from the paper's designated distribution (lambda ~ U(0, v), X ~ Poisson)."""
    lam = rng.uniform(0.0, float(v), size=size)
    return rng.poisson(lam)


def designated_responses(
    length: int, n_responses: int, rng: np.random.Generator, v: int = DESIGNATED_V
) -> list[str]:
    """``n_responses`` responses of exactly ``length`` tokens from the designated distribution."""
    toks = designated_tokens(rng, (n_responses, length), v).astype(str)
    return [" ".join(row) for row in toks]


class NaturalSampler:
    """Draw responses of an exact token length from a corpus, with replacement."""

    def __init__(
        self, texts: Iterable[str], tokenizer: str = DEFAULT_TOKENIZER, lowercase: bool = False
    ):
        tok = get_tokenizer(tokenizer, lowercase)
        self.tokenizer = tok
        self.by_length: dict[int, list[str]] = {}
        for toks in tok.tokenize_many(list(texts)):
            if toks:
                # Rejoined with single spaces so that the metric's whitespace tokenizer sees the
                # same L tokens the grouping counted.
                self.by_length.setdefault(len(toks), []).append(" ".join(toks))
        if not self.by_length:
            raise InputError("the corpus has no non-empty responses")

    def available(self, length: int) -> int:
        return len(self.by_length.get(length, ()))

    def sample(self, length: int, n_responses: int, rng: np.random.Generator) -> list[str]:
        pool = self.by_length.get(length)
        if not pool:
            raise InputError(f"the corpus has no response of {length} tokens")
        idx = rng.integers(0, len(pool), size=n_responses)
        return [pool[i] for i in idx]


@dataclass(frozen=True)
class Trend:
    """OLS fit of score on length: slope per token with its t interval, and the overall change."""

    slope: float
    low: float
    high: float
    intercept: float
    r: float
    p_value: float
    first: float  # mean score at the first length
    last: float  # mean score at the last length

    @property
    def relative_change(self) -> float:
        """(last - first) / first; 0.0 when first is 0."""
        return (self.last - self.first) / self.first if self.first else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "relative_change": self.relative_change}


#: The plain fields of a run's dict, in the order of the JSON output.
_KEYS = ("source", "lengths", "n_sets", "n_responses", "seed", "missing")


@dataclass(frozen=True)
class LengthBias:
    """Scores per (metric, length): ``scores[metric][i]`` has one value per drawn corpus."""

    source: str  # "designated" or "natural:<name>"
    lengths: list[int]
    scores: dict[str, np.ndarray]  # metric -> [len(lengths), n_sets]
    trends: dict[str, Trend]
    signatures: dict[str, str]
    n_sets: int
    n_responses: int
    seed: int | None
    missing: list[int] = field(default_factory=list)  # natural: lengths with too few responses
    pool: dict[int, int] = field(default_factory=dict)  # natural: responses of each length

    def means(self, metric: str) -> np.ndarray:
        return self.scores[metric].mean(axis=1)

    def to_dict(self) -> dict[str, Any]:
        return {
            **{k: getattr(self, k) for k in _KEYS},
            "pool": {str(k): v for k, v in self.pool.items()},
            "metrics": {
                m: {
                    "mean": self.means(m).tolist(),
                    "std": self.scores[m].std(axis=1).tolist(),
                    "trend": self.trends[m].to_dict(),
                    "signature": self.signatures.get(m),
                }
                for m in self.scores
            },
        }


def fit_trend(
    lengths: Sequence[int], scores: np.ndarray, confidence: float = DEFAULT_CONFIDENCE
) -> Trend:
    """OLS of every per-corpus score on its length; t interval on the slope."""
    from scipy import stats

    scores = np.asarray(scores, dtype=float)
    x = np.repeat(np.asarray(lengths, dtype=float), scores.shape[1])
    y = scores.reshape(-1)
    means = scores.mean(axis=1)
    if len(set(lengths)) < 2:
        return Trend(
            float("nan"),
            float("nan"),
            float("nan"),
            float(means[0]),
            float("nan"),
            float("nan"),
            float(means[0]),
            float(means[-1]),
        )
    if np.ptp(y) == 0:  # a perfectly flat metric: slope 0 exactly, no uncertainty
        return Trend(0.0, 0.0, 0.0, float(y[0]), 0.0, 1.0, float(means[0]), float(means[-1]))
    fit = stats.linregress(x, y)
    t = stats.t.ppf(0.5 + confidence / 2, len(x) - 2)
    return Trend(
        float(fit.slope),
        float(fit.slope - t * fit.stderr),
        float(fit.slope + t * fit.stderr),
        float(fit.intercept),
        float(fit.rvalue),
        float(fit.pvalue),
        float(means[0]),
        float(means[-1]),
    )


def length_bias(
    source: str | Sequence[str] = "designated",
    lengths: Sequence[int] = DEFAULT_LENGTHS,
    metrics: Sequence[str] = DEFAULT_METRICS,
    n_sets: int = 10,
    n_responses: int = 2000,
    seed: int | None = 0,
    v: int = DESIGNATED_V,
    tokenizer: str = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    vocab: Any = None,
    name: str | None = None,
    min_pool: int = 1,
    progress: Callable[[Iterable], Iterable] | None = None,
) -> LengthBias:
    """Score corpora of fixed lengths drawn from the designated distribution or a corpus.

    source: ``"designated"`` or a list of texts (the natural corpus, grouped by length under
    ``tokenizer``). metrics: registered metrics that support the corpus setting. vocab: EAD's V
    (default: ``v`` for the designated source, 30522 otherwise). progress: wraps the loop over
    (length, set) pairs, e.g. ``diveval.progress.track``. min_pool: natural source only,
    skip lengths with fewer distinct responses than this (drawing 2,000 responses with
    replacement from a handful repeats them and measures the pool, not the metric).
    """
    lengths = [int(L) for L in lengths]
    if not lengths:
        raise InputError("no lengths given")
    if n_sets < 1 or n_responses < 1:
        raise InputError("n_sets and n_responses must be at least 1")
    for m in metrics:
        if not get_metric(m).supports("corpus"):
            raise InputError(f"metric {m!r} does not support the corpus setting")
    rng = np.random.default_rng(seed)
    if isinstance(source, str):
        if source != "designated":
            raise InputError(f"source must be 'designated' or a list of texts, got {source!r}")
        sampler = None
        label = "designated"
        options: dict[str, Any] = {
            "tokenizer": WHITESPACE,
            "vocab": vocab if vocab is not None else v,
        }
    else:
        sampler = NaturalSampler(source, tokenizer, lowercase)
        label = f"natural:{name or 'corpus'}"
        options = {"tokenizer": WHITESPACE, "vocab": vocab}
    pool = {L: sampler.available(L) for L in lengths} if sampler is not None else {}
    missing = [L for L in lengths if sampler is not None and pool[L] < max(1, min_pool)]
    used = [L for L in lengths if L not in missing]
    if not used:
        raise InputError(
            f"the corpus has fewer than {max(1, min_pool)} responses of every asked "
            f"length ({lengths[0]}..{lengths[-1]})"
        )

    scores = {m: np.zeros((len(used), n_sets)) for m in metrics}
    signatures: dict[str, str] = {}
    jobs: Iterable = [(i, L, k) for i, L in enumerate(used) for k in range(n_sets)]
    if progress is not None:
        jobs = progress(jobs)
    for i, L, _k in jobs:
        if sampler is None:
            corpus = designated_responses(L, n_responses, rng, v)
        else:
            corpus = sampler.sample(L, n_responses, rng)
        result = score(corpus, list(metrics), **options)
        for m in metrics:
            scores[m][i, _k] = result[m].value
            signatures.setdefault(m, result[m].signature)
    trends = {m: fit_trend(used, scores[m]) for m in metrics}
    return LengthBias(
        label, used, scores, trends, signatures, n_sets, n_responses, seed, missing, pool
    )


def plot_length_bias(results: Sequence[LengthBias], path: str, title: str | None = None) -> str:
    """A PNG in the style of the EAD paper's Figure 1: score against sample length, one line per
    (metric, source), mean with a band of one standard deviation over the drawn corpora."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingDependencyError("the length-bias plot", "plots") from None

    fig, ax = plt.subplots(figsize=(8.0, 4.2), dpi=150)
    markers = ["o", "s", "^", "D", "v", "P"]
    styles = {"designated": "--"}
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    metric_names = list(dict.fromkeys(m for r in results for m in r.scores))
    for r in results:
        kind = r.source.split(":", 1)[0]
        for j, m in enumerate(metric_names):
            if m not in r.scores:
                continue
            mean, std = r.means(m), r.scores[m].std(axis=1)
            label = f"{_pretty(m)} ({'designated' if kind == 'designated' else r.source.replace(':', ': ', 1)})"
            ax.plot(
                r.lengths,
                mean,
                styles.get(kind, "-"),
                marker=markers[j % len(markers)],
                color=colors[j % len(colors)],
                label=label,
                markersize=4,
                linewidth=1.5,
                alpha=1.0 if kind != "designated" else 0.85,
            )
            ax.fill_between(
                r.lengths, mean - std, mean + std, color=colors[j % len(colors)], alpha=0.15
            )
    ax.set_xlabel("sample length (tokens)")
    ax.set_ylabel("score")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.02, 0.5), frameon=False)
    ax.set_title(title or "Distinct vs. EAD against response length", fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def _pretty(metric: str) -> str:
    if metric.startswith("distinct-"):
        return "Distinct-" + metric.split("-", 1)[1]
    if metric == "ead":
        return "EAD"
    return metric
