"""A judge's threshold must be one its similarity can reach: a cosine lies in [-1, 1], NoveltyBench's
symmetric BLEU / 100 and a classifier's probability in [0, 1]. Beyond that range every pair (or
none) would be equivalent, and the score a silent constant."""

import pytest

from diveval.cli import main
from diveval.errors import InputError
from diveval.semantic.equivalence import DEFAULT_THRESHOLDS, THRESHOLD_RANGES, parse_judge


@pytest.mark.parametrize(
    "spec",
    ["embedding:1.5", "embedding:-1.01", "bleu:1.2", "bleu:-0.1", "hf:org/model:1.5", "hf:x:-0.5"],
)
def test_thresholds_outside_the_similarity_are_refused(spec):
    with pytest.raises(InputError, match="outside"):
        parse_judge(spec)


@pytest.mark.parametrize(
    "spec,want",
    [
        ("embedding:1", ("embedding", 1.0)),
        ("embedding:-1", ("embedding", -1.0)),
        ("bleu:0", ("bleu", 0.0)),
        ("bleu:1", ("bleu", 1.0)),
        ("hf:org/model:0.5", ("hf", 0.5)),
    ],
)
def test_the_ends_of_the_range_are_accepted(spec, want):
    assert parse_judge(spec) == want


def test_every_judge_with_a_threshold_has_a_range_holding_its_default():
    import json

    from diveval.models.answers_judge import MODEL_DIR

    # the answers judge's default threshold was fitted with its model: it is in its config
    assert set(THRESHOLD_RANGES) == set(DEFAULT_THRESHOLDS) | {"answers"}
    fitted = json.loads((MODEL_DIR / "config.json").read_text())["head"]["threshold"]
    for kind, (low, high) in THRESHOLD_RANGES.items():
        assert low <= DEFAULT_THRESHOLDS.get(kind, fitted) <= high


@pytest.mark.parametrize(
    "metric,judge",
    [("semantic-entropy", "embedding:1.5"), ("equivalence-classes", "bleu:2")],
)
def test_the_cli_refuses_in_one_line_with_status_2(tmp_path, capsys, metric, judge):
    f = tmp_path / "sets.jsonl"
    f.write_text('{"responses": ["a cat sat", "a dog ran", "the sun"]}\n', encoding="utf-8")
    code = main(["score", str(f), "-m", metric, "--judge", judge])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert judge in err and "outside" in err
