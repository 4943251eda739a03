"""The kinds of run of `diveval score`: each mode's module declares the flags it takes, and one
rule refuses the others before the input is read, naming the kinds of run that take them."""

from __future__ import annotations

import json

import pytest

from diveval import cli
from diveval.commands import score
from diveval.commands.score_modes import RUN_FLAGS, WHOLE

# each flag of RUN_FLAGS as given on the command line
GIVEN = {
    "--by": ["--by", "system"],
    "--summary": ["--summary", "s.csv"],
    "--items FILE": ["--items", "i.csv"],
    "--items": ["--items"],
    "--report": ["--report", "r.html"],
    "--at-k": ["--at-k", "2"],
    "--at-k-draws": ["--at-k-draws", "3"],
    "--at-k-seed": ["--at-k-seed", "3"],
    "--classes": ["--classes", "partition"],
    "--quality": ["--quality", "scores"],
    "--engine ray": ["--engine", "ray"],
    "--address": ["--address", "auto"],
    "--concurrency": ["--concurrency", "2"],
    "--num-gpus": ["--num-gpus", "1"],
    "--verbose": ["--verbose"],
}
# what chooses each mode on the command line
CHOOSE = {
    "--level": ["--level", "per-input"],
    "--across": ["--across"],
    "--stream-memory": ["--stream-memory", "1G"],
    "--shard": ["--shard", "0/2", "--state", "x.state"],
}


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_flag_and_mode_is_spelled_here():
    assert set(GIVEN) == set(RUN_FLAGS)
    assert set(CHOOSE) == {m.name for m in score.MODES}
    assert set(score.RUNS) == set(score.MODES)


@pytest.mark.parametrize("mode", score.MODES, ids=lambda m: m.name)
def test_a_flag_a_mode_does_not_take_is_refused_before_the_input_is_read(capsys, mode):
    refused = [f for f in RUN_FLAGS if f not in mode.takes]
    assert refused  # every mode leaves out some of a whole run's flags
    for flag in refused:
        takers = " or ".join(m.name for m in (WHOLE, *score.MODES) if flag in m.takes)
        argv = ["score", "no-such-file.jsonl", *CHOOSE[mode.name], *GIVEN[flag]]
        code, out, err = run(capsys, *argv)
        assert (code, out) == (2, ""), argv
        assert err == f"diveval: error: {flag} goes with {takers}: not with {mode.name}\n"


def test_two_modes_at_once_are_refused(capsys):
    code, _, err = run(capsys, "score", "x.jsonl", *CHOOSE["--level"], *CHOOSE["--shard"])
    assert code == 2
    assert err == "diveval: error: --level and --shard are two kinds of run: give one\n"


def test_flags_a_mode_takes_reach_it(capsys, tmp_path):
    """--across with --by and --items: the flags it declares are read, not refused."""
    path = tmp_path / "runs.jsonl"
    rows = [
        {"prompt": f"p{i}", "system": s, "responses": [f"{s} answer {i}", f"{s} other {i}"]}
        for i in range(3)
        for s in ("a", "b")
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    argv = ["score", path, "--by", "system", "--across", "--similarity", "exact"]
    code, out, err = run(capsys, *argv, "--resamples", "20", "--json", "--items")
    assert code == 0, err
    body = json.loads(out)
    assert body["by"] == "system" and "across" in body
    # the flags a whole run alone takes were dropped silently before: now refused
    code, _, err = run(capsys, *argv, "--at-k", "2")
    assert code == 2 and "--at-k goes with a whole run: not with --across" in err
