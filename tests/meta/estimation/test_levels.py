"""Reporting levels (Kirk et al. 2024): per-input, across-input, cross-model, on small inputs with
hand-checked values, and the CLI path."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from diveval.errors import InputError
from diveval.meta.estimation.levels import (
    across_input,
    cross_model,
    group_by_input,
    per_input,
    score_level,
)
from diveval.meta.statistics.bootstrap import bootstrap
from diveval.registry import get_metric


def test_per_input_by_hand():
    # distinct-1: {a b a c} 3/4, {x y x y} 2/4
    r = per_input("distinct-1", [["a b", "a c"], ["x y", "x y"]], n_resamples=200, seed=3)
    assert r.per_input.tolist() == [0.75, 0.5]
    assert r.value == pytest.approx(0.625)
    ref = bootstrap(lambda x: x.mean(axis=1), [0.75, 0.5], n_resamples=200, seed=3, vectorized=True)
    assert (r.interval.low, r.interval.high) == (ref.low, ref.high)
    assert 0.5 <= r.interval.low <= r.interval.high <= 0.75
    assert "level:per-input" in r.signature and r.signature.startswith("distinct|n:1")


def test_per_input_subsampling_is_seeded_and_averages_draws():
    sets = [["a", "a", "b"]]
    # k = 2: the pair {a, a} gives 1/2, the two pairs {a, b} give 1: expectation 5/6
    r = per_input("distinct-1", sets, k=2, draws=600, seed=1)
    assert r.value == pytest.approx(5 / 6, abs=0.03)
    again = per_input("distinct-1", sets, k=2, draws=600, seed=1)
    assert again.value == r.value
    one = per_input("distinct-1", sets, k=2, draws=1, seed=1)
    assert one.value in (0.5, 1.0)
    assert per_input("distinct-1", sets, k=3).value == pytest.approx(2 / 3, abs=1e-15)
    with pytest.raises(InputError, match="set 0 has 3 outputs, fewer than k = 4"):
        per_input("distinct-1", sets, k=4)
    assert "k:2" in r.signature and "draws:600" in r.signature


def test_across_input_by_hand():
    # one output per input: every draw is the corpus "a b", "a c", "d": 4 distinct of 5 tokens
    r = across_input("distinct-1", [["a b"], ["a c"], ["d"]], n_resamples=50)
    assert r.value == pytest.approx(0.8)
    assert (r.interval.low, r.interval.high) == pytest.approx((0.8, 0.8))
    assert "setting:corpus" in r.signature and "unit:corpus" in r.signature


def test_across_input_draws_one_output_per_input():
    sets = [["a", "b"], ["a", "b"]]
    r = across_input("distinct-1", sets, draws=400, n_resamples=100, seed=0)
    # the two outputs agree half of the time: 0.5 * 1/2 + 0.5 * 1 = 0.75
    assert r.value == pytest.approx(0.75, abs=0.04)
    assert set(np.round(r.details["draws"], 6)) <= {0.5, 1.0}
    assert r.interval.low == 0.5 and r.interval.high == 1.0


def test_across_input_of_a_sets_only_metric_is_one_set():
    sets = [["the cat sat"], ["a dog ran far"], ["the cat ran"]]
    r = across_input("cos-diversity", sets, draws=2, n_resamples=5)
    expected = get_metric("cos-diversity")([["the cat sat", "a dog ran far", "the cat ran"]])
    assert r.value == pytest.approx(expected.value)
    assert "unit:one-set" in r.signature


def test_cross_model_by_hand():
    outputs = {
        "p1": {"A": ["a b"], "B": ["a c"]},
        "p2": {"B": ["x"], "A": ["x"]},
        "p3": {"A": ["z"]},
    }
    r = cross_model("distinct-1", outputs, n_resamples=100)
    assert r.per_input.tolist() == [0.75, 0.5]
    assert r.value == pytest.approx(0.625)
    assert r.details["skipped_inputs"] == 1 and r.details["models"] == ["A", "B"]
    with pytest.raises(InputError, match="at least 2 models"):
        cross_model("distinct-1", {"p3": {"A": ["z"]}})


def test_group_by_input_and_errors():
    records = [
        {"prompt": "p", "model": "A", "_line": 1},
        {"prompt": "p", "model": "B", "_line": 2},
        {"prompt": "p", "model": "A", "_line": 3},
    ]
    groups = group_by_input(records, [["x"], ["y"], ["z"]])
    assert groups == {"p": {"A": ["x", "z"], "B": ["y"]}}
    with pytest.raises(InputError, match="line 2.*'model'"):
        group_by_input([{"prompt": "p", "model": "A"}, {"prompt": "p", "_line": 2}], [["x"], ["y"]])
    with pytest.raises(InputError, match="unknown level"):
        score_level("sideways", "distinct-1", [["a"]])


def _cli(*args):
    cmd = [sys.executable, "-m", "diveval", "score", *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True)


def test_cli_levels(tmp_path):
    f = tmp_path / "samples.jsonl"
    rows = [
        {"prompt": "p1", "model": "A", "responses": ["a b", "a c"]},
        {"prompt": "p1", "model": "B", "responses": ["a c"]},
        {"prompt": "p2", "model": "A", "responses": ["x y", "x y"]},
        {"prompt": "p2", "model": "B", "responses": ["x y"]},
    ]
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = _cli(f, "--level", "per-input", "-m", "distinct-1", "--json", "--items")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)["scores"]["distinct-1"]
    assert got["per_input"] == [0.75, 1.0, 0.5, 1.0]
    assert got["value"] == pytest.approx(0.8125)
    out = _cli(f, "--level", "cross-model", "-m", "distinct-1", "--json", "--level-draws", "50")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)["scores"]["distinct-1"]
    # p2: "x y" from both models: 0.5; p1: A picks "a b" (0.75) or "a c" (0.5) with B's "a c"
    assert 0.5 <= got["value"] <= 0.625
    out = _cli(f, "--level", "across-input", "-m", "distinct-1")
    assert out.returncode == 0 and "level across-input" in out.stdout
    bad = _cli(f, "--level", "per-input", "-m", "self-bleu")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert f"{f}:2:" in bad.stderr  # record 1 (line 2) has one response
