"""Semantic entropy (Kuhn et al. 2023; Farquhar et al. 2024) against the reference code's formulas
(jlko/semantic_uncertainty, ``uncertainty_measures/semantic_entropy.py``) restated here in plain
Python, on the same NLI labels: both equivalence rules, count- and likelihood-weighted."""

from __future__ import annotations

import hashlib
import json
import math
import subprocess
import sys

import numpy as np
import pytest

import diveval
from diveval.errors import InputError
from diveval.semantic.equivalence import CachedJudge, CallableJudge, parse_judge
from diveval.semantic.semantic_entropy import classes_of_sets, semantic_entropy, semantic_ids

# -- the reference, restated (plain Python, natural log, as its numpy calls compute) -------------


def ref_get_semantic_ids(strings, check_implication, strict_entailment):
    """get_semantic_ids: a response not yet in a class opens one; every later response equivalent
    to it is assigned (overwriting) to that class."""

    def are_equivalent(text1, text2):
        implication_1 = check_implication(text1, text2)
        implication_2 = check_implication(text2, text1)
        if strict_entailment:
            return implication_1 == 2 and implication_2 == 2
        implications = [implication_1, implication_2]
        return (0 not in implications) and ([1, 1] != implications)

    ids = [-1] * len(strings)
    next_id = 0
    for i, string1 in enumerate(strings):
        if ids[i] == -1:
            ids[i] = next_id
            for j in range(i + 1, len(strings)):
                if are_equivalent(string1, strings[j]):
                    ids[j] = next_id
            next_id += 1
    return ids


def ref_cluster_assignment_entropy(ids):
    counts = [ids.count(c) for c in range(max(ids) + 1)]
    probabilities = [c / len(ids) for c in counts]
    return -sum(p * math.log(p) for p in probabilities)


def ref_logsumexp_by_id(ids, log_likelihoods):
    """logsumexp_by_id(..., agg='sum_normalized'), with its naive log(sum(exp(.)))."""
    total = math.log(sum(math.exp(x) for x in log_likelihoods))
    out = []
    for uid in sorted(set(ids)):
        members = [log_likelihoods[i] - total for i, x in enumerate(ids) if x == uid]
        out.append(math.log(sum(math.exp(x) for x in members)))
    return out


def ref_predictive_entropy_rao(log_probs):
    return -sum(math.exp(x) * x for x in log_probs)


def labels_of(score, g):
    return [int(x) for x in score.details["labels"][g].split()]


# -- stub NLI models ---------------------------------------------------------------------------


class HashNLI:
    """A label per ordered pair from a hash (one-hot-ish probabilities), entailment for a text
    with itself: no transitivity, so the classes depend on the assignment rule."""

    name = "hash-nli"
    fingerprint = "0001"

    def __init__(self):
        self.pairs_seen = []

    @staticmethod
    def label(p: str, h: str) -> int:
        if p == h:
            return 2
        return hashlib.sha256(f"{p}\x00{h}".encode()).digest()[0] % 3

    def predict(self, premises, hypotheses):
        self.pairs_seen += list(zip(premises, hypotheses))
        out = np.full((len(premises), 3), 0.1)
        for r, (p, h) in enumerate(zip(premises, hypotheses)):
            out[r, self.label(p, h)] = 0.8
        return out


class TableNLI:
    """Labels from a table of ordered pairs; unlisted pairs are neutral."""

    name = "table-nli"
    fingerprint = "0002"

    def __init__(self, table):
        self.table = table

    def predict(self, premises, hypotheses):
        out = np.zeros((len(premises), 3))
        for r, (p, h) in enumerate(zip(premises, hypotheses)):
            out[r, 2 if p == h else self.table.get((p, h), 1)] = 1.0
        return out


def random_sets(seed: int, n_sets: int = 40) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    words = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta"]
    sets = []
    for _ in range(n_sets):
        k = int(rng.integers(1, 9))
        sets.append([" ".join(rng.choice(words, size=2)) for _ in range(k)])
    return sets


