"""Which pairs the equivalence partition asks its judge about: only NoveltyBench's (each generation
against the earlier classes' first members, up to the first equivalent one), batched across sets,
with the classes an all-pairs partition finds; and the NLI judges' second direction only where
the first leaves the verdict open."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from novelty_reference import novelty_bench_partition

from diveval.models.base import CONTRADICTION, ENTAILMENT, NEUTRAL
from diveval.semantic.equivalence import (
    Judge,
    NLIJudge,
    RelaxedNLIJudge,
    expected_judged,
    partition_sets,
)
from diveval.semantic.identical import MODEL, ONE


class TableJudge(Judge):
    """A deterministic stub: the verdict of each ordered pair from a table; records every call."""

    name = "table"

    def __init__(self, table: dict[tuple[str, str], bool]):
        self.table = table
        self.calls: list[list[tuple[str, str]]] = []

    def judge_pairs(self, pairs):
        self.calls.append(list(pairs))
        return [self.table[p] for p in pairs]

    @property
    def asked(self) -> list[tuple[str, str]]:
        return [p for call in self.calls for p in call]


def all_pairs_partition(texts, table):
    """The eager design: every pair (earlier, later) judged up front, k(k-1)/2 of them, then the
    greedy partition read from the verdicts (join the first class whose first member is
    equivalent)."""
    verdict = {(i, j): table[texts[i], texts[j]] for j in range(len(texts)) for i in range(j)}
    labels, reps = [], []
    for j in range(len(texts)):
        joined = next((c for c, r in enumerate(reps) if verdict[r, j]), None)
        if joined is None:
            labels.append(len(reps))
            reps.append(j)
        else:
            labels.append(joined)
    return labels


def novelty_bench_asks(texts, table):
    """The pairs NoveltyBench's own loop asks its judge, in its order."""
    asked = []

    def judge(a, b):
        asked.append((a, b))
        return table[a, b]

    novelty_bench_partition(texts, judge)
    return asked


def random_sets(seed: int, n_sets: int, max_k: int, repeats: bool):
    """Sets of 1..max_k texts (unique across sets unless ``repeats``: then a set may hold the
    same text twice) and a random, possibly asymmetric verdict table over each set's pairs."""
    rng = np.random.default_rng(seed)
    sets, table = [], {}
    for k in range(n_sets):
        size = int(rng.integers(1, max_k + 1))
        if repeats:
            texts = [f"s{k}t{int(x)}" for x in rng.integers(0, max(1, size - 1), size=size)]
        else:
            texts = [f"s{k}t{i}" for i in range(size)]
        rate = rng.random()
        for a in texts:
            for b in texts:
                table[a, b] = bool(rng.random() < rate)
        sets.append(texts)
    return sets, table


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    n_sets=st.integers(1, 6),
    max_k=st.integers(1, 10),
    repeats=st.booleans(),
)
def test_lazy_partition_equals_all_pairs_and_asks_only_novelty_bench_pairs(
    seed, n_sets, max_k, repeats
):
    sets, table = random_sets(seed, n_sets, max_k, repeats)
    judge = TableJudge(table)
    labels = partition_sets(sets, judge)
    assert labels == [all_pairs_partition(s, table) for s in sets]
    assert labels == [novelty_bench_partition(s, lambda a, b: table[a, b]) for s in sets]
    # exactly the pairs NoveltyBench asks (as a multiset: the batches interleave the sets)
    expected = [p for s in sets for p in novelty_bench_asks(s, table)]
    assert sorted(judge.asked) == sorted(expected)
    assert len(judge.asked) == expected_judged(labels)
    assert len(judge.asked) <= sum(len(s) * (len(s) - 1) // 2 for s in sets)
    # one judge call per generation position at most, whatever the number of sets
    assert len(judge.calls) <= max(len(s) for s in sets)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**6), n_sets=st.integers(1, 5), max_k=st.integers(1, 8))
def test_identical_one_leaves_identical_pairs_unasked(seed, n_sets, max_k):
    sets, table = random_sets(seed, n_sets, max_k, repeats=True)
    judge = TableJudge(table)
    labels = partition_sets(sets, judge, ONE)
    forced = {p: (p[0] == p[1]) or v for p, v in table.items()}
    assert labels == [all_pairs_partition(s, forced) for s in sets]
    assert all(a != b for a, b in judge.asked)
    asked = [p for s in sets for p in novelty_bench_asks(s, forced) if p[0] != p[1]]
    assert sorted(judge.asked) == sorted(asked)


