"""The CLI of scaling: score --shard/--state, merge, --stream-memory/--approx, --engine errors."""

from __future__ import annotations

import json

import pytest

from diveval.cli import main


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def scores_of(out):
    return {k: (v["value"], v["signature"]) for k, v in json.loads(out)["scores"].items()}


@pytest.mark.parametrize("name", ["sets.jsonl", "responses.txt"])
def test_shards_then_merge_print_the_one_process_json(capsys, examples_dir, tmp_path, name):
    source = examples_dir / name
    files = []
    for i in range(3):
        files.append(tmp_path / f"out.{i}.state")
        code, out, err = run(capsys, "score", source, "--shard", f"{i}/3", "--state", files[-1])
        assert code == 0 and f"shard {i}/3" in out
    code, merged, _ = run(capsys, "merge", *reversed(files), "--json")
    assert code == 0
    _, whole, _ = run(capsys, "score", source, "--json")
    assert "skipped" not in err  # every default metric has a state, corpus Self-BLEU included
    assert scores_of(merged) == scores_of(whole)


def test_streamed_scores_equal_the_in_memory_ones(capsys, examples_dir):
    source = examples_dir / "responses.txt"
    _, streamed, _ = run(
        capsys, "score", source, "--stream-memory", "256M", "-m", "distinct-2", "--json"
    )
    _, whole, _ = run(capsys, "score", source, "-m", "distinct-2", "--json")
    assert scores_of(streamed) == scores_of(whole)
    pytest.importorskip("datasketches")
    code, out, _ = run(
        capsys, "score", source, "--stream-memory", "256M", "--approx", "hll", "--json"
    )
    assert code == 0 and "approx:hll-14" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--shard", "0/2"], "--shard I/N and --state FILE go together"),
        (["--shard", "2/2", "--state", "x"], "--shard takes i/N"),
        (["--approx", "hll"], "--approx goes with --stream-memory"),
        (["--stream-memory", "lots"], "--stream-memory takes a size"),
        (["--concurrency", "2"], "go with --engine ray"),
        (["-m", "vendi-ngram", "--shard", "0/2", "--state", "x"], "no mergeable state"),
        (
            ["-m", "self-bleu", "--stream-memory", "1G"],
            "covers the metrics whose row names a one-pass",
        ),
        (
            ["--shard", "0/2", "--state", "x", "--items", "i.csv"],
            "--items FILE goes with a whole run: not with --shard",
        ),
        (
            ["--stream-memory", "1G", "--by", "system"],
            "--by goes with a whole run or --across: not with --stream-memory",
        ),
    ],
)
def test_bad_scale_arguments_exit_2_with_one_line(capsys, examples_dir, argv, message):
    code, _, err = run(capsys, "score", examples_dir / "responses.txt", *argv)
    assert code == 2 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_merge_refuses_an_incomplete_or_foreign_set_of_files(capsys, examples_dir, tmp_path):
    part = tmp_path / "p.0.state"
    run(capsys, "score", examples_dir / "sets.jsonl", "--shard", "0/2", "--state", part)
    code, _, err = run(capsys, "merge", part)
    assert code == 2 and "missing 1/2" in err
    code, _, err = run(capsys, "merge", examples_dir / "sets.jsonl")
    assert code == 2 and "not a diveval shard file" in err
