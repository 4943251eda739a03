"""Equivalence classes from the classes a file stores (NoveltyBench's ``partition`` and
``generation_scores``) instead of a judge: each model's mean number of classes and mean utility
of the benchmark's own NB-Curated files, restated in a few lines of numpy; a record whose
``distinct`` disagrees with its partition is reported; bad stored classes are one-line errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import diveval
from diveval.errors import InputError
from diveval.registry import get_metric

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "novelty-bench" / "curated"
PATIENCE = 0.8
FLAGS = ["-m", "equivalence-classes", "--classes", "partition", "--quality", "generation_scores"]


def cli(*argv: object) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "diveval", "score", *map(str, argv)], capture_output=True, text=True
    )


def novelty_files() -> list[Path]:
    files = sorted(DATA.glob("*/*/scores.jsonl"))
    if not files:
        pytest.skip("the shared NoveltyBench data (../shared/data/novelty-bench) is not here")
    return files


def numpy_means(records: list[dict]) -> tuple[float, float]:
    """NoveltyBench's summary of one model: mean classes (its distinct is classes - 1) and mean
    utility, sum_i p^i s_i / sum_i p^i, straight from the stored fields."""
    classes = np.mean([max(r["partition"]) + 1 for r in records])
    weights = PATIENCE ** np.arange(10)
    utility = np.mean([np.dot(r["generation_scores"], weights) / weights.sum() for r in records])
    return float(classes), float(utility)


def test_each_models_mean_classes_and_utility_from_its_stored_partition():
    split = 0
    for path in novelty_files():
        records = [json.loads(line) for line in path.read_text().splitlines()]
        data = diveval.read(str(path), per_response=("partition", "generation_scores"))
        got = diveval.score(
            data.items,
            ["equivalence-classes"],
            classes=data.column("partition"),
            quality=data.column("generation_scores"),
        )["equivalence-classes"]
        classes, utility = numpy_means(records)
        assert got.value == pytest.approx(classes, abs=1e-12), path
        assert got.details["utility_mean"] == pytest.approx(utility, abs=1e-12), path
        # and each set's utility is the one the benchmark stored
        stored = [r["utility"] for r in records]
        assert np.allclose(got.details["utility"], stored, rtol=0, atol=1e-12), path
        assert "classes:given" in got.signature and "judge:" not in got.signature
        for warning in got.details.get("warnings", ()):
            split += int(re.findall(r"the given classes put (\d+) pairs? of identical", warning)[0])
    # the benchmark's partition splits identical answers on curated-61 of four models, restated
    want = sum(
        r["generations"][i] == r["generations"][j] and r["partition"][i] != r["partition"][j]
        for p in novelty_files()
        for r in map(json.loads, p.read_text().splitlines())
        for i in range(10)
        for j in range(i + 1, 10)
    )
    assert split == want == 31


def test_the_command_reproduces_every_model_at_once(tmp_path):
    files = novelty_files()
    joined = tmp_path / "curated.jsonl"
    joined.write_text("".join(p.read_text() for p in files))
    out = cli(joined, *FLAGS, "--by", "model", "--json")
    assert out.returncode == 0, out.stderr
    groups = json.loads(out.stdout)["groups"]
    assert len(groups) == len(files) == 20
    for path in files:
        records = [json.loads(line) for line in path.read_text().splitlines()]
        classes, utility = numpy_means(records)
        score = groups[records[0]["model"]]["scores"]["equivalence-classes"]
        assert score["value"] == pytest.approx(classes, abs=1e-12)
        assert score["details"]["utility_mean"] == pytest.approx(utility, abs=1e-12)
    # the benchmark's own partition splits identical answers on one prompt (curated-61); --by
    # says so once for all the models it concerns, with the range of their counts
    assert "the given classes put 3 to 21 pairs of identical answers into different classes" in (
        out.stderr
    )
    assert "distinct" not in out.stderr  # every record's distinct is its classes - 1


def record(**changes: object) -> str:
    base = {
        "id": "curated-1",
        "model": "m",
        "generations": ["Blue.", "Blue, of course.", "Red.", "Green.", "Red."],
        "partition": [0, 0, 1, 2, 1],
        "distinct": 2,
        "generation_scores": [7, 0, 5, 4, 0],
    }
    return json.dumps({**base, **changes}) + "\n"


def test_a_distinct_that_disagrees_with_the_partition_is_reported(tmp_path):
    path = tmp_path / "scores.jsonl"
    path.write_text(record() + record(distinct=3) + record(distinct=2))
    out = cli(path, *FLAGS, "--json")
    assert out.returncode == 0, out.stderr
    warnings = [line for line in out.stderr.splitlines() if "distinct" in line]
    assert warnings == [
        f'diveval: warning: {path}:2: "distinct" is 3, but "partition" has 3 classes '
        '(NoveltyBench\'s distinct is the classes - 1 = 2); the classes are counted from "partition"'
    ]
    assert json.loads(out.stdout)["scores"]["equivalence-classes"]["value"] == 3.0


def test_items_carry_each_answers_class(tmp_path):
    path = tmp_path / "scores.jsonl"
    path.write_text(record() + record(partition=[0, 1, 1, 0, 2], distinct=2))
    items = tmp_path / "items.jsonl"
    out = cli(path, *FLAGS, "--items", items)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in items.read_text().splitlines()]
    assert [r["equivalence-classes.labels"] for r in rows] == [[0, 0, 1, 2, 1], [0, 1, 1, 0, 2]]
    weights = PATIENCE ** np.arange(5)
    assert rows[0]["equivalence-classes.utility"] == pytest.approx(
        np.dot([7, 0, 5, 4, 0], weights) / weights.sum(), abs=1e-15
    )
    assert rows[0]["equivalence-classes"] == 3.0
    assert "generations" not in rows[0]  # the texts stay in the input, as "responses" do


def test_a_judge_run_carries_its_labels_in_the_items_too(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"responses": ["ok .", "ok .", "fine"]}\n')
    items = tmp_path / "items.csv"
    out = cli(path, "-m", "equivalence-classes", "--judge", "unigram", "--items", items)
    assert out.returncode == 0, out.stderr
    assert "[0, 0, 1]" in items.read_text()


@pytest.mark.parametrize(
    "changes,message",
    [
        ({"partition": [0, 0, 1]}, ':2: "partition" has 3 entries for 5 responses'),
        ({"partition": [0, 0, "a", 1, 2]}, ":2: set 1: a class label is a non-negative integer"),
        ({"partition": [0, 0, -1, 1, 2]}, ":2: set 1: a class label is a non-negative integer"),
        (
            {"generation_scores": [1, 2, None, 3, 4]},
            ":2: set 1: quality must give one number per generation",
        ),
        ({"partition": "0 0 1 2 1"}, ':2: "partition" must be a list'),
    ],
)
def test_bad_stored_classes_are_one_line_errors(tmp_path, changes, message):
    path = tmp_path / "scores.jsonl"
    path.write_text(record() + record(**changes))
    out = cli(path, *FLAGS)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert f"{path}{message}" in out.stderr


def test_a_judge_and_stored_classes_are_refused_together():
    sets = [["a", "b"]]
    with pytest.raises(InputError, match="leave out judge"):
        get_metric("equivalence-classes")(sets, classes=[[0, 1]], judge="bleu")
    with pytest.raises(InputError, match="leave out identical"):
        get_metric("equivalence-classes")(sets, classes=[[0, 1]], identical="one")
    with pytest.raises(InputError, match="one list of labels per set"):
        get_metric("equivalence-classes")(sets, classes="partition")


def test_stored_labels_are_renumbered_in_order_of_first_appearance():
    got = get_metric("equivalence-classes")(
        [["a", "b", "c", "d"]], classes=[[5, 2, 5, 9]], quality=[[1.0, 2.0, 3.0, 4.0]]
    )
    assert got.details["labels"][0] == [0, 1, 0, 2]
    weights = PATIENCE ** np.arange(4)
    assert got.value == 3.0
    assert got.details["utility"][0] == pytest.approx((1 + 2 * 0.8 + 4 * 0.512) / weights.sum())