@pytest.mark.parametrize("judge,strict", [("nli", True), ("nli-relaxed", False)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_count_weighted_equals_the_reference_on_the_same_labels(judge, strict, seed):
    sets = random_sets(seed)
    got = semantic_entropy(sets, judge, nli_model=HashNLI())
    for g, s in enumerate(sets):
        ids = ref_get_semantic_ids(s, HashNLI.label, strict)
        assert labels_of(got, g) == ids
        assert got.items[g] == pytest.approx(ref_cluster_assignment_entropy(ids), abs=1e-12)
        assert got.details["classes"][g] == max(ids) + 1
    assert got.value == pytest.approx(np.mean(got.items), abs=1e-15)
    assert f"judge:{'nli-bidirectional' if strict else 'nli-relaxed'}:hash-nli:0001" in (
        got.signature
    )
    assert "p:count" in got.signature and "log:e" in got.signature


@pytest.mark.parametrize("judge,strict", [("nli", True), ("nli-relaxed", False)])
@pytest.mark.parametrize("seed", [3, 4])
def test_likelihood_weighted_equals_the_reference(judge, strict, seed):
    sets = random_sets(seed)
    rng = np.random.default_rng(seed)
    logprobs = [list(rng.uniform(-6, -0.1, size=len(s))) for s in sets]
    got = semantic_entropy(sets, judge, nli_model=HashNLI(), logprobs=logprobs)
    for g, s in enumerate(sets):
        ids = ref_get_semantic_ids(s, HashNLI.label, strict)
        want = ref_predictive_entropy_rao(ref_logsumexp_by_id(ids, logprobs[g]))
        assert got.items[g] == pytest.approx(want, abs=1e-12)
    assert "p:likelihood" in got.signature


def test_likelihood_weights_from_the_definition_and_without_underflow():
    """p(c) = sum_{i in c} exp(l_i) / sum_j exp(l_j), written out; sequence log-probabilities of
    -800 (exp underflows to 0 in the reference's naive sums) give the same entropy as -0.8 shifted
    by the same constant, since only the differences matter."""
    judge = lambda a, b: a.split()[0] == b.split()[0]  # noqa: E731
    s = ["a x", "a y", "b z", "c w", "b v"]
    lp = [-1.0, -2.0, -0.5, -3.0, -1.5]
    mass = {"a": math.exp(-1) + math.exp(-2), "b": math.exp(-0.5) + math.exp(-1.5)}
    mass["c"] = math.exp(-3)
    total = sum(mass.values())
    want = -sum(m / total * math.log(m / total) for m in mass.values())
    got = semantic_entropy([s], judge, logprobs=[lp])
    assert got.value == pytest.approx(want, abs=1e-12)
    shifted = semantic_entropy([s], judge, logprobs=[[x - 800 for x in lp]])
    assert shifted.value == pytest.approx(want, abs=1e-9)
    # equal probabilities: the count-weighted value
    flat = semantic_entropy([s], judge, logprobs=[[-2.0] * 5])
    assert flat.value == pytest.approx(semantic_entropy([s], judge).value, abs=1e-12)


def test_the_two_rules_differ_where_one_direction_entails_and_the_other_is_neutral():
    # (a, b): entailment one way, neutral the other; (a, c): entailment both ways;
    # (a, d): both neutral; (a, e): entailment one way, contradiction the other
    table = {
        ("a", "b"): 2,
        ("b", "a"): 1,
        ("a", "c"): 2,
        ("c", "a"): 2,
        ("a", "e"): 2,
        ("e", "a"): 0,
    }
    rule = {True: ("nli", [0, 0]), False: ("nli-relaxed", [0, 0])}
    for pair, relaxed_same, strict_same in [
        (["a", "b"], True, False),
        (["a", "c"], True, True),
        (["a", "d"], False, False),
        (["a", "e"], False, False),
    ]:
        for strict in (True, False):
            spec = rule[strict][0]
            got = semantic_entropy([pair], spec, nli_model=TableNLI(table))
            same = strict_same if strict else relaxed_same
            assert labels_of(got, 0) == ([0, 0] if same else [0, 1])
            lab = ref_get_semantic_ids(
                pair, lambda p, h: 2 if p == h else table.get((p, h), 1), strict
            )
            assert labels_of(got, 0) == lab
            assert got.value == pytest.approx(0.0 if same else math.log(2), abs=1e-12)


def test_a_response_equivalent_to_two_openers_joins_the_later_one():
    """The reference overwrites: c is equivalent to both a and b (a and b are not), so it ends in
    b's class, where NoveltyBench's partition (equivalence-classes) keeps the first."""
    table = {(x, y): 2 for x, y in [("a", "c"), ("c", "a"), ("b", "c"), ("c", "b")]}
    table.update({("a", "b"): 0, ("b", "a"): 0})
    got = semantic_entropy([["a", "b", "c"]], "nli", nli_model=TableNLI(table))
    assert labels_of(got, 0) == [0, 1, 1]
    eq = diveval.score(
        [["a", "b", "c"]], ["equivalence-classes"], judge="nli", nli_model=TableNLI(table)
    )
    assert list(eq["equivalence-classes"].details["labels"][0]) == [0, 1, 0]


def test_semantic_ids_with_loops():
    eq = np.zeros((4, 4), dtype=bool)
    eq[0, 2] = eq[1, 2] = eq[0, 3] = True
    assert semantic_ids(eq) == [0, 1, 1, 0]


def test_the_batched_classes_equal_the_classes_of_the_full_verdict_matrix():
    """classes_of_sets asks only the reference's pairs, batched over sets: the same classes as
    semantic_ids on every pair's verdict, for random non-transitive judges."""
    rng = np.random.default_rng(5)
    for _ in range(30):
        sets = [[f"t{g}-{i}" for i in range(int(rng.integers(1, 8)))] for g in range(6)]
        verdict = {(a, b): bool(rng.random() < 0.4) for s in sets for a in s for b in s}
        judge = CachedJudge(CallableJudge(lambda a, b, v=verdict: v[a, b]))
        got = classes_of_sets(sets, judge)
        for g, s in enumerate(sets):
            eq = np.array([[verdict[a, b] for b in s] for a in s])
            assert got[g] == semantic_ids(eq)


def test_every_ordered_pair_goes_to_the_model_once_across_metrics():
    model = HashNLI()
    sets = [["one two", "three four", "five six"], ["seven", "eight", "seven", "nine"]]
    diveval.score(sets, ["semantic-entropy", "nli-baseline", "spectral-eigv"], nli_model=model)
    # positions i != j (NLI Diversity also asks about a repeated text against its copy)
    unique = {(s[i], s[j]) for s in sets for i in range(len(s)) for j in range(len(s)) if i != j}
    assert len(model.pairs_seen) == len(set(model.pairs_seen)) == len(unique)


def test_the_runs_settings_reach_the_judges_model(tmp_path):
    # the run's settings load the judge's model as equivalence-classes' do: its score cache is
    # written, in a run and in a direct call; a half precision the model cannot take is refused,
    # not run silently in fp32
    sets = [["one two", "three four", "one two"], ["five", "six"]]
    run = diveval.score(
        sets, ["semantic-entropy"], nli_model=HashNLI(), cache_dir=str(tmp_path / "run")
    )
    assert (tmp_path / "run" / "diveval-cache.sqlite").exists()
    direct = semantic_entropy(sets, nli_model=HashNLI(), cache_dir=str(tmp_path / "direct"))
    assert direct.value == run["semantic-entropy"].value
    assert (tmp_path / "direct" / "diveval-cache.sqlite").exists()
    with pytest.raises(InputError, match="precision bf16"):
        diveval.score(sets, ["semantic-entropy"], nli_model=HashNLI(), precision="bf16")
    with pytest.raises(InputError, match="precision bf16"):
        semantic_entropy(sets, nli_model=HashNLI(), precision="bf16")


def test_small_and_bad_inputs():
    assert semantic_entropy([["only one"]], "nli", nli_model=HashNLI()).value == 0.0
    with pytest.raises(InputError, match="set 1 is empty"):
        semantic_entropy([["a"], []], "nli", nli_model=HashNLI())
    with pytest.raises(InputError, match="2 responses but 1 logprobs"):
        semantic_entropy([["a", "b"]], "nli", nli_model=HashNLI(), logprobs=[[-1.0]])
    with pytest.raises(InputError, match="finite"):
        semantic_entropy([["a", "b"]], "nli", nli_model=HashNLI(), logprobs=[[-1.0, math.nan]])
    with pytest.raises(InputError, match="no logprobs"):
        semantic_entropy([["a"], ["b"]], "nli", nli_model=HashNLI(), logprobs=[[-1.0], None])
    with pytest.raises(InputError, match="nli-relaxed"):
        parse_judge("nli-strictish")
    with pytest.raises(InputError, match="no threshold"):
        parse_judge("nli-relaxed:0.5")


def test_logprobs_from_a_jsonl_file_follow_their_responses(tmp_path):
    """The reader drops an empty response and its log-probability together; the CLI passes the
    field on, and the value is the API's on the same numbers."""
    path = tmp_path / "in.jsonl"
    same, again = "the cat sat on the mat today", "the cat sat on the mat today again"
    other = "a completely different answer to it"
    rows = [
        {"responses": [same, " ", again, other], "logprobs": [-1.0, -9.0, -2.0, -0.5]},
        {"responses": [same, other], "logprobs": [-1.0, -3.0]},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    data = diveval.read(str(path))
    assert data.records[0]["logprobs"] == [-1.0, -2.0, -0.5]
    judge = "bleu:0.3"
    want = semantic_entropy(data.items, judge, logprobs=[[-1.0, -2.0, -0.5], [-1.0, -3.0]])
    assert [labels_of(want, g) for g in range(2)] == [[0, 0, 1], [0, 1]]
    want = want.value
    out = subprocess.run(
        [sys.executable, "-m", "diveval", "score", str(path), "-m", "semantic-entropy"]
        + ["--judge", judge, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(out.stdout)["scores"]["semantic-entropy"]
    assert got["value"] == pytest.approx(want, abs=1e-12)
    assert "p:likelihood" in got["signature"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"responses": ["a", "b"], "logprobs": [-1.0]}) + "\n")
    with pytest.raises(InputError, match="1 numbers for 2 responses"):
        diveval.read(str(bad))


def test_shards_of_sets_with_logprobs_join_to_the_one_run(tmp_path):
    """--shard / merge: each shard gets its own sets' logprobs; the joined values and the
    per-set details equal one run's (with the spectral and Hill rows beside it)."""
    path = tmp_path / "in.jsonl"
    rng = np.random.default_rng(9)
    words = ["the cat sat", "on the mat", "a dog ran", "in the park", "the cat ran"]
    rows = []
    for _ in range(5):
        k = int(rng.integers(1, 6))
        texts = [" ".join(rng.choice(words, size=2)) for _ in range(k)]
        rows.append({"responses": texts, "logprobs": list(rng.uniform(-5, 0, size=k))})
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    metrics = ["-m", "semantic-entropy", "-m", "similarity-hill", "-m", "spectral-eigv"]
    flags = ["--judge", "bleu:0.3", "--similarity", "jaccard"]
    cli = [sys.executable, "-m", "diveval"]

    def run(*args):
        return subprocess.run([*cli, *args], capture_output=True, text=True, check=True).stdout

    whole = json.loads(run("score", str(path), *metrics, *flags, "--json", "--items"))
    states = []
    for i in range(2):
        state = tmp_path / f"s{i}"
        run("score", str(path), *metrics, *flags, "--shard", f"{i}/2", "--state", str(state))
        states.append(str(state))
    joined = json.loads(run("merge", *states, "--json", "--items"))
    for name, want in whole["scores"].items():
        got = joined["scores"][name]
        assert got["signature"] == want["signature"]
        assert got["value"] == pytest.approx(want["value"], abs=1e-12)
        assert got["items"] == pytest.approx(want["items"], abs=1e-12)
        assert got.get("details", {}).keys() == want.get("details", {}).keys()
    assert (
        joined["scores"]["semantic-entropy"]["details"]["labels"]
        == (whole["scores"]["semantic-entropy"]["details"]["labels"])
    )


def test_equivalence_classes_takes_the_relaxed_rule_too():
    table = {("a", "b"): 2, ("b", "a"): 1}
    assert parse_judge("nli-relaxed") == ("nli-relaxed", None)
    got = diveval.score(
        [["a", "b"]], ["equivalence-classes"], judge="nli-relaxed", nli_model=TableNLI(table)
    )
    assert got["equivalence-classes"].value == 1.0
    assert "judge:nli-relaxed:table-nli:0002" in got["equivalence-classes"].signature
    strict = diveval.score(
        [["a", "b"]], ["equivalence-classes"], judge="nli", nli_model=TableNLI(table)
    )
    assert strict["equivalence-classes"].value == 2.0
