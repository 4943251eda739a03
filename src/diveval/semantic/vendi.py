"""The Vendi Score (Friedman & Dieng 2022): the effective number of distinct items in a sample.

For n items with a similarity kernel K (K_ii = 1, positive semi-definite), let λ be the eigenvalues
of K / n (they are >= 0 and sum to 1). The Vendi Score of order q > 0 is the exponential of the
Rényi entropy of λ:

    VS_q = exp( log(sum_i λ_i^q) / (1 - q) ),   VS_1 = exp(-sum_i λ_i log λ_i),   VS_inf = 1 / max λ

so n identical items score 1 and n mutually orthogonal items score n, for every q. Here the kernel
is always a cosine kernel K = X X^T of unit-length feature rows X [n, d], so the nonzero
eigenvalues of K / n are those of X^T X / n; diveval takes the smaller of the two matrices.
Identical texts are identical rows: with u distinct rows U and their counts c, the nonzero
eigenvalues of K are those of C^1/2 U U^T C^1/2 (u x u) or U^T C U (d x d), C = diag(c), so the
matrix is min(u, d) square, not min(n, d): generated text repeats itself (the 6,740 HRED outputs
of multirefeval are 3,389 distinct texts, about 7 times less eigenvalue work). Two copies of a
text thus have K_ij = 1 under either rule of ``identical=`` (:mod:`diveval.semantic.identical`):
their features are the same vector, whose cosine with itself the model gives as 1; the rule is
taken and recorded (``ident:``) as in every similarity metric, and cannot move the number.

Kernels: ``embedding`` (sentence embeddings, default model: the offline all-MiniLM-L6-v2) and
``ngram`` (cosine of n-gram count vectors for n = 1..n_max, default 2 as the reference package's
``ngram_vendi_score``, from diveval's n-gram engine). A text with no feature at all (an empty text
under the n-gram kernel) has no direction; such texts are treated as identical to one another and
orthogonal to all other texts, as if they shared one private feature: they add one eigenvalue,
their count.

Settings: a corpus gives one score; sets give one score per set and their mean.

One core (:mod:`diveval.semantic.gram_state`): the statistics (the Gram matrix of the unit rows,
which the mergeable state adds up) and one finisher (eigenvalues -> VS_q); the function form is
that state over the whole input where the d x d matrix is the smaller one, and the dual matrix of
a few distinct rows ends in the same finisher.

The published package (vendi-score 0.0.3) is the reference through its kernel functions
(``score_K``, ``intdiv_K``), which the tests run on the same kernels. Its text-level helpers are
not followed: ``score_X`` drops its ``q`` argument (always order 1), and ``intdiv_X`` calls
``intdiv`` with a kernel where that function takes samples. Eigenvalues below 1e-12 of the largest
are round-off of zeros and are dropped here; the package keeps every positive one, which moves
its order-q < 1 values in about the 8th digit when K is rank-deficient.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Optional, Union

import numpy as np

from ..constants import DEFAULT_TOKENIZER
from ..data import as_setting, flatten_sets
from ..errors import InputError
from ..models.devices import ModelSettings, SettingsKeywords, settings_of
from ..models.embedders import embedder_for
from ..pairs import BudgetError, PairPlan, progress_callback, resolve_budget, time_text
from ..results import CORPUS, SETS, Score, make_signature
from ..sizes import size_text
from ..text.ngrams import _densify, ngram_codes, text_of_positions
from ..text.prepared import prepare
from .gram_state import (
    GramState,
    embedding_choices,
    format_order,
    kernel_eigenvalues,
    parse_order,
    unit_scale,
    vendi_from_eigenvalues,
)
from .identical import check_identical

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

KERNELS = ("embedding", "ngram")


def vendi_from_kernel(kernel: np.ndarray, q: Union[float, str] = 1.0) -> float:
    """Vendi Score of a similarity matrix K (n x n, K_ii = 1): eigenvalues of K / n."""
    k = np.asarray(kernel, dtype=np.float64)
    if k.ndim != 2 or k.shape[0] != k.shape[1] or k.shape[0] == 0:
        raise InputError(f"a Vendi kernel must be a non-empty square matrix, got shape {k.shape}")
    return vendi_from_eigenvalues(np.linalg.eigvalsh((k + k.T) / 2) / k.shape[0], q)


#: time of the eigenvalues of an m x m symmetric matrix, per m^3 (LAPACK syevd, values only):
#: vendi-ngram of 5,000 distinct responses took 43 s on a busy 2-core machine
_EIG_SECONDS = 5e-10


def vendi_from_features(
    features,
    q: Union[float, str] = 1.0,
    counts=None,
    *,
    memory_budget: Any = None,
    progress: Any = None,
    metric: str = "vendi",
    estimate: Optional[dict] = None,
) -> float:
    """Vendi Score of the cosine kernel of feature rows [n, d] (dense or scipy sparse), through
    the n x n kernel or the d x d matrix X^T X / n, whichever is smaller. ``counts``: how many
    times each row occurs (rows are then the distinct items; see the module docstring).

    The smaller matrix (m x m, m = min(distinct rows, features)) is filled block by block and its
    eigenvalues computed in place: its 8 m^2 bytes are the peak. Where they exceed
    ``memory_budget`` (bytes or "2G"; default 1/4 of the available memory) a BudgetError says so
    before anything is allocated. ``estimate``: a dict to receive the plan (memory, time). The
    dense d x d matrix is :class:`~diveval.semantic.gram_state.GramState`'s of these rows, and
    every route ends in the same finisher (``gram_state.kernel_eigenvalues``)."""
    from scipy import sparse

    x = features if sparse.issparse(features) else np.asarray(features, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] == 0:
        raise InputError("the Vendi Score needs at least one item")
    c = np.ones(x.shape[0]) if counts is None else np.asarray(counts, dtype=np.float64)
    u, d = x.shape
    plan = _eigen_plan(metric, u, d, int(c.sum()), memory_budget)
    if estimate is not None:
        estimate.update(
            matrix=math.isqrt(plan.pairs),
            memory_budget_bytes=plan.budget,
            estimated_peak_bytes=plan.peak_bytes,
            estimated_seconds=round(plan.seconds, 3),
        )
    if u > d and not sparse.issparse(x):  # the state of the whole input: its Gram matrix
        state = GramState(d).update(x, c)
        lam = kernel_eigenvalues(state.gram, state.n_rows, state.n_empty, plan, progress)
        return vendi_from_eigenvalues(lam, q)
    scale = unit_scale(x)
    if u <= d:  # C^1/2 U U^T C^1/2
        scale = scale * np.sqrt(c)
        x = sparse.diags(scale) @ x if sparse.issparse(x) else x * scale[:, None]
        left, right = x, x.T
    else:  # U^T C U of sparse rows, filled by blocks
        x = sparse.diags(scale) @ x
        left, right = x.T, sparse.diags(c) @ x
    small = _dense_product(left, right, plan, progress)
    lam = kernel_eigenvalues(small, c.sum(), c[scale == 0].sum(), plan, progress)
    return vendi_from_eigenvalues(lam, q)


def _eigen_plan(metric: str, u: int, d: int, n: int, memory_budget: Any):
    """The m x m matrix's memory and time, checked against the budget (m = min(u, d))."""
    # a (bytes, source) pair is a budget already resolved, once for all the sets of a run
    budget, source = (
        memory_budget if isinstance(memory_budget, tuple) else resolve_budget(memory_budget)
    )
    m = min(u, d)
    plan = PairPlan(
        metric,
        n,
        m * m,
        8 * m * m,  # the matrix itself, held to the end
        24.0,  # a block's sparse product (value, index) and its dense copy, per entry
        _EIG_SECONDS * m,  # m^3 over the m^2 entries
        budget,
        source,
    )
    if plan.least_bytes > budget:
        raise BudgetError(
            f"{metric} on {n:,} responses needs the eigenvalues of a {m:,} x {m:,} matrix "
            f"(min of {u:,} distinct responses and {d:,} features): about "
            f"{size_text(plan.least_bytes)} and {time_text(plan.seconds)}; the memory budget is "
            f"{size_text(budget)} ({source}): score sets instead of "
            "one corpus, a random subset of the responses, or the embedding kernel (vendi: a "
            "d x d matrix, d = 384 for MiniLM)"
        )
    return plan


