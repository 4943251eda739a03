"""Messages a newcomer met and could not act on: argparse's jargon for a bad count, an --at-k
error without its file, a tokenizer warning that misdescribed zh, and the long "EAD above 1"
paragraph after every wrong-tokenizer warning."""

from __future__ import annotations

import json

import pytest

from diveval.cli import main
from diveval.text.language import script_warning
from diveval.text.tokenizers import get_tokenizer

JAPANESE = [
    "今日はとても良い天気ですね。",
    "明日は雨が降るそうです。",
    "この本はとても面白かったです。",
    "私は毎朝コーヒーを飲みます。",
]


def run(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("value", ["0", "-3", "x"])
def test_a_count_below_one_says_so_plainly(capsys, examples_dir, value):
    code, _, err = run(capsys, "rarefy", examples_dir / "sets.jsonl", "--at-k", value)
    assert code == 2
    assert f"argument --at-k: must be a positive integer, got '{value}'" in err
    assert "positive_int" not in err


def _sets(path, sizes):
    rows = [
        {"prompt": f"p{i}", "responses": [f"w{i} x{j} y{j * i}" for j in range(k)]}
        for i, k in enumerate(sizes)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_compare_at_k_names_the_file_and_line_of_a_small_set(capsys, tmp_path):
    a = _sets(tmp_path / "a.jsonl", [4, 4, 4, 2, 4, 4])
    b = _sets(tmp_path / "b.jsonl", [4] * 6)
    for args in ([a, b], [b, a]):
        code, _, err = run(capsys, "compare", *args, "--at-k", "3", "-m", "distinct-1")
        assert code == 2
        assert f"{a}:4: set 3 has 2 responses, fewer than --at-k 3" in err


def test_the_zh_warning_says_what_zh_does():
    warning = script_warning(tuple(JAPANESE), get_tokenizer("zh"))
    assert warning is not None and "Japanese (Kana script)" in warning
    # sacrebleu's zh splits every CJK character off and leaves the rest to 13a's rules: the
    # kana runs between them, not whole runs between spaces, are its tokens
    assert "each Han character its own token" in warning and "13a" in warning
    assert "reads each run between spaces" not in warning
    plain = script_warning(tuple(JAPANESE), get_tokenizer("whitespace"))
    assert plain is not None and "reads each run between spaces as one token" in plain


def test_ead_above_one_is_short_after_a_tokenizer_warning(capsys, tmp_path):
    path = tmp_path / "ja.txt"
    path.write_text("\n".join(JAPANESE) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "score", path, "-m", "ead")
    assert code == 0
    lines = err.splitlines()
    assert "written without spaces between words" in lines[0]  # the cause, first
    assert lines[1].startswith("diveval: warning: ead: EAD is above 1 on the corpus")
    assert "whole runs of text" in lines[1] and "below C for any C >= 2" not in err


def test_the_reason_of_ead_above_one_is_said_once_a_run(capsys, tmp_path):
    sets = {"a": [["x y", "z w"], ["q r"]], "b": [["x y z"]]}  # above 1 on 2 sets, on 1
    rows = [{"system": s, "responses": r} for s, rs in sets.items() for r in rs]
    path = tmp_path / "systems.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, _, err = run(capsys, "score", path, "-m", "ead", "--by", "system")
    assert code == 0
    above = [line for line in err.splitlines() if "EAD is above 1" in line]
    # one line for the kind, naming both systems, and its reason once
    assert len(above) == 1 and "(system: a, b; 2 of 2)" in above[0]
    assert err.count("below C for any C >= 2") == 1


def test_a_repeated_prompt_names_its_file_once(capsys, tmp_path):
    path = _sets(tmp_path / "dup.jsonl", [3, 3, 3])
    path.write_text(path.read_text() + path.read_text().splitlines()[0] + "\n")
    code, _, err = run(capsys, "compare", path, path, "-m", "distinct-1")
    assert code == 2 and "prompt 'p0' appears more than once" in err
    assert err.count(str(path)) == 1, err
