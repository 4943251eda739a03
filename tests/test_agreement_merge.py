"""benchmarks/agreement.py --merge: rows added to a board get the ranks a whole run gives them,
and every other row the rank it has beside them; the page states its method and command, not
the circumstances of a run."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILE = "con_test_200_with_hds_resp_gen"
# lexical rows: some close to the one added afterwards (recomputed and paired with it), some
# wholly above it (ranked above it by their intervals)
BASE = ["distinct-1", "distinct-2", "cos-diversity", "compression-ratio", "entropy-2", "unique-1"]
ADDED = "self-bleu"


def _benchmark():
    spec = importlib.util.spec_from_file_location(
        "agreement_bench", ROOT / "benchmarks" / "agreement.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["agreement_bench"] = module
    spec.loader.exec_module(module)
    return module


bench = _benchmark()
pytestmark = pytest.mark.skipif(
    not (bench.DATA / "conTest").exists(), reason="the shared diversity-eval files are absent"
)


def _board(tmp_path: Path, name: str, metrics: list[str], *merge: str) -> dict:
    out = tmp_path / f"{name}.json"
    argv = ["--only", FILE, "--max-sets", "200", "--resamples", "300"]
    argv += ["--json-out", str(out), "--md-out", str(tmp_path / f"{name}.md")]
    for m in metrics:
        argv += ["-m", m]
    if merge:
        argv += ["--merge", "--merge-from", merge[0]]
    assert bench.main(argv) == 0
    return json.loads(out.read_text())


def _ranks(board: dict) -> dict:
    (f,) = board["files"]
    return {r["metric"]: (r["spearman"], r["rank"], r["registry_rank"]) for r in f["rows"]}


def test_merged_rows_rank_as_in_one_run(tmp_path):
    whole = _board(tmp_path, "whole", [*BASE, ADDED])
    base = _board(tmp_path, "base", BASE)
    merged = _board(tmp_path, "merged", [ADDED], str(tmp_path / "base.json"))
    assert _ranks(merged) == _ranks(whole)
    assert set(_ranks(base)) == set(BASE)
    assert merged["merged"]["metrics"] == [ADDED]
    text = (tmp_path / "merged.md").read_text()
    assert f"--merge -m {ADDED}" in text
    # a row already ranked is not merged again (the others' ranks count it)
    with pytest.raises(SystemExit, match="already ranked"):
        _board(tmp_path, "again", [ADDED], str(tmp_path / "merged.json"))


def test_the_published_page_states_method_and_command_not_circumstances():
    text = (ROOT / "docs" / "agreement.md").read_text(encoding="utf-8")
    assert "`python benchmarks/agreement.py`" in text
    for circumstance in ("shared", "load average", "being edited", "wall clock", "side by side"):
        assert circumstance not in text, circumstance
    # a row without a rank is said to be one, with the command that ranks it; a metric the
    # files cannot measure is said once with its reason, not as a failed row per file
    board = json.loads(bench.JSON_OUT.read_text())
    for name in bench.unranked(board):
        assert f"--merge -m {name}`" in text
    skipped = bench.not_measured(board)
    for name in skipped:
        assert f"- `{name}`: " in text and f"[{name}](metrics/{name}.md)" not in text
    assert "| - |" not in text