def test_counts_by_hand():
    # "a" opens class 0; "b" differs from "a" (1 pair) and opens class 1; "a2" joins class 0 at
    # the first representative (1 pair: class 1 is never asked); "c" differs from both (2 pairs)
    same = {("a", "a2")}
    texts = ["a", "b", "a2", "c"]
    table = {(x, y): (x, y) in same for x in texts for y in texts}
    judge = TableJudge(table)
    assert partition_sets([texts], judge, MODEL) == [[0, 1, 0, 2]]
    assert expected_judged([[0, 1, 0, 2]]) == 1 + 1 + 2
    assert sorted(judge.asked) == sorted([("a", "b"), ("a", "a2"), ("a", "c"), ("b", "c")])
    # answer-major batching (each answer against every earlier class) would also ask ("b", "a2")
    assert ("b", "a2") not in judge.asked
    # all pairs: 6; ten answers of one class: 9 pairs; ten distinct: 45
    assert expected_judged([[0] * 10]) == 9
    assert expected_judged([list(range(10))]) == 45


class LabelNLI:
    """NLI stub: the argmax label of each ordered pair from a table; records every pair asked."""

    name = "label-nli"
    fingerprint = "0"

    def __init__(self, labels: dict[tuple[str, str], int]):
        self.labels = labels
        self.asked: list[tuple[str, str]] = []

    def predict(self, premises, hypotheses):
        self.asked += list(zip(premises, hypotheses))
        out = np.full((len(premises), 3), 0.1)
        for row, pair in enumerate(zip(premises, hypotheses)):
            out[row, self.labels[pair]] = 0.8
        return out


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 12), relaxed=st.booleans())
def test_nli_judge_runs_the_second_direction_only_where_it_decides(seed, n, relaxed):
    rng = np.random.default_rng(seed)
    texts = [f"t{i}" for i in range(6)]
    table = {(a, b): int(rng.integers(0, 3)) for a in texts for b in texts}
    pairs = [(texts[int(i)], texts[int(j)]) for i, j in rng.integers(0, 6, size=(n, 2))]
    nli = LabelNLI(table)
    rule = RelaxedNLIJudge if relaxed else NLIJudge
    got = rule(nli).judge_pairs(pairs)
    # the rule on both directions' labels, every pair asked both ways
    one = np.array([table[a, b] for a, b in pairs])
    two = np.array([table[b, a] for a, b in pairs])
    assert got == [bool(x) for x in rule.equivalent(one, two)]
    settles = {CONTRADICTION} if relaxed else {CONTRADICTION, NEUTRAL}
    backward = [(b, a) for a, b in pairs if table[a, b] not in settles]
    assert nli.asked == list(pairs) + backward


def test_nli_judge_skips_the_second_direction_by_hand():
    nli = LabelNLI(
        {
            ("a", "b"): ENTAILMENT,
            ("b", "a"): ENTAILMENT,
            ("a", "c"): NEUTRAL,
            ("c", "a"): ENTAILMENT,
            ("a", "d"): CONTRADICTION,
            ("d", "a"): ENTAILMENT,
        }
    )
    pairs = [("a", "b"), ("a", "c"), ("a", "d")]
    assert NLIJudge(nli).judge_pairs(pairs) == [True, False, False]
    assert nli.asked == [*pairs, ("b", "a")]
    nli.asked.clear()
    # relaxed: neutral one way and entailment the other is equivalent; contradiction settles
    assert RelaxedNLIJudge(nli).judge_pairs(pairs) == [True, True, False]
    assert nli.asked == [*pairs, ("b", "a"), ("c", "a")]


def test_shipped_model_truncation_is_the_signatures_rule():
    from diveval.models import shipped_nli

    if not shipped_nli.shipped_model_available():
        pytest.skip("the shipped NLI model is not installed")
    model = shipped_nli.default_nli_model()
    assert model.truncation == "pair128-longest-first"
    long_a = " ".join(["alpha"] * 300)
    long_b = " ".join(["beta"] * 200)
    short = "gamma delta"
    (both, one) = model._tok.encode_batch([(long_a, long_b), (long_a, short)])
    # 128 tokens in all with [CLS] and two [SEP]: two long texts keep 63 and 62 tokens, a short
    # one is kept whole and the long one gets the rest
    assert len(both.ids) == 128 and both.type_ids.count(0) - 2 == 63
    assert len(one.ids) == 128 and one.type_ids.count(1) - 1 == 2
    assert NLIJudge(model).name.endswith(":trunc:pair128-longest-first")
