"""A BERTScore model that is not there (a missing folder, a folder without a model, a hub name not
in the local cache) is one line and exit status 2, offline, as for every other model metric."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("bert_score")

ROOT = Path(__file__).resolve().parents[2]


def diveval(args: list[str], home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, HF_HOME=str(home), PYTHONPATH=str(ROOT / "src"))
    env.pop("HF_HUB_CACHE", None)  # the empty HF_HOME is the whole local cache
    return subprocess.run(
        [sys.executable, "-m", "diveval", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


REF, HOMOGENIZATION = (
    ("ref-bertscore-f", "references.jsonl"),
    ("homogenization-bertscore", "responses.txt"),
)


@pytest.mark.parametrize(
    "metric,data,model",
    [
        (*REF, "bert-base-uncased"),
        (*HOMOGENIZATION, "bert-base-uncased"),
        (*REF, "missing-folder"),
        (*HOMOGENIZATION, "missing-folder"),
        (*REF, "empty-folder"),
        (*HOMOGENIZATION, "broken-folder"),
    ],
)
def test_a_missing_bertscore_model_is_one_line_and_status_2(tmp_path, metric, data, model):
    if model.endswith("-folder"):
        folder = tmp_path / model
        if model != "missing-folder":
            folder.mkdir()
        if model == "broken-folder":  # transformers cannot read it: bert-score's own error
            (folder / "config.json").write_text("{}", encoding="utf-8")
        model = str(folder)
    home = tmp_path / "hf-home"
    home.mkdir()
    done = diveval(
        ["score", str(ROOT / "examples" / data), "-m", metric, "--embedding-model", model], home
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert model in done.stderr
