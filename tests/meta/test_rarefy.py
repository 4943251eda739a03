"""`diveval rarefy` and ``diveval.rarefy``: a system's sets rarefied and extrapolated."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

import diveval
from diveval.errors import InputError

SETS = [
    ["the cat sat", "the cat ran", "a dog sat down", "the cat sat", "birds fly high", "a dog"],
    ["hello there", "hello there friend", "hi", "good day to you", "hello", "hi there"],
    ["yes", "yes", "yes yes", "no", "yes", "no way"],
]


def first_word(a: str, b: str) -> bool:
    """A judge that is an equivalence relation: same first word."""
    return a.split()[0] == b.split()[0]


def _classes(s):
    firsts = list(dict.fromkeys(t.split()[0] for t in s))
    return np.bincount([firsts.index(t.split()[0]) for t in s])


def test_classes_at_k_are_the_expected_classes_of_every_subset():
    for k in (2, 3, 6):
        r = diveval.rarefy(SETS, "classes", judge=first_word, at_k=k, rarefy_resamples=20)
        assert [x.q for x in r] == [0, 1, 2] and r[0].name == "classes-richness"
        brute = np.mean(
            [
                np.mean([len({t.split()[0] for t in sub}) for sub in itertools.combinations(s, k)])
                for s in SETS
            ]
        )
        assert r[0].value == pytest.approx(brute, rel=1e-12)
    assert r[0].value == pytest.approx(
        diveval.score(SETS, ["equivalence-classes"], judge=first_word)["equivalence-classes"].value
    )
    assert "at-k:6" in r[0].signature and "measure:classes" in r[0].signature


def test_classes_extrapolation_equals_copia_on_the_class_sizes():
    pytest.importorskip("copia", reason="copia 0.1.4 is the reference (test extra)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import copia.stats
    s = SETS[0] + ["a cat", "birds", "the end", "zebra"]
    r = diveval.rarefy([s], "classes", judge=first_word, sizes=range(1, 25), rarefy_resamples=20)
    theirs = copia.stats.rarefaction_extrapolation(_classes(s), 25)
    np.testing.assert_allclose(r[0].curve.value, theirs, atol=1e-9)


def test_ngrams_below_the_set_size_are_the_exact_distinct_counts():
    r = diveval.rarefy(SETS, "2-grams", at_k=4, rarefy_resamples=20)
    assert len(r) == 1 and r[0].name == "2-grams-richness"
    exact = diveval.score(SETS, ["distinct-2"], at_k=4)["distinct-2"]
    assert r[0].value == pytest.approx(exact.details["expected_distinct_ngrams"].mean(), rel=1e-12)
    # past the sets' size: Chao et al.'s sample-based extrapolation, units = responses
    far = diveval.rarefy(SETS, "2-grams", at_k=12, rarefy_resamples=20)[0]
    assert far.value >= r[0].value


def test_bad_input():
    with pytest.raises(InputError, match="unknown measure"):
        diveval.rarefy(SETS, "words")
    with pytest.raises(InputError, match="at least 2 responses"):
        diveval.rarefy([["a", "b"], ["c"]], "1-grams")
    with pytest.raises(InputError, match="orders 0"):
        diveval.rarefy(SETS, "1-grams", orders=[1])


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "diveval", *args], capture_output=True, text=True)


def test_cli_json_and_report(tmp_path):
    path = tmp_path / "sets.jsonl"
    rows = [
        {"system": sys_, "prompt": f"p{i}", "responses": s}
        for sys_ in ("a", "b")
        for i, s in enumerate(SETS if sys_ == "a" else [s[:4] for s in SETS])
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = _cli(
        "rarefy", str(path), "--by", "system", "--judge", "bleu", "--measure", "classes",
        "--measure", "1-grams", "--at-k", "8", "--rarefy-resamples", "30", "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    body = json.loads(out.stdout)
    entries = body["groups"]["b"]["rarefaction"]
    assert [(e["measure"], e["q"]) for e in entries] == [
        ("classes", 0), ("classes", 1), ("classes", 2), ("1-grams", 0)
    ]  # fmt: skip
    assert 8 in entries[0]["curve"]["sizes"] and entries[0]["at_k"] == 8
    low, high = entries[0]["interval"]
    assert low <= entries[0]["value"] <= high
    saved = tmp_path / "rarefy.json"
    saved.write_text(out.stdout)
    html = tmp_path / "r.html"
    rep = _cli("report", str(saved), str(path), "-o", str(html))
    assert rep.returncode == 0, rep.stderr
    page = html.read_text()
    assert "classes-richness (rarefaction and extrapolation)" in page
    assert "1-grams-richness" in page
    bad = _cli("rarefy", str(path), "--measure", "words")
    assert bad.returncode == 2 and "unknown measure" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_the_guide_commands_run_as_written(monkeypatch, capsys):
    """Each `diveval` line of the guide's sample-size section, from the project root."""
    import re
    from pathlib import Path

    from diveval.cli import main

    root = Path(__file__).resolve().parents[2]
    text = (root / "docs" / "guides" / "llm-sampling.md").read_text(encoding="utf-8")
    section = text.split("## Sample size")[1].split("\n## ")[0]
    commands = [
        line
        for block in re.findall(r"```bash\n(.*?)```", section, re.S)
        for line in block.splitlines()
        if line.startswith("diveval ")
    ]
    assert len(commands) == 2
    monkeypatch.chdir(root)
    for command in commands:
        assert main([*command.split()[1:], "--json"]) == 0, command
        body = json.loads(capsys.readouterr().out)
        assert "at-k:" in json.dumps(body)


def test_report_of_a_score_run_and_a_rarefy_run_together(tmp_path):
    path = tmp_path / "sets.jsonl"
    rows = [{"system": s, "responses": r} for s in ("a", "b") for r in SETS]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    runs = []
    for args in (
        ["score", str(path), "--by", "system", "-m", "distinct-2", "--at-k", "4", "--json"],
        ["rarefy", str(path), "--by", "system", "--measure", "1-grams", "--json"],
    ):
        out = _cli(*args)
        assert out.returncode == 0, out.stderr
        runs.append(tmp_path / f"{args[0]}.json")
        runs[-1].write_text(out.stdout)
    for order in (runs, runs[::-1]):
        html = tmp_path / "both.html"
        rep = _cli("report", *map(str, order), "-o", str(html))
        assert rep.returncode == 0, rep.stderr
        page = html.read_text()
        assert "1-grams-richness (rarefaction and extrapolation)" in page
        assert "at-k:4|at-k-by:exact" in page and "distinct-2" in page
