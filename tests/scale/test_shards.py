"""--shard i/N runs merged equal the one-process run (values, per-set items, signatures)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_same_scores

import diveval
from diveval.errors import InputError
from diveval.scale.shards import ShardResult, merge_shards, parse_shard, score_shard, shard_slice

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sets.jsonl"


def run_sharded(data, names, count, tmp_path, **options):
    files = []
    for i in reversed(range(count)):  # any order
        path = tmp_path / f"out.{i}.state"
        score_shard(data, names, (i, count), **options).save(path)
        files.append(path)
    return merge_shards([ShardResult.load(p) for p in files])


@pytest.mark.parametrize("count", [1, 3, 7])
def test_sets_shards_merge_to_the_local_run(count, tmp_path):
    sets = [json.loads(line)["responses"] for line in EXAMPLE.read_text().splitlines()] * 3
    names = ["distinct-2", "ead", "self-bleu", "cos-diversity", "nli-counts", "nli-confidence"]
    names += ["sent-bert", "vendi", "vendi-ngram", "avg-distinct"]  # every sets family
    local = diveval.score(sets, names)
    merged = run_sharded(sets, names, count, tmp_path)
    assert_same_scores(local, merged)
    counts = merged["nli-counts"].details["counts"]
    assert np.array_equal(counts["entailment"], local["nli-counts"].details["counts"]["entailment"])
    assert np.array_equal(
        merged["distinct-2"].details["total_ngrams"], local["distinct-2"].details["total_ngrams"]
    )


def test_corpus_shards_merge_to_the_local_run(tmp_path):
    rng = random.Random(5)
    texts = [
        " ".join(rng.choices("a b c d e f g".split(), k=rng.randint(0, 9))) for _ in range(500)
    ]
    names = ["distinct-1", "distinct-3", "ead", "ead-2", "avg-distinct"]
    for options in ({}, {"lowercase": True, "vocab": 1000}):
        local = diveval.score(texts, names, **options)
        assert_same_scores(local, run_sharded(texts, names, 4, tmp_path, **options))


def test_corpus_metrics_whose_row_names_no_state_are_refused():
    with pytest.raises(InputError, match="vendi-ngram: no mergeable state"):
        score_shard(["a b", "b c"], ["distinct-1", "vendi-ngram"], (0, 2))


def test_shard_arguments_and_mismatched_files(tmp_path):
    assert parse_shard("2/4") == (2, 4)
    for bad in ("4/4", "-1/4", "1/0", "x"):
        with pytest.raises(InputError, match="--shard takes i/N"):
            parse_shard(bad)
    sizes = [shard_slice(10, i, 3) for i in range(3)]
    assert [list(range(10))[s] for s in sizes] == [[0, 1, 2], [3, 4, 5], [6, 7, 8, 9]]
    a = score_shard(["a b", "c d", "e"], ["distinct-1"], (0, 2))
    with pytest.raises(InputError, match="missing 1/2"):
        merge_shards([a])
    with pytest.raises(InputError, match=r"once: missing 1/2; shard 0/2 given twice$"):
        merge_shards([a, a])
    other = score_shard(["a b", "c d", "e"], ["distinct-1"], (1, 2), lowercase=True)
    with pytest.raises(InputError, match="--lowercase differs between shard 0/2"):
        merge_shards([a, other])
    junk = tmp_path / "junk.state"
    junk.write_bytes(b"\x00garbage")
    with pytest.raises(InputError, match="junk.state: not a diveval shard file"):
        ShardResult.load(junk)


def test_per_item_options_are_sliced_with_the_items(tmp_path):
    # LSDSCC: reference groups per set; the ref-* metrics: references per response
    sets = [["the cat sat", "a dog ran"], ["hello there", "hi"], ["good night", "see you"]] * 2
    groups = [[["the cat sat down"], ["a dog ran off", "dogs run"]], [["hello"], ["hi you"]],
              [["good night all"], ["see you soon"]]] * 2  # fmt: skip
    names = ["lsdscc-mds", "lsdscc-pds", "lsdscc-maxbleu"]
    local = diveval.score(sets, names, reference_groups=groups)
    assert_same_scores(local, run_sharded(sets, names, 4, tmp_path, reference_groups=groups))
    texts = ["the cat sat", "a dog ran", "hello there", "good night", "see you", "hi"]
    refs = [["the cat sat down"], ["a dog ran off"], ["hello"], ["night"], ["see you soon"], ["hi"]]
    names = ["ref-rouge-l", "ref-bleu-2", "distinct-1"]
    local = diveval.score(texts, names, references=refs, reduction="max")
    merged = run_sharded(texts, names, 3, tmp_path, references=refs, reduction="max")
    assert_same_scores(local, merged)


@pytest.mark.parametrize("smoothing", ["method1", None, "method7", "coco"])
def test_pooled_corpus_bleu_merges_from_summed_statistics(smoothing, tmp_path):
    rng = random.Random(11)
    words = "the a cat dog sat ran on mat off up".split()
    texts = [" ".join(rng.choices(words, k=rng.randint(1, 8))) for _ in range(40)]
    refs = [
        [" ".join(rng.choices(words, k=rng.randint(2, 9))) for _ in range(rng.randint(1, 3))]
        for _ in texts
    ]
    names = ["ref-bleu-2", "ref-bleu-4", "distinct-2"]
    options = {"references": refs, "smoothing": smoothing}
    local = diveval.score(texts, names, **options)
    # pooled BLEU is not the mean of the sentence values, so a join alone would differ
    assert local["ref-bleu-2"].value != pytest.approx(local["ref-bleu-2"].items.mean(), abs=1e-6)
    for count in (3, 64):  # 64 shards of 40 items: some shards are empty
        merged = run_sharded(texts, names, count, tmp_path, **options)
        assert_same_scores(local, merged)
        assert merged["ref-bleu-4"].value == local["ref-bleu-4"].value


def test_corpus_vendi_merges_from_gram_states(tmp_path):
    sets = [json.loads(line)["responses"] for line in EXAMPLE.read_text().splitlines()]
    texts = [t for s in sets for t in s] * 2  # repeats: the local run dedups, the Gram adds
    names = ["vendi", "distinct-1"]
    local = diveval.score(texts, names)
    assert_same_scores(local, run_sharded(texts, names, 3, tmp_path), tol=1e-9)


def test_joined_sets_carry_one_warning_with_the_whole_inputs_figures(tmp_path):
    # shards of sets gave one EAD warning per shard that warned, each with its own largest set;
    # a first shard without a warning dropped the others' (its keys led the join)
    sizes = [3, 3, 3, 3, 25, 3, 12, 30, 3]  # the largest set (30 tokens) is in the last shard
    sets = [[" ".join(f"s{i}w{j}" for j in range(n))] for i, n in enumerate(sizes)]
    local = diveval.score(sets, ["ead", "ead-2"], vocab=40)
    (warning,) = local["ead"].details["warnings"]
    assert warning.startswith("30 distinct tokens is 75% of the vocabulary size V = 40")
    merged = run_sharded(sets, ["ead", "ead-2"], 3, tmp_path, vocab=40)
    assert_same_scores(local, merged)
    assert merged["ead"].details["distinct_max"] == 30
    # 40**2 possible bigrams: far from the vocabulary (its one warning, the same as one
    # process gives, is that its never-repeating bigrams score above 1)
    (above_one,) = merged["ead-2"].details["warnings"]
    assert above_one.startswith("EAD is above 1 on 9 of 9 sets")


def test_ragged_per_set_details_go_through_shard_files(tmp_path):
    """Per-set details of varying length (a set's class labels) are no pickle in the file, and
    the run's mean of a per-set detail joins as a mean: shards merge to the one-process details."""
    sets = [["a b", "a b", "c d"], ["x", "y", "x", "z"], ["p q", "r s"], ["u v"] * 3]
    names = ["equivalence-classes", "semantic-entropy"]
    local = diveval.score(sets, names, judge="bleu")
    merged = run_sharded(sets, names, 3, tmp_path, judge="bleu")
    assert_same_scores(local, merged)
    for name in names:
        want, got = local[name].details, merged[name].details
        assert [list(x) for x in got["labels"]] == [list(x) for x in want["labels"]]
    eq_want, eq_got = local["equivalence-classes"].details, merged["equivalence-classes"].details
    assert eq_got["utility_mean"] == pytest.approx(eq_want["utility_mean"], rel=1e-12)
    assert np.allclose(eq_got["utility"], eq_want["utility"], rtol=0, atol=1e-12)


@pytest.mark.parametrize("setting_data", [["a b", "c d", "e"], [["a b", "c"], ["d e", "f"], ["g"]]])
def test_shards_scored_with_different_metrics_are_refused_naming_the_metric(tmp_path, setting_data):
    """Shard 0 with distinct-1, shard 1 with distinct-1 and distinct-2: merging used to print
    distinct-1 alone and drop distinct-2 without a word."""
    a = score_shard(setting_data, ["distinct-1"], (0, 2))
    b = score_shard(setting_data, ["distinct-1", "distinct-2"], (1, 2))
    a.save(tmp_path / "a.state")
    b.save(tmp_path / "b.state")
    files = [ShardResult.load(tmp_path / "a.state"), ShardResult.load(tmp_path / "b.state")]
    with pytest.raises(
        InputError,
        match=r"distinct-2 is in shard 1/2 \(.*b.state\) but not in "
        r"shard 0/2 \(.*a.state\)",
    ):
        merge_shards(files)
    with pytest.raises(InputError, match="distinct-2 is in shard 1/2"):
        merge_shards(files[::-1])


def test_shards_whose_metric_settings_differ_are_refused():
    """An option outside tokenizer/lowercase/vocab that changes a metric (compression-ratio's
    join order) shows in its signature: shards with different values are refused, not mixed."""
    sets = [["b a", "c"], ["d e", "f"], ["g h", "g"]]
    a = score_shard(sets, ["compression-ratio"], (0, 2), join="given")
    b = score_shard(sets, ["compression-ratio"], (1, 2), join="sorted")
    with pytest.raises(InputError, match="compression-ratio was scored with different settings"):
        merge_shards([a, b])
    same = score_shard(sets, ["compression-ratio"], (1, 2), join="given")
    assert merge_shards([a, same])["compression-ratio"].value == pytest.approx(
        diveval.score(sets, ["compression-ratio"], join="given")["compression-ratio"].value
    )
