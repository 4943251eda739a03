"""Equivalence classes (NoveltyBench, Zhang et al. 2025): a hand-checked partition, NoveltyBench's
own algorithm re-run with fake judges, the utility, the judges and the judge cache."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from novelty_reference import novelty_bench_partition

from diveval.context import RunContext
from diveval.errors import InputError
from diveval.registry import get_metric
from diveval.semantic.equivalence import (
    BleuJudge,
    CachedJudge,
    CallableJudge,
    EmbeddingJudge,
    NLIJudge,
    equivalence_classes,
    parse_judge,
    partition,
    partition_sets,
    patience_utility,
)


def first_word(a: str, b: str) -> bool:
    return a.split()[0] == b.split()[0]


def novelty_bench_utility(part, quality, patience):
    """NoveltyBench's score.py: a generation scores its quality when it opens a class (its class
    index equals the number of classes seen so far), then ``np.average`` with weights p**i."""
    scores, opened = [], 0
    for p, q in zip(part, quality):
        if p == opened:
            scores.append(q)
            opened += 1
        else:
            scores.append(0)
    return float(np.average(scores, weights=patience ** np.arange(len(part))))


def test_hand_checked_partition():
    sets = [["a x", "b y", "a z", "c w", "b q", "a r"], ["z one", "z two"], ["solo"]]
    labels = partition_sets(sets, CallableJudge(first_word))
    assert labels == [[0, 1, 0, 2, 1, 0], [0, 0], [0]]
    score = equivalence_classes(sets, first_word)
    assert score.items.tolist() == [3.0, 1.0, 1.0]
    assert score.value == pytest.approx(5 / 3)
    # set 0: generations 1, 2, 4 open classes (i = 0, 1, 3): (1 + .8 + .512) / sum(.8^0..5)
    weights = sum(0.8**i for i in range(6))
    assert score.details["utility"][0] == pytest.approx((1 + 0.8 + 0.512) / weights)
    assert score.details["utility"][1] == pytest.approx(1 / 1.8)
    assert score.details["utility"][2] == pytest.approx(1.0)


def test_representative_is_the_first_member_not_any_member():
    # "b" is like "ab" but not like "a": it must not join the class of "a" through "ab"
    def overlap(x, y):
        return bool(set(x) & set(y))

    assert partition_sets([["a", "ab", "b"]], CallableJudge(overlap)) == [[0, 0, 1]]


@settings(max_examples=200, deadline=None)
@given(
    k=st.integers(1, 9),
    seed=st.integers(0, 10**6),
    symmetric=st.booleans(),
    patience=st.floats(0.05, 1.0),
)
def test_equals_novelty_bench_algorithm_with_random_fake_judges(k, seed, symmetric, patience):
    rng = np.random.default_rng(seed)
    texts = [f"g{i}" for i in range(k)]
    table = rng.random((k, k)) < rng.random()
    if symmetric:
        table = table | table.T
    index = {t: i for i, t in enumerate(texts)}

    def judge(a, b):
        return bool(table[index[a], index[b]])

    quality = rng.integers(1, 11, size=k).astype(float).tolist()
    ours = partition([texts], judge, quality=[quality], patience=patience)
    ref = novelty_bench_partition(texts, judge)
    assert ours.labels == [ref]
    assert ours.distinct[0] == max(ref) + 1
    assert ours.utility[0] == pytest.approx(novelty_bench_utility(ref, quality, patience))


def test_utility_by_hand_and_default_quality():
    assert patience_utility([0, 0, 1], [5, 7, 2], 0.5) == pytest.approx((5 + 0.25 * 2) / 1.75)
    # all distinct, quality 1: utility 1; all equal: 1 / sum of weights
    assert patience_utility([0, 1, 2], [1, 1, 1], 0.8) == pytest.approx(1.0)
    assert patience_utility([0, 0, 0], [1, 1, 1], 0.8) == pytest.approx(1 / 2.44)


def test_quality_function_and_patience_checks():
    sets = [["a x", "b y"]]
    score = equivalence_classes(sets, first_word, quality=lambda t: len(t), patience=0.5)
    assert score.details["utility"][0] == pytest.approx((3 + 0.5 * 3) / 1.5)
    with pytest.raises(InputError, match="patience"):
        equivalence_classes(sets, first_word, patience=0)
    with pytest.raises(InputError, match="one number per generation"):
        equivalence_classes(sets, first_word, quality=[[1.0]])


class CountingEmbedder:
    name = "count-emb"
    fingerprint = "0"

    def __init__(self):
        self.seen = []

    def encode(self, texts):
        self.seen += list(texts)
        vecs = {"cat": [1.0, 0.0], "kitty": [0.9, 0.1], "car": [0.0, 1.0]}
        return np.array([vecs[t.split()[0]] for t in texts])


def test_embedding_judge_threshold():
    judge = EmbeddingJudge(CountingEmbedder(), 0.95)
    cos = 0.9 / np.hypot(0.9, 0.1)  # 0.9939
    assert judge.judge_pairs([("cat a", "kitty b"), ("cat a", "car c")]) == [True, False]
    assert EmbeddingJudge(CountingEmbedder(), cos + 1e-6).judge_pairs([("cat", "kitty")]) == [False]


def test_the_runs_settings_reach_the_judges_model(tmp_path):
    # the run's one settings object (its score cache here) loads the judge's model, in a run and
    # in a direct call; a direct call's keywords give the same; both at once is a caller's slip
    import diveval
    from diveval.models.devices import resolve_settings

    sets = [["cat a", "kitty b", "car c"], ["car d", "cat e"]]
    spec = dict(judge="embedding:0.95", embedding_model=CountingEmbedder())
    run = diveval.score(sets, ["equivalence-classes"], cache_dir=str(tmp_path / "run"), **spec)
    assert run["equivalence-classes"].items.tolist() == [2.0, 2.0]
    assert (tmp_path / "run" / "diveval-cache.sqlite").exists()
    settings = resolve_settings(cache_dir=str(tmp_path / "direct"))
    direct = equivalence_classes(sets, settings=settings, **spec)
    assert direct.value == run["equivalence-classes"].value
    assert (tmp_path / "direct" / "diveval-cache.sqlite").exists()
    keywords = equivalence_classes(sets, cache_dir=str(tmp_path / "kw"), **spec)
    assert keywords.value == direct.value and (tmp_path / "kw" / "diveval-cache.sqlite").exists()
    with pytest.raises(TypeError, match="not both"):
        equivalence_classes(sets, settings=settings, device="cpu", **spec)


class TableNLI:
    """NLI stub: entailment where the table says so, neutral elsewhere; counts ordered pairs."""

    name = "table-nli"
    fingerprint = "0"

    def __init__(self, entails):
        self.entails = entails
        self.asked = []

    def predict(self, premises, hypotheses):
        self.asked += list(zip(premises, hypotheses))
        rows = [
            [0, 0, 1] if (p, h) in self.entails or p == h else [0, 1, 0]
            for p, h in zip(premises, hypotheses)
        ]
        return np.array(rows, dtype=float).reshape(-1, 3)


def test_nli_judge_needs_entailment_both_ways():
    nli = TableNLI({("a", "b"), ("b", "a"), ("a", "c")})  # a->c only one way
    judge = NLIJudge(nli)
    assert judge.judge_pairs([("a", "b"), ("a", "c")]) == [True, False]
    score = equivalence_classes([["a", "b", "c"]], "nli", nli_model=nli)
    assert score.details["labels"].tolist() == [[0, 0, 1]]
    assert "labels" not in score.to_dict() and score.to_dict(True)["details"]["labels"] == [
        [0, 0, 1]
    ]
    assert "table-nli" in score.signature


def test_same_pair_never_judged_twice():
    nli = TableNLI(set())
    context = RunContext()
    sets = [["x", "y", "z"], ["x", "y", "z"], ["y", "x"]]
    equivalence_classes(sets, nli_model=nli, context=context)
    equivalence_classes(sets, nli_model=nli, context=context)
    # x|y, x|z, y|z and y|x... each ordered NLI pair at most once (CachedNLI below the judge)
    pairs = nli.asked
    assert len(pairs) == len(set(pairs))
    calls = []

    def judge(a, b):
        calls.append((a, b))
        return False

    cached = CachedJudge(CallableJudge(judge))
    partition_sets(sets, cached)
    partition_sets(sets, cached)
    assert sorted(calls) == sorted(set(calls))
    assert sorted(calls) == [("x", "y"), ("x", "z"), ("y", "x"), ("y", "z")]


def test_bleu_judge_equals_novelty_bench_formula():
    import sacrebleu

    a, b = "the cat sat on the mat today", "the cat sat on a mat today"
    expected = (
        sacrebleu.corpus_bleu([a], [[b]]).score + sacrebleu.corpus_bleu([b], [[a]]).score
    ) / 200
    judge = BleuJudge(0.3)
    assert judge.similarity(a, b) == pytest.approx(expected, abs=1e-12)
    assert BleuJudge(expected - 1e-9).judge_pairs([(a, b)]) == [True]
    assert BleuJudge(expected + 1e-9).judge_pairs([(a, b)]) == [False]


def test_parse_judge():
    assert parse_judge("nli") == ("nli", None)
    assert parse_judge("embedding") == ("embedding", 0.8)
    assert parse_judge("bleu:0.25") == ("bleu", 0.25)
    for bad in ("foo", "bleu:x", "nli:0.3", "embedding:nan"):
        with pytest.raises(InputError):
            parse_judge(bad)


def test_registered_and_cli(tmp_path):
    m = get_metric("equivalence-classes")
    assert m.direction == "higher" and m.settings == ("sets",)
    s = m([["a x", "a y", "b z"]], judge="bleu:0.99")
    assert s.metric == "equivalence-classes"
    f = tmp_path / "s.jsonl"
    f.write_text('{"responses": ["same words here", "same words here", "other thing"]}\n')
    cmd = [sys.executable, "-m", "diveval", "score", str(f), "--metric", "equivalence-classes"]
    # the two copies are one class by default (the judge is not NoveltyBench's classifier); with
    # --identical model the judge is asked, as NoveltyBench asks it, and its BLEU of a 3-word text
    # with itself is below 0.5 (no 4-gram)
    out = subprocess.run([*cmd, "--judge", "bleu:0.5", "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert '"value": 2.0' in out.stdout
    out = subprocess.run(
        [*cmd, "--judge", "bleu:0.5", "--identical", "model", "--json"],
        capture_output=True,
        text=True,
    )
    assert '"value": 3.0' in out.stdout
    assert "the judge put 1 pair of identical answers into different classes" in out.stderr
    bad = subprocess.run([*cmd, "--judge", "bleu:x"], capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "judge threshold" in bad.stderr


def test_empty_set_is_an_input_error():
    with pytest.raises(InputError):
        equivalence_classes([["a"], []], first_word)


def test_permutation_of_equal_texts():
    # identical generations: one class whatever the judge's threshold
    for spec in ("bleu:1.0", "bleu:0.01"):
        assert equivalence_classes([["a b c d e"] * 4], spec).value == 1.0
