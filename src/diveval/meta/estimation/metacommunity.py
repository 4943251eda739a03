"""How alike are the systems? Alpha, beta and gamma diversity of their answers to each prompt.

For one prompt, every system's responses form a *subcommunity* and all of them together the
*metacommunity* (Reeve et al. 2016, "How to partition diversity", the similarity-sensitive
decomposition that greylock 1.1.0 computes). Each response is a species of abundance 1 in its
system's column; Z is the similarity of the responses (``pair_similarity``: the sentence-embedding
cosine clipped at 0 by default, or ``exact``: 1 for the same text, else 0). With P the counts over
their total, w_j the share of system j, p the pooled abundances and p̄_j = P_j / w_j:

- **gamma** G: the similarity-sensitive Hill number of the pooled responses, D_q^Z(p);
- **alpha** Ā (Reeve's *normalised* alpha): the systems' diversities, each in isolation, as a
  power mean of order 1 - q weighted by w_j: how diverse one system is on its own;
- **beta** B̄ (Reeve's *normalised* beta, 1 / normalised rho): the effective number of distinct
  systems, between 1 (every system says the same things) and the number of systems (no answer of
  one resembles an answer of another). Near-identical answers across models ("hivemind") show
  as a beta near 1.

Reeve's *raw* alpha A and raw beta B are kept beside them (``raw_alpha``, ``raw_beta``); raw
alpha mixes a system's diversity with its share of the pool, so the normalised forms are the
headline. q is the viewpoint (1 by default; 0 counts rare kinds as much as common ones, 2 and
``inf`` weigh the common kinds).

Only prompts answered by every system enter (a prompt answered by two of three systems has a
beta on another scale); the others are counted and named in a warning, never dropped silently.
Values are per prompt, then the mean over prompts with a seeded bootstrap interval over prompts.
``similarity_matrix[a][b]`` is the mean similarity of system a's answers to system b's answers to
the same prompt (the diagonal: of a system's answers to each other, i != j), averaged over prompts:
the heatmap of the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from ...errors import InputError
from ...results import make_signature
from ...semantic.hill import parse_q
from ...semantic.pair_similarity import set_similarities
from ..statistics.bootstrap import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, Interval, bootstrap

MEASURES = ("gamma", "alpha", "beta", "raw_alpha", "raw_beta")
EXACT = "exact"
DEFAULT_SIMILARITY = "cosine"
DEFAULT_VIEWPOINT = 1.0


def power_mean(order: float, weights: np.ndarray, items: np.ndarray) -> np.ndarray:
    """Weighted power means of ``items`` along axis 0 over the entries with a positive weight;
    order 0 the geometric mean, +-inf the max / min (the limits)."""
    on = weights > 0
    if order == 0:
        return np.exp(np.sum(np.where(on, weights * np.log(np.where(on, items, 1.0)), 0.0), axis=0))
    if np.isinf(order):
        fill = -np.inf if order > 0 else np.inf
        pick = np.max if order > 0 else np.min
        return pick(np.where(on, items, fill), axis=0)
    terms = np.where(on, weights * np.where(on, items, 1.0) ** order, 0.0)
    return np.sum(terms, axis=0) ** (1.0 / order)


def decompose(counts: np.ndarray, similarity: np.ndarray, q: float = DEFAULT_VIEWPOINT) -> dict:
    """Metacommunity gamma, alpha, beta (normalised) and raw alpha, raw beta of one community.

    counts: (species, systems) abundances; similarity: (species, species), Z_ii = 1, in [0, 1].
    """
    counts = np.asarray(counts, dtype=np.float64)
    z = np.asarray(similarity, dtype=np.float64)
    if counts.ndim != 2 or z.shape != (counts.shape[0], counts.shape[0]):
        raise InputError("counts must be (species, systems) and Z (species, species)")
    big_p = counts / counts.sum()
    w = big_p.sum(axis=0)  # each system's share of the pool
    if np.any(w <= 0):
        raise InputError("every system needs at least one response")
    p_bar = big_p / w
    z_pool = z @ big_p.sum(axis=1)  # how ordinary each response is in the pool
    z_own = z @ p_bar  # ... in its own system, the system taken alone
    z_raw = z @ big_p  # ... in its own system, at its share of the pool
    order = 1.0 - q
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = {
            "gamma": 1.0 / np.broadcast_to(z_pool[:, None], p_bar.shape),
            "alpha": 1.0 / z_own,
            "raw_alpha": 1.0 / z_raw,
            "beta": z_pool[:, None] / z_own,  # normalised rho; beta is its reciprocal
            "raw_beta": z_pool[:, None] / z_raw,
        }
    out = {}
    for name, ratio in ratios.items():
        per_system = power_mean(order, p_bar, ratio)
        if name in ("beta", "raw_beta"):  # each system's beta is 1 / its rho, then the mean
            per_system = 1.0 / per_system
        out[name] = float(power_mean(order, w, per_system))
    return out


@dataclass(frozen=True)
class AcrossSystems:
    """The decomposition over the prompts every system answered.

    values: the mean over prompts of each measure; intervals: their bootstrap intervals;
    per_prompt: each measure per prompt (in ``prompts`` order); similarity_matrix: systems x
    systems mean similarity; skipped: prompts left out (not answered by every system).
    """

    systems: tuple[str, ...]
    prompts: tuple[str, ...]
    values: Mapping[str, float]
    intervals: Mapping[str, Interval]
    per_prompt: Mapping[str, np.ndarray]
    similarity_matrix: np.ndarray
    signature: str
    skipped: tuple[str, ...] = ()
    warnings: tuple[str, ...] = field(default_factory=tuple)
    similarity: str = DEFAULT_SIMILARITY
    responses_per_system: float = 0.0  # mean over prompts and systems: the k of :meth:`reading`

    def most_alike(self, n: int | None = None) -> list[tuple[str, str, float]]:
        """The pairs of different systems, most alike first: (a, b, mean similarity of a's
        answers to b's, same prompt); the first ``n`` (all by default)."""
        m = self.similarity_matrix
        pairs = [
            (self.systems[a], self.systems[b], float(m[a, b]))
            for a in range(len(self.systems))
            for b in range(a + 1, len(self.systems))
        ]
        pairs.sort(key=lambda x: -x[2])
        return pairs[:n] if n is not None else pairs

    def reading(self) -> str:
        """What the similarity makes of the numbers, in words, for a note under the table.

        A similarity-sensitive Hill number counts two answers that are s alike as partly one
        answer: k answers whose pairs are all s alike make k / (1 + (k - 1) s) effective answers
        (at most 1/s), however much they differ in substance. Sentence-embedding cosine rates
        answers to one prompt 0.6-0.9 alike even when they say different things, so alpha sits
        near 1 and reads as "the models are clones" where NoveltyBench's judge counts 3.4
        classes per prompt; exact counts every rewording as a new answer, the other end."""
        m = self.similarity_matrix
        n = len(self.systems)
        within = float(np.mean(np.diag(m)))
        between = float(m[~np.eye(n, dtype=bool)].mean())
        k = self.responses_per_system
        a, b = self.values["alpha"], self.values["beta"]
        if self.similarity == EXACT:
            return (
                f"How to read these (--similarity exact): only identical texts count as the same "
                f"answer, so any rewording is a new one: alpha ({a:.2f}) nears the {k:.3g} answers "
                f"of a system unless it repeats itself word for word, and beta ({b:.2f}, from 1 to "
                f"{n}) nears {n} unless the systems repeat each other's texts. It is the upper end: "
                "the default cosine asks whether they say similar things."
            )
        ceiling = k / (1 + (k - 1) * within) if k else float("nan")
        return (
            f"How to read these (--similarity {self.similarity}): two different answers of one "
            f"system to a prompt are {within:.2f} alike on average, answers of two systems "
            f"{between:.2f}. A similarity counts alike answers as partly one answer: {k:.3g} "
            f"answers whose pairs are all {within:.2f} alike make {k:.3g} / (1 + {k - 1:.3g} x "
            f"{within:.2f}) = {ceiling:.2f} effective answers, however much they differ in "
            f"substance. So alpha ({a:.2f}) and beta ({b:.2f}, from 1 to {n}) are on that scale, "
            "not counts of distinct answers (NoveltyBench's classes): compare them between runs "
            "of one similarity. --similarity exact gives the other end (every rewording a new "
            "answer); equivalence-classes counts distinct answers with a judge."
        )

    def to_dict(self, with_items: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "systems": list(self.systems),
            "n_prompts": len(self.prompts),
            "skipped_prompts": len(self.skipped),
            "signature": self.signature,
            "measures": {
                name: {"value": self.values[name], "interval": self.intervals[name].to_dict()}
                for name in MEASURES
            },
            "similarity": self.similarity,
            "similarity_matrix": [[float(x) for x in row] for row in self.similarity_matrix],
            "most_alike": [{"systems": [a, b], "similarity": v} for a, b, v in self.most_alike(10)],
            "reading": self.reading(),
            "warnings": list(self.warnings),
        }
        if with_items:
            out["per_prompt"] = [
                {"prompt": p, **{m: float(self.per_prompt[m][i]) for m in MEASURES}}
                for i, p in enumerate(self.prompts)
            ]
        return out


def _exact_matrix(texts: Sequence[str]) -> np.ndarray:
    keys = np.array([hash(t) for t in texts])
    same = keys[:, None] == keys[None, :]
    # a hash collision of two different texts must not merge them: check the equal pairs' texts
    for i, j in zip(*np.nonzero(np.triu(same, 1))):
        same[i, j] = same[j, i] = texts[i] == texts[j]
    return same.astype(np.float64)


def _similarities(
    pools: list[list[str]], similarity: str, context: Any, options: Mapping[str, Any]
) -> tuple[list[np.ndarray], dict[str, Any]]:
    if similarity == EXACT:
        return [_exact_matrix(p) for p in pools], {"sim": EXACT}
    _, matrices, params = set_similarities(
        pools, similarity, "across", context=context, **dict(options)
    )
    return [np.asarray(m, dtype=np.float64) for m in matrices], dict(params)


def across_systems(
    groups: Mapping[Any, Mapping[Any, Sequence[str]]],
    similarity: Optional[str] = None,
    *,
    q: float = DEFAULT_VIEWPOINT,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: Optional[int] = 0,
    context: Any = None,
    **model_options: Any,
) -> AcrossSystems:
    """Alpha, beta, gamma of the systems' answers, per prompt and overall.

    groups: {prompt: {system: responses}} (``meta.estimation.levels.group_by_input`` builds it
    from records);
    similarity: ``cosine`` (default), ``exact``, or any of ``pair_similarity.SIMILARITIES``;
    model_options: the embedding / NLI model settings the similarity takes.
    """
    q = parse_q(q)
    similarity = similarity or DEFAULT_SIMILARITY
    systems, prompts, pools, blocks, skipped = _pools(groups)
    matrices, sim_params = _similarities(pools, similarity, context, model_options)
    per_prompt, sim_matrix = _per_prompt(matrices, blocks, len(systems), q)
    values = {m: float(per_prompt[m].mean()) for m in MEASURES}
    intervals = {
        m: bootstrap(
            lambda x: x.mean(axis=1),
            per_prompt[m].tolist(),
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
            vectorized=True,
        )
        for m in MEASURES
    }
    qs = "inf" if np.isinf(q) else f"{q:g}"
    signature = make_signature(
        "across",
        decomposition="reeve2016",
        forms="normalised",
        **sim_params,
        q=qs,
        systems=len(systems),
        resamples=n_resamples,
        seed=seed,
    )
    warnings = []
    if skipped:
        shown = ", ".join(repr(p) for p in skipped[:3]) + (", ..." if len(skipped) > 3 else "")
        warnings.append(
            f"{len(skipped)} prompt(s) not answered by every system left out of --across: {shown}"
        )
    return AcrossSystems(
        tuple(systems),
        tuple(prompts),
        values,
        intervals,
        {m: v.copy() for m, v in per_prompt.items()},
        sim_matrix,
        signature,
        tuple(skipped),
        tuple(warnings),
        similarity,
        float(np.mean([np.mean(b) for b in blocks])),
    )


def _pools(
    groups: Mapping[Any, Mapping[Any, Sequence[str]]],
) -> tuple[list[str], list[str], list[list[str]], list[list[int]], list[str]]:
    """(systems, prompts, each prompt's pooled responses in system order, each system's number
    of responses in each pool, the prompts skipped: not answered by every system)."""
    systems = sorted({str(s) for answers in groups.values() for s in answers})
    if len(systems) < 2:
        raise InputError(
            f"--across needs at least 2 systems, found {len(systems)}"
            + (f" ({systems[0]})" if systems else "")
        )
    prompts, pools, blocks, skipped = [], [], [], []
    for prompt, answers in groups.items():
        named = {str(s): list(r) for s, r in answers.items()}
        if set(named) != set(systems) or any(not named[s] for s in systems):
            skipped.append(str(prompt))
            continue
        for s in systems:
            for text in named[s]:
                if not isinstance(text, str) or not text.strip():
                    raise InputError(f"prompt {prompt!r}, system {s!r}: an empty response")
        prompts.append(str(prompt))
        pools.append([t for s in systems for t in named[s]])
        blocks.append([len(named[s]) for s in systems])
    if len(prompts) < 2:
        raise InputError(
            f"--across needs at least 2 prompts answered by every system ({', '.join(systems)}); "
            f"found {len(prompts)}"
        )
    return systems, prompts, pools, blocks, skipped


def _per_prompt(
    matrices: list[np.ndarray], blocks: list[list[int]], n_systems: int, q: float
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """(each measure per prompt, the systems x systems mean similarity over prompts)."""
    per_prompt = {m: np.empty(len(matrices)) for m in MEASURES}
    pair_means = np.zeros((n_systems, n_systems))
    for i, (z, sizes) in enumerate(zip(matrices, blocks)):
        owner = np.repeat(np.arange(n_systems), sizes)
        counts = (owner[:, None] == np.arange(n_systems)[None, :]).astype(np.float64)
        for name, value in decompose(counts, z, q).items():
            per_prompt[name][i] = value
        pair_means += _block_means(z, owner, n_systems)
    return per_prompt, pair_means / len(matrices)


def _block_means(z: np.ndarray, owner: np.ndarray, n_systems: int) -> np.ndarray:
    """Mean similarity between each pair of systems' responses (i != j within a system; a system
    with one response compares with itself as 1)."""
    out = np.ones((n_systems, n_systems))
    for a in range(n_systems):
        rows = owner == a
        for b in range(n_systems):
            block = z[np.ix_(rows, owner == b)]
            if a == b:
                k = block.shape[0]
                if k > 1:
                    out[a, b] = (block.sum() - np.trace(block)) / (k * (k - 1))
            else:
                out[a, b] = block.mean()
    return out