def _dense_product(left, right, plan, progress: Any) -> np.ndarray:
    """left @ right as a dense float64 array, filled by blocks of rows that fit the budget left
    after the matrix itself (one sparse block product at a time, never the whole sparse one)."""
    from scipy import sparse

    m = left.shape[0]
    if not sparse.issparse(left):
        return np.asarray(left @ right, dtype=np.float64)
    left = left.tocsr()
    right = right.tocsr()
    out = np.empty((m, right.shape[1]), dtype=np.float64)
    step = max(1, plan.block_pairs // max(right.shape[1], 1))
    with progress_callback(progress, f"{plan.metric}: matrix rows", m) as update:
        for s in range(0, m, step):
            e = min(s + step, m)
            out[s:e] = (left[s:e] @ right).toarray()
            update(e)
    return out


def ngram_features(prep, n_max: int = 2):
    """Sparse [texts, n-grams] count matrix over the n-grams of orders 1..n_max (one block each)."""
    from scipy import sparse

    n_texts = prep.tids.n_texts
    blocks = []
    for n in range(1, n_max + 1):
        codes, starts, _ = ngram_codes(prep.tids, n)
        if codes.size == 0:
            continue
        cols = _densify(codes)
        rows = text_of_positions(prep.tids, starts)
        blocks.append(
            sparse.csr_matrix(
                (np.ones(codes.size), (rows, cols)), shape=(n_texts, int(cols.max()) + 1)
            )
        )
    if not blocks:
        return sparse.csr_matrix((n_texts, 0))
    return sparse.hstack(blocks, format="csr")  # duplicate entries summed: counts


def vendi(
    data: Any,
    kernel: str = "embedding",
    q: Union[float, str] = 1.0,
    *,
    model: Any = None,
    settings: Optional[ModelSettings] = None,
    n_max: int = 2,
    tokenizer: Any = DEFAULT_TOKENIZER,
    lowercase: bool = False,
    progress: Any = None,
    memory_budget: Any = None,
    identical: Optional[str] = None,
    **keywords: Unpack[SettingsKeywords],
) -> Score:
    """The Vendi Score of a corpus (one value) or of each response set (and their mean).

    kernel: "embedding" (cosine of sentence embeddings from ``model``: None for the offline
    all-MiniLM-L6-v2, a sentence-transformers name or folder, or any ``Embedder``) or "ngram"
    (cosine of n-gram count vectors, n = 1..n_max, with ``tokenizer`` / ``lowercase``).
    q: the order, any number > 0 or "inf" (1: Shannon entropy, the paper's default).
    memory_budget: bytes or "2G" for the m x m eigenvalue problem (m = min(distinct responses,
    features); default 1/4 of the available memory): past it, a BudgetError before any work.
    progress: True for a bar on a terminal while the matrix fills, or ``progress(done, total)``.
    identical: "one" (default) or "model": the same number here (two copies of a text are the same
    feature vector), recorded in the signature as in every similarity metric. settings: the
    run's model settings for the embedding kernel, or their keywords (device, batch_size, ...).
    """
    if kernel not in KERNELS:
        raise InputError(f"unknown Vendi kernel {kernel!r}; choose one of {', '.join(KERNELS)}")
    q = parse_order(q)
    rule = check_identical(identical, f"vendi-{kernel}" if kernel == "ngram" else "vendi")
    if kernel == "ngram":
        prep = prepare(data, tokenizer, lowercase)
        setting = prep.setting
        texts = ["\x1f".join(t) for t in prep.token_lists()]  # equal token lists: equal rows
        feats = ngram_features(prep, int(n_max))
        group = prep.set_index if setting == SETS else np.zeros(prep.tids.n_texts, np.int64)
        n_groups = prep.n_groups
        name = "vendi-ngram"
        choices: dict[str, Any] = {
            "kernel": "ngram",
            "n": f"1-{int(n_max)}",
            **prep.tokenizer.signature,
        }
    else:
        setting, items = as_setting(data)
        if setting == SETS:
            texts, group = flatten_sets(items)
            n_groups = len(items)
        else:
            texts, group, n_groups = items, np.zeros(len(items), np.int64), 1
        emb = embedder_for(model, settings_of(settings, **keywords))
        feats = emb.encode(texts)
        name = "vendi"
        choices = embedding_choices(emb)
    if setting == SETS:
        empty = [i for i in range(n_groups) if not np.any(group == i)]
        if empty:
            raise InputError(
                f"the Vendi Score needs at least one response: set {empty[0]} is empty"
            )
    order = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(n_groups + 1))
    values = np.empty(n_groups)
    estimate: dict[str, Any] = {}
    text_array = np.asarray(texts, dtype=object)  # once: per set it made the run quadratic
    budget = resolve_budget(memory_budget)  # once: it reads the available memory
    for g in range(n_groups):
        rows = order[bounds[g] : bounds[g + 1]]
        # identical texts are identical rows: one row each, with its count
        _, first, counts = np.unique(
            text_array[rows].astype(str), return_index=True, return_counts=True
        )
        values[g] = vendi_from_features(
            feats[rows[first]],
            q,
            counts,
            memory_budget=budget,
            progress=progress if setting == CORPUS else None,
            metric=name,
            estimate=estimate if setting == CORPUS else None,
        )
    sig = make_signature(name, **choices, ident=rule, q=format_order(q), setting=setting)
    per_set = values if setting == SETS else None
    details = {"estimate": estimate} if estimate else {}
    return Score(name, float(values.mean()), sig, setting, per_set, details)
