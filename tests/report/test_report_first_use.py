"""The report of the README's one-liner, as a first user meets it: the sets' responses read from
the input the run names, sections numbered without gaps, counts with their right noun, captions
that do not repeat an error's words, and systems drawn side by side without per-set values."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest


@pytest.fixture
def clone(tmp_path, examples_dir, monkeypatch) -> Path:
    """A working folder holding a copy of examples/, as the root of a clone."""
    shutil.copytree(examples_dir, tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _report(run_cli, *inputs: str) -> str:
    run_cli(["report", *inputs, "-o", "r.html"])
    return Path("r.html").read_text(encoding="utf-8")


def _headings(html: str) -> list[str]:
    return re.findall(r'<h2 id="[^"]*-h">(.*?)</h2>', html)


def test_the_readme_one_liner_shows_the_responses_of_the_input_the_run_names(clone, run_cli):
    """`score examples/sets.jsonl --json --items > run.json && report run.json`: the run names
    its input, so the report reads it (and hashes it), from the folder it was run in or beside
    the run file."""
    Path("run.json").write_text(
        run_cli(["score", "examples/sets.jsonl", "--json", "--items", "-m", "distinct-2"])
    )
    html = _report(run_cli, "run.json")
    assert "responses not in the inputs" not in html
    assert "how about visiting your parents ?" in html  # a response of the most diverse set
    digest = hashlib.sha256(Path("examples/sets.jsonl").read_bytes()).hexdigest()
    assert "scored input (named by the run)" in html and digest in html
    # the same two files moved elsewhere together: the input is found beside the run
    other = clone / "elsewhere"
    (other / "examples").mkdir(parents=True)
    shutil.copy("examples/sets.jsonl", other / "examples" / "sets.jsonl")
    shutil.copy("run.json", other / "run.json")
    Path("examples/sets.jsonl").unlink()
    html = _report(run_cli, str(other / "run.json"))
    assert "how about visiting your parents ?" in html


def test_a_field_the_run_read_is_read_again(clone, run_cli):
    recs = [json.loads(x) for x in Path("examples/sets.jsonl").read_text().splitlines()]
    Path("outs.jsonl").write_text(
        "".join(json.dumps({"prompt": r["context"], "outs": r["responses"]}) + "\n" for r in recs)
    )
    flags = ["--field", "outs", "--json", "--items", "-m", "distinct-1"]
    Path("run.json").write_text(run_cli(["score", "outs.jsonl", *flags]))
    html = _report(run_cli, "run.json")
    assert "responses not in the inputs" not in html and "let&#x27;s just sleep in ." in html


def test_an_input_changed_since_the_run_is_not_joined_and_the_cards_say_so(clone, run_cli):
    Path("run.json").write_text(
        run_cli(["score", "examples/sets.jsonl", "--json", "--items", "-m", "distinct-1"])
    )
    lines = Path("examples/sets.jsonl").read_text().splitlines()
    Path("examples/sets.jsonl").write_text("\n".join(lines[:2]) + "\n")
    html = _report(run_cli, "run.json")
    assert "examples/sets.jsonl, the run&#x27;s input, has changed since the run" in html


def test_sections_are_numbered_without_gaps_and_the_contents_match(clone, run_cli):
    """One metric: no agreement section (2.), yet the sets come 2nd, not 5th."""
    Path("run.json").write_text(
        run_cli(["score", "examples/sets.jsonl", "--json", "--items", "-m", "ead"])
    )
    html = _report(run_cli, "run.json")
    assert _headings(html) == [
        "1. Systems side by side",
        "2. The sets behind the numbers",
        "3. Provenance",
    ]
    toc = re.findall(r'<li><a href="#([^"]+)">(.*?)</a></li>', html)
    assert toc == [
        ("systems", "1. Systems side by side"),
        ("sets", "2. The sets behind the numbers"),
        ("provenance", "3. Provenance"),
    ]


def test_one_set_is_one_set(clone, run_cli):
    Path("one.jsonl").write_text(Path("examples/sets.jsonl").read_text().splitlines()[0] + "\n")
    Path("run.json").write_text(
        run_cli(["score", "one.jsonl", "--json", "--items", "-m", "distinct-1"])
    )
    html = _report(run_cli, "run.json")
    assert "1 set" in html
    assert not re.search(r"\b1 (sets|responses|systems)\b", html)
    assert "' set matches'" in html  # the search's live count


def test_a_chart_without_a_correlation_says_why_once(clone, run_cli):
    """Two systems with human scores: no correlation, and the caption says so without repeating
    the metric, the human column or n."""
    two = [x for x in Path("examples/systems.jsonl").read_text().splitlines() if "sys_c" not in x]
    Path("two.jsonl").write_text("\n".join(two) + "\n")
    run_cli(["score", "two.jsonl", "--by", "system", "--summary", "s.csv", "-m", "distinct-1"])
    html = _report(run_cli, "s.csv")
    (caption,) = re.findall(r"<figcaption>(distinct-1 per system.*?)</figcaption>", html)
    assert caption == "distinct-1 per system (2 systems): no correlation with fewer than 3 points"
    assert "complete pairs" not in html and "&#x27;distinct-1&#x27; vs" not in html


def test_by_results_without_items_still_draw_the_systems_side_by_side(clone, run_cli):
    flags = ["--by", "system", "--json", "-m", "distinct-1", "-m", "self-bleu"]
    Path("by.json").write_text(run_cli(["score", "examples/systems.jsonl", *flags]))
    html = _report(run_cli, "by.json")
    section = re.search(r'<section id="systems".*?</section>', html, re.S).group(0)
    charts = re.findall(r"<svg .*?</svg>", section, re.S)
    assert len(charts) == 2  # one per metric
    groups = json.loads(Path("by.json").read_text())["groups"]
    for chart, metric in zip(charts, ("distinct-1", "self-bleu")):
        assert chart.count("<circle") == 3  # a dot per system
        for system, body in groups.items():
            assert (
                f"{system} {body['scores'][metric]['value']:.4f}" in chart
            )  # its text alternative


def test_a_tevet_run_alone_is_a_table_of_its_tests(clone, run_cli):
    """`meta tevet --json` on its own (no human scatter before it): one row per test."""
    test = {"metric": "distinct-1", "n": 10, "human": None}
    test["parameter"] = {"spearman": {"value": 0.5, "interval": {"low": 0.1, "high": 0.8}}}
    Path("tevet.json").write_text(json.dumps({"tests": {"con_test.csv": [test]}}))
    html = _report(run_cli, "tevet.json")
    table = html.split("Tevet &amp; Berant tests")[1].split("</table>")[0]
    assert '<td>con_test.csv</td><th scope="row">distinct-1</th>' in table
    assert "0.50 [0.10, 0.80]" in table


def test_a_corpus_run_counts_responses_not_sets(clone, run_cli):
    Path("run.json").write_text(
        run_cli(["score", "examples/responses.txt", "--json", "--items", "-m", "self-bleu"])
    )
    html = _report(run_cli, "run.json")
    n = len(Path("examples/responses.txt").read_text().splitlines())
    assert f"<p>{n} responses; the 5 most and 5 least diverse by self-bleu" in html
    assert f"{n} sets" not in html
