"""The `diveval` command: output, and one-line errors with exit status 2 for bad input."""

import json
import subprocess
import sys

import pytest

from diveval.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_score_corpus_table_and_json(capsys, examples_dir):
    code, out, _ = run(capsys, "score", str(examples_dir / "responses.txt"))
    assert code == 0 and "distinct-2" in out and "ead|n:1|V:30522" in out
    code, out, _ = run(
        capsys,
        "score",
        str(examples_dir / "sets.jsonl"),
        "--json",
        "-m",
        "distinct-1",
        "-m",
        "cos-diversity",
        "--items",
    )
    data = json.loads(out)
    assert data["setting"] == "sets" and data["items"] == 4
    assert set(data["scores"]) == {"distinct-1", "cos-diversity"}
    assert len(data["scores"]["distinct-1"]["items"]) == 4


def test_metrics_lists_the_registry(capsys):
    code, out, _ = run(capsys, "metrics", "--json")
    listed = json.loads(out)
    assert listed["self-bleu"]["direction"] == "lower"
    assert {m["direction"] for m in listed.values()} == {"higher", "lower"}
    assert code == 0 and {"distinct-1", "avg-distinct", "ead", "cos-diversity"} <= set(listed)


def test_csv_sets_in_tevet_format(tmp_path, capsys):
    f = tmp_path / "t.csv"
    f.write_text('context,resp_0,resp_1,label_value\nc,"a b",b c,1\n', encoding="utf-8")
    code, out, _ = run(capsys, "score", str(f), "--json", "-m", "distinct-1")
    assert code == 0 and json.loads(out)["scores"]["distinct-1"]["value"] == 0.75


BAD = [
    ("missing.txt", None, "no such file"),
    ("empty.txt", b"", "no responses"),
    ("bad.jsonl", b'{"responses": ["a"]}\n{"responses": [\n', "bad.jsonl:2: malformed JSON"),
    ("type.jsonl", b'{"responses": ["a", 3]}\n', 'type.jsonl:1: "responses"[1] must be a string'),
    ("nokey.jsonl", b'{"text": "a"}\n', "nokey.jsonl:1: record has neither"),
    ("latin1.txt", "ok\ncaf\u00e9\n".encode("latin-1"), "latin1.txt:2: not valid UTF-8"),
    ("cols.csv", b"a,b\n1,2\n", 'cols.csv:1: needs a "response" column'),
]


@pytest.mark.parametrize("name,content,message", BAD)
def test_bad_input_is_one_line_and_status_2(tmp_path, capsys, name, content, message):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    code, out, err = run(capsys, "score", str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_undefined_cases_and_unknown_names(tmp_path, capsys):
    f = tmp_path / "one.jsonl"
    f.write_text('{"responses": ["only one"]}\n', encoding="utf-8")
    code, _, err = run(capsys, "score", str(f), "-m", "cos-diversity")
    assert code == 2 and "set 0 has 1 response" in err
    code, _, err = run(capsys, "score", str(f), "-m", "no-such-metric")
    assert code == 2 and "unknown metric" in err
    code, _, err = run(capsys, "score", str(f), "--tokenizer", "nope")
    assert code == 2 and "unknown tokenizer" in err


def test_console_entry_point_runs_without_traceback(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "diveval", "score", str(bad)], capture_output=True, text=True
    )
    assert proc.returncode == 2 and "bad.jsonl:1" in proc.stderr and "Traceback" not in proc.stderr
    helped = subprocess.run(
        [sys.executable, "-m", "diveval", "score", "--help"], capture_output=True, text=True
    )
    assert helped.returncode == 0 and "examples:" in helped.stdout


def test_import_is_cheap():
    code = (
        "import sys, diveval; heavy = [m for m in ('torch', 'transformers', 'scipy', 'onnxruntime', "
        "'sentence_transformers', 'matplotlib') if m in sys.modules]; print(heavy)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stdout.strip() == "[]"


def test_default_metrics_undefined_on_the_input_are_skipped_and_said(tmp_path, capsys, monkeypatch):
    # regression: one set of one response failed the whole default run
    import diveval

    path = tmp_path / "sets.jsonl"
    path.write_text('{"responses": ["a b", "c d"]}\n{"responses": ["only one"]}\n')
    code, out, err = run(capsys, "score", str(path), "--json")
    data = json.loads(out)
    assert code == 0 and "distinct-1" in data["scores"] and "self-bleu" not in data["scores"]
    assert set(data["skipped_metrics"]) == {"cos-diversity", "self-bleu"}
    assert f"skipped default metric self-bleu: {path}:2: Self-BLEU needs" in err
    # named metrics still fail, with the file and line
    code, _, err = run(capsys, "score", str(path), "-m", "self-bleu")
    assert code == 2 and f"{path}:2: Self-BLEU needs at least 2" in err
    result = diveval.score([["a b", "c d"], ["only one"]])
    assert "distinct-2" in result and set(result.skipped) == {"cos-diversity", "self-bleu"}
    import diveval.registry

    monkeypatch.setattr(
        diveval.registry, "default_metrics", lambda s: ["self-bleu", "cos-diversity"]
    )
    with pytest.raises(diveval.InputError, match="no default metric is defined on this input"):
        diveval.score([["one"]])


def test_json_carries_per_item_arrays_only_with_items(capsys, examples_dir):
    # regression: Self-BLEU's --json carried per-sentence values without --items
    code, out, _ = run(
        capsys, "score", str(examples_dir / "sets.jsonl"), "-m", "self-bleu", "--json"
    )
    assert "details" not in json.loads(out)["scores"]["self-bleu"]
    code, out, _ = run(
        capsys, "score", str(examples_dir / "sets.jsonl"), "-m", "self-bleu", "--json", "--items"
    )
    assert len(json.loads(out)["scores"]["self-bleu"]["details"]["per_sentence"]) == 20
    code, _, err = run(capsys, "score", str(examples_dir / "sets.jsonl"), "--items")
    assert code == 2 and "--items without a FILE" in err


def test_no_library_progress_bars_or_logs_leak_to_stderr(examples_dir):
    # regression: transformers' "Loading weights" bar leaked into stderr
    proc = subprocess.run(
        [sys.executable, "-m", "diveval", "score", str(examples_dir / "sets.jsonl"),
         "-m", "sent-bert", "-m", "nli-baseline", "--quiet"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""


def test_quiet_turns_every_bar_off():
    from diveval import progress

    try:
        progress.set_quiet(True)
        assert not progress.bars_enabled(True)
    finally:
        progress.set_quiet(False)
    assert progress.bars_enabled(True) and not progress.bars_enabled(False)
