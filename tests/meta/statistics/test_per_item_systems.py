"""`compare` and `leaderboard` with per-item options (--classes, --quality): each system is scored
with its own records' stored classes, which stay with their set when prompts are resampled or
swapped; a per-item field of the wrong length is a one-line error."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from conftest import shared_path

from diveval.cli import main
from diveval.errors import InputError
from diveval.meta.statistics.systems import System

STORED = ["-m", "equivalence-classes", "--classes", "partition"]


def _write(path, records) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def test_leaderboard_ranks_the_mean_number_of_stored_classes(capsys):
    root = shared_path("novelty-bench", "curated")
    files = sorted(root.glob("*/*/scores.jsonl"))[:3]
    if len(files) < 3:
        pytest.skip("fewer than 3 NoveltyBench files in the shared data")
    argv = ["leaderboard", *map(str, files), *STORED, "--quality", "generation_scores"]
    assert main([*argv, "--resamples", "200", "--json"]) == 0
    got = {s["system"]: s["value"] for s in json.loads(capsys.readouterr().out)["systems"]}
    assert len(got) == 3
    for path in files:
        records = [json.loads(line) for line in path.read_text().splitlines()]
        expected = np.mean([len(set(r["partition"])) for r in records])
        # the systems are named by the part of the path that tells them apart: <model>
        assert got[path.parent.name] == pytest.approx(expected, abs=1e-12), path


def test_swapped_prompts_keep_their_sets_stored_classes(tmp_path, capsys):
    # the two systems answer alike and differ only in their stored classes, so every difference
    # comes from the labels: scored with the baseline's labels for both, all would be 0
    texts = ["a", "b", "c", "d"]
    base_labels = [[0, 0, 0, 0]] * 4 + [[0, 0, 1, 1]] * 4  # 1 or 2 classes
    cand_labels = [[0, 1, 2, 3], [0, 1, 2, 2], [0, 0, 1, 1], [0, 0, 0, 0]] + [
        [0, 1, 2, 2],
        [0, 1, 2, 3],
        [0, 0, 0, 0],
        [0, 1, 2, 3],
    ]

    def records(labels):
        return [{"id": f"p{i}", "generations": texts, "partition": x} for i, x in enumerate(labels)]

    base = _write(tmp_path / "base.jsonl", records(base_labels))
    cand = _write(tmp_path / "cand.jsonl", records(cand_labels))
    assert main(["compare", base, cand, *STORED, "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    # by hand: the per-prompt differences of the numbers of classes, and the exact sign-flip
    # test over all 2**8 swaps of the two systems' (set, labels) pairs
    d = np.array([len(set(c)) - len(set(b)) for b, c in zip(base_labels, cand_labels)], float)
    assert d.tolist() == [3, 2, 1, 0, 1, 2, -1, 2]
    assert row["baseline_value"] == pytest.approx(np.mean([len(set(b)) for b in base_labels]))
    assert row["candidate_value"] == pytest.approx(np.mean([len(set(c)) for c in cand_labels]))
    assert row["difference"] == pytest.approx(d.mean(), abs=1e-12)
    flipped = [abs(np.dot(s, d)) / d.size for s in itertools.product((1, -1), repeat=d.size)]
    p = np.mean([f >= abs(d.mean()) - 1e-12 for f in flipped])
    assert row["p_value"] == pytest.approx(p, abs=1e-12)
    assert p < 1  # the labels make the two systems differ: not the p of identical systems


def test_a_per_item_field_of_the_wrong_length_is_one_line(tmp_path, capsys):
    good = [{"id": f"p{i}", "generations": ["a", "b"], "partition": [0, 1]} for i in range(6)]
    bad = [dict(r) for r in good]
    bad[2]["partition"] = [0, 1, 2]
    a, b = _write(tmp_path / "a.jsonl", good), _write(tmp_path / "b.jsonl", bad)
    for command in ("compare", "leaderboard"):
        assert main([command, a, b, *STORED]) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err
        assert f"{b}:3" in err and '"partition" has 3 entries for 2 responses' in err


def test_a_system_refuses_per_item_values_not_one_per_item():
    with pytest.raises(InputError, match="s: 1 entries of classes for 2 items"):
        System("s", ("p1", "p2"), [["a"], ["b"]], per_item={"classes": ([0],)})


def test_reading_systems_returns_what_it_would_say(tmp_path, capsys):
    """The library reads and says nothing itself: the empty responses left out and the records
    whose distinct disagrees with their classes come back as lines for the command to print."""
    from diveval.meta.statistics.systems import read_systems

    rows = [
        {"id": "p1", "responses": ["a b", "a b"], "partition": [0, 0], "distinct": 0},
        {"id": "p2", "responses": ["c", "d"], "partition": [0, 1], "distinct": 0},
    ]
    a = _write(tmp_path / "a.jsonl", rows)
    b = _write(tmp_path / "b.jsonl", rows)
    systems, match, notes = read_systems([a, b], stored={"classes": "partition"})
    assert capsys.readouterr() == ("", "")
    assert [s.name for s in systems] == ["a", "b"] and match == "id"
    assert systems[0].per_item["classes"] == ([0, 0], [0, 1])
    assert [n.split(":")[:3] for n in notes] == [["diveval", " warning", f" {a}"]] + [
        ["diveval", " warning", f" {b}"]
    ]
    assert f'{a}:2: "distinct" is 0, but "partition" has 2 classes' in notes[0]
    rows[0]["responses"] = ["a b", ""]
    c = _write(tmp_path / "c.jsonl", rows)
    _, _, notes = read_systems([c, b])
    assert notes == [f"diveval: note: {c}: skipped 1 empty response (line 1)"]
