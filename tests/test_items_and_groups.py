"""score --items FILE / --by COLUMN / --summary FILE, and their output feeding `correlate`."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

import diveval
from diveval.cli import main


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def systems(tmp_path):
    rows = []
    sets = {
        "a": [["the cat sat", "the cat sat"], ["a dog", "a dog ran"], ["hi", "hi there"]],
        "b": [["the cat sat", "a bird flew"], ["red sky", "blue sea"], ["one two", "three four"]],
        "c": [["the cat", "the dog"], ["a b c", "a b d"], ["x y", "x z"]],
    }
    human = {"a": [1.0, 2.0, 1.5], "b": [4.0, 5.0, 4.5], "c": [3.0, 2.5, 3.5]}
    for system in ("a", "b", "c"):
        for i, s in enumerate(sets[system]):
            rows.append({"id": i, "system": system, "human": human[system][i], "responses": s})
    path = tmp_path / "systems.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path, sets, human


def test_items_file_has_one_row_per_set_with_the_record_fields(capsys, tmp_path, systems):
    path, sets, _ = systems
    out = tmp_path / "items.csv"
    code, _, _ = run(capsys, "score", path, "-m", "distinct-1", "-m", "self-bleu", "--items", out)
    assert code == 0
    rows = list(csv.DictReader(out.open()))
    assert [r["system"] for r in rows] == ["a"] * 3 + ["b"] * 3 + ["c"] * 3
    assert [int(r["_line"]) for r in rows] == list(range(1, 10))
    want = diveval.score(sets["a"] + sets["b"] + sets["c"], ["distinct-1"])["distinct-1"].items
    assert [float(r["distinct-1"]) for r in rows] == pytest.approx(list(want))
    out_jsonl = tmp_path / "items.jsonl"
    run(capsys, "score", path, "-m", "distinct-1", "--items", out_jsonl)
    first = json.loads(out_jsonl.read_text().splitlines()[0])
    assert first["human"] == 1.0 and "responses" not in first


def test_by_scores_each_group_and_summary_feeds_correlate(capsys, tmp_path, systems):
    path, sets, human = systems
    summary = tmp_path / "systems.csv"
    code, out, _ = run(capsys, "score", path, "-m", "distinct-2", "--by", "system",
                       "--summary", summary, "--json")  # fmt: skip
    assert code == 0
    groups = json.loads(out)["groups"]
    for system in ("a", "b"):
        want = diveval.score(sets[system], ["distinct-2"])["distinct-2"].value
        assert groups[system]["scores"]["distinct-2"]["value"] == pytest.approx(want)
    rows = {r["system"]: r for r in csv.DictReader(summary.open())}
    assert float(rows["b"]["human"]) == pytest.approx(sum(human["b"]) / 3)
    assert int(rows["a"]["_n"]) == 3
    code, out, _ = run(capsys, "correlate", summary, "--human", "human", "--resamples", "0",
                       "-m", "distinct-2", "--json")  # fmt: skip
    assert code == 0 and json.loads(out)["rows"] == 3
    code, table, _ = run(capsys, "score", path, "-m", "distinct-2", "--by", "system")
    assert "a (n=3)" in table and "b (n=3)" in table


def test_bad_group_and_output_arguments(capsys, tmp_path, systems):
    path, _, _ = systems
    code, _, err = run(capsys, "score", path, "--by", "model")
    assert code == 2 and "no field 'model' to group by" in err
    code, _, err = run(capsys, "score", path, "--summary", tmp_path / "s.csv")
    assert code == 2 and "add --by COLUMN" in err
    code, _, err = run(capsys, "score", path, "-m", "distinct-1", "--items", tmp_path / "x.xlsx")
    assert code == 2 and "per-item output must end in .jsonl, .ndjson, .json, .csv or .tsv" in err


def test_by_prints_one_warning_per_kind_naming_its_groups(capsys, tmp_path):
    # a set of two short responses gzips to more bytes than it has: compression-ratio warns for
    # it; systems s0..s2 have 1, 2 and 3 such sets, s3 none (long, repetitive answers)
    long = ["the cat sat on the mat " * 20, "the dog sat on the mat " * 20]
    rows = []
    for s in range(4):
        for i in range(4):
            responses = ["hi", "yo"] if i < s + 1 and s < 3 else long
            rows.append({"id": i, "system": f"s{s}", "responses": responses})
    path = tmp_path / "systems.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, _, err = run(capsys, "score", path, "-m", "compression-ratio", "--by", "system")
    assert code == 0
    lines = [line for line in err.splitlines() if "warning" in line]
    assert len(lines) == 1, err
    assert "compression-ratio (system: s0, s1, s2; 3 of 4)" in lines[0]
    assert "1 to 3 of 4 sets have a ratio below 1" in lines[0]
    # without --by the same warning reads as before, without a group
    code, _, err = run(capsys, "score", path, "-m", "compression-ratio")
    lines = [line for line in err.splitlines() if "warning" in line]
    assert len(lines) == 1 and lines[0].startswith(
        "diveval: warning: compression-ratio: 6 of 16 sets have a ratio below 1"
    )


def test_a_score_read_back_from_its_json_is_the_score():
    """``Score.from_dict`` reads what ``to_dict`` wrote (the report's typed reading of
    ``score --json``): value, signature, setting, items (None back to NaN) and details."""
    import json as _json

    from diveval.results import Score

    got = diveval.score([["a b", "a c"], ["b b", "c d e"]], ["distinct-1"])["distinct-1"]
    back = Score.from_dict(_json.loads(_json.dumps(got.to_dict(with_items=True))))
    assert (back.metric, back.value, back.signature, back.setting) == (
        got.metric,
        got.value,
        got.signature,
        got.setting,
    )
    assert back.items.tolist() == got.items.tolist()
    nan = Score.from_dict({"value": 1.0, "items": [None, 2.0]}, "m")
    assert nan.metric == "m" and np.isnan(nan.items[0]) and nan.items[1] == 2.0
    for bad in ({}, {"value": "1"}, {"value": True}):
        with pytest.raises(ValueError):
            Score.from_dict(bad)
