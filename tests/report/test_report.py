"""`diveval report` without a browser: inputs recognised by content, one-line errors, the page's
content (directions, best systems, intervals, sections present only with their data)."""

from __future__ import annotations

import csv
import hashlib
import json
import re
import shutil

import pytest

from diveval.cli import main
from diveval.report.inputs import collect

SYSTEMS = ("s0", "s1", "s2")  # the study fixture's systems, least diverse first


def fail(argv, capsys) -> str:
    """The one-line error of a command that must exit 2 without a traceback."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_every_input_is_recognised_by_its_content_not_its_name(study, tmp_path):
    renamed = []
    for name, path in study.items():
        # a name that says nothing: only the content can tell what the file is
        target = tmp_path / f"input-{len(renamed)}{'.csv' if path.suffix == '.csv' else '.dat'}"
        shutil.copy(path, target)
        renamed.append((name, str(target)))
    got = collect([p for _, p in renamed], ["distinct-1", "distinct-2", "ead", "self-bleu"])
    kinds = {f.path: f.kind for f in got.files}
    want = {
        "sets": "responses",
        "run": "score-by",
        "summary": "summary",
        "items": "items",
        "correlate": "correlate",
        "length-bias": "length-bias",
        "human": "rate-systems",
        "human-sets": "rate-sets",
        "raters": "raters",
    }
    assert {name: kinds[p] for name, p in renamed} == want


def test_the_run_and_the_scored_input_give_each_set_its_responses_and_values(study):
    got = collect([str(study["run"]), str(study["sets"])], [])
    assert list(got.sets) == list(SYSTEMS)
    first = got.sets["s0"][0]
    rec = json.loads(study["sets"].read_text().splitlines()[0])
    assert (first.line, first.prompt, first.responses) == (1, rec["prompt"], rec["responses"])
    assert first.human == rec["human"]
    assert first.sampling == rec["sampling"]
    # the per-set values are the run's own: their mean is the system's value
    values = [r.values["distinct-1"] for r in got.sets["s1"]]
    assert sum(values) / len(values) == pytest.approx(got.systems["s1"]["distinct-1"].value)


def test_items_rows_join_the_scored_input_by_line(study):
    a = collect([str(study["items"]), str(study["sets"]), str(study["run"])], [])
    b = collect([str(study["run"]), str(study["sets"])], [])
    for s in SYSTEMS:
        assert [r.values["ead"] for r in a.sets[s]] == pytest.approx(
            [r.values["ead"] for r in b.sets[s]]
        )
        assert [r.responses for r in a.sets[s]] == [r.responses for r in b.sets[s]]


def test_an_unknown_file_is_a_one_line_error_naming_it(study, tmp_path, capsys):
    odd = tmp_path / "notes.json"
    odd.write_text('{"hello": 1}\n')
    line = fail(["report", str(study["run"]), str(odd), "-o", str(tmp_path / "r.html")], capsys)
    assert line.startswith(f"diveval: error: {odd}: not an output `diveval report` reads")
    text = tmp_path / "plain.txt"
    text.write_text("just some words\n")
    assert str(text) in fail(["report", str(text), "-o", str(tmp_path / "r.html")], capsys)
    assert not (tmp_path / "r.html").exists()


def test_items_of_another_input_are_a_mismatch_naming_the_file(study, tmp_path, capsys):
    other = tmp_path / "other.jsonl"
    other.write_text(study["sets"].read_text().splitlines()[0] + "\n")  # one record only
    line = fail(["report", str(study["items"]), str(other), "-o", str(tmp_path / "r.html")], capsys)
    assert str(study["items"]) in line and "no record at that line" in line
    line = fail(["report", str(study["run"]), str(other), "-o", str(tmp_path / "r.html")], capsys)
    assert str(other) in line and "not the input that was scored" in line


def test_an_unknown_sets_metric_and_a_non_html_output_are_errors(study, tmp_path, capsys):
    line = fail(
        ["report", str(study["run"]), "--sets-metric", "nope", "-o", str(tmp_path / "r.html")],
        capsys,
    )
    assert "--sets-metric 'nope'" in line and "distinct-1" in line
    assert "HTML" in fail(["report", str(study["run"]), "-o", str(tmp_path / "r.txt")], capsys)


def _cells(html: str, system: str) -> str:
    row = re.search(rf'<tr><th scope="row" data-v="{system}">.*?</tr>', html)
    assert row, system
    return row.group(0)


def test_systems_table_marks_the_best_system_by_each_metrics_direction(study, full_report):
    html = full_report.read_text()
    run_json = json.loads(study["run"].read_text())
    values = {s: run_json["groups"][s]["scores"] for s in SYSTEMS}
    best_distinct = max(SYSTEMS, key=lambda s: values[s]["distinct-1"]["value"])
    best_bleu = min(SYSTEMS, key=lambda s: values[s]["self-bleu"]["value"])  # lower is better
    header = re.search(r'<table class="sortable" id="systems-table">.*?</thead>', html).group(0)
    columns = re.findall(r"<button[^>]*>(.*?)<span", header)
    stars = {s: _cells(html, s).split("<td")[1:] for s in SYSTEMS}
    starred = {
        col: [s for s in SYSTEMS if "★" in stars[s][i - 1]] for i, col in enumerate(columns) if i
    }
    d1 = next(c for c in starred if c.startswith("distinct-1 "))
    bleu = next(c for c in starred if c.startswith("self-bleu"))
    assert starred[d1] == [best_distinct]
    assert starred[bleu] == [best_bleu]
    assert "↓" in bleu and "↑" in d1 and "lower is more diverse" in bleu


def test_intervals_come_from_the_per_set_values_and_hold_the_value(study, full_report):
    html = full_report.read_text()
    for s in SYSTEMS:
        cell = _cells(html, s).split("<td")[2]  # sets, then distinct-1
        value = float(re.search(r'data-v="([^"]+)"', cell).group(1))
        low, high = map(float, re.search(r"\[([-\d.]+), ([-\d.]+)\]", cell).groups())
        assert low <= round(value, 3) <= high and low < high


def test_a_full_study_has_every_section_and_its_provenance(study, full_report):
    html = full_report.read_text()
    for ident in ("systems", "agreement", "size-length", "human", "sets", "provenance"):
        assert f'<section id="{ident}"' in html, ident
    for path in study.values():
        assert hashlib.sha256(path.read_bytes()).hexdigest() in html
    # the records' own sampling settings (only those they name) are part of every signature
    assert "distinct|n:1|tok:whitespace|lc:no|setting:sets|sample:t=0.7,top_p=0.9|diveval:" in html
    assert "&quot;temperature&quot;: 0.7" in html  # the sampling settings of the records
    raters = list(csv.DictReader(study["raters"].open()))
    assert {r["rater"] for r in raters} == {"ann", "bob", "rex"}
    assert [r["kept"] for r in raters if r["rater"] == "rex"] == ["False"]
    assert '<tr class="dropped"><th scope="row">rex</th>' in html


def test_nothing_on_the_page_points_to_another_host(full_report):
    html = full_report.read_text()
    # the SVG namespace is a name, not a request; nothing else may name a scheme or a host
    rest = html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert not re.search(r"(?i)(https?:|//[a-z0-9.-]+\.[a-z]{2,}/|src=|@import|url\()", rest)


def test_sections_are_left_out_without_their_data(tmp_path, examples_dir, run_cli):
    run = run_cli
    out = run(["score", str(examples_dir / "sets.jsonl"), "--json", "-m", "distinct-1"])
    path = tmp_path / "run.json"
    path.write_text(out)
    run(["report", str(path), "-o", str(tmp_path / "r.html")])
    html = (tmp_path / "r.html").read_text()
    assert '<section id="systems"' in html and '<section id="provenance"' in html
    for ident in ("agreement", "size-length", "human", "sets"):
        assert f'<section id="{ident}"' not in html


def test_score_report_writes_the_report_of_the_run(study, tmp_path, run_cli):
    run = run_cli
    out = tmp_path / "run.html"
    run(
        [
            "score",
            str(study["sets"]),
            "--by",
            "system",
            "-m",
            "ead",
            "-m",
            "distinct-2",
            "--report",
            str(out),
        ]
    )
    html = out.read_text()
    rec = json.loads(study["sets"].read_text().splitlines()[0])
    assert '<section id="agreement"' in html and '<section id="sets"' in html
    assert hashlib.sha256(study["sets"].read_bytes()).hexdigest() in html
    assert rec["prompt"] in html


def test_a_sets_run_without_the_scored_file_still_ranks_its_sets(study, tmp_path, run_cli):
    run = run_cli
    moved = json.loads(study["run"].read_text())
    moved["input"] = str(tmp_path / "gone.jsonl")  # the file the run names is not there
    (tmp_path / "run.json").write_text(json.dumps(moved))
    run(
        [
            "report",
            str(tmp_path / "run.json"),
            "--sets-metric",
            "ead",
            "-o",
            str(tmp_path / "r.html"),
        ]
    )
    html = (tmp_path / "r.html").read_text()
    assert "responses not in the inputs" in html and "Sets ranked by <strong>ead" in html
    assert "gone.jsonl, the run&#x27;s input, was not found" in html


def test_equivalence_classes_colour_the_responses_of_a_set():
    from diveval.meta.studies.report_figures import build_report
    from diveval.report.html import render
    from diveval.report.svg import colour

    sets = [["a b", "a b", "c d"], ["x", "y", "z"], ["p q", "p q", "p q"]]
    run = {
        "setting": "sets",
        "scores": {
            "equivalence-classes": {
                "value": 2.0,
                "signature": "equivalence-classes|judge:bleu:0.3|setting:sets",
                "items": [2.0, 3.0, 1.0],
                "details": {"labels": [[0, 0, 1], [0, 1, 2], [0, 0, 0]]},
            }
        },
    }
    records = [{"prompt": f"q{i}", "responses": s, "_line": i + 1} for i, s in enumerate(sets)]
    html = render(build_report([], runs=[run], records=records, shown=1))
    card = re.search(r'<article class="set-card" data-prompt="q1">.*?</article>', html).group(0)
    assert "3 equivalence classes" in card  # the most diverse set: three classes
    for k in range(3):
        assert f'border-left-color:{colour(k)}"><span class="cls">class {k + 1}</span>' in card
    least = re.search(r'<article class="set-card" data-prompt="q2">.*?</article>', html).group(0)
    assert least.count("class 1</span>") == 3


def test_a_hill_profile_is_drawn_per_system_with_every_order_in_its_table(study, tmp_path, run_cli):
    """similarity-hill's profile (its q<order>_mean details) becomes a chart and a table per
    system, the values those of the run itself."""
    run = run_cli
    flags = ["--by", "system", "--json", "-m", "similarity-hill", "--similarity", "ngram"]
    out = run(["score", str(study["sets"]), *flags])
    path = tmp_path / "hill.json"
    path.write_text(out)
    run(["report", str(path), "-o", str(tmp_path / "r.html")])
    html = (tmp_path / "r.html").read_text()
    assert '<section id="size-length"' in html and 'id="profile-similarity-hill-t"' in html
    groups = json.loads(out)["groups"]
    table = html.split("similarity-hill: mean over sets at each order q")[1].split("</table>")[0]
    for details in (g["scores"]["similarity-hill"]["details"] for g in groups.values()):
        for q in details["orders"]:
            assert f'<th scope="row">{q}</th>' in table
            assert f"{details[f'q{q}_mean']:.3f}" in table
