"""No -0.0 in diveval's JSON (or item CSV): a rounded tiny negative number or a negated zero is
written 0.0."""

import json
import math

import numpy as np

from diveval.io.json_out import dumps, without_negative_zero
from diveval.report.item_rows import write_rows
from diveval.report.tables import scores_to_json
from diveval.results import Score


def test_dumps_writes_every_negative_zero_as_zero():
    obj = {"a": -0.0, "b": [1.0, -0.0, (np.float64(-0.0),)], "c": np.array([-0.0, -1.5])}
    text = dumps(obj)
    assert "-0.0" not in text and json.loads(text) == {
        "a": 0.0,
        "b": [1.0, 0.0, [0.0]],
        "c": [0.0, -1.5],
    }
    assert math.copysign(1, without_negative_zero(round(-1e-9, 3))) == 1.0
    nan = without_negative_zero([float("nan")])[0]
    assert math.isnan(nan) and without_negative_zero([True, 0, "x"]) == [True, 0, "x"]


def test_score_json_and_item_files(tmp_path):
    score = Score("m", -0.0, "m|sig", "sets", items=np.array([-0.0, 0.5]), details={"d": -0.0})
    assert "-0.0" not in scores_to_json({"m": score}, with_items=True)
    for name in ("items.jsonl", "items.csv"):
        write_rows(str(tmp_path / name), [{"_line": 1, "m": -0.0}, {"_line": 2, "m": 0.5}])
        assert "-0.0" not in (tmp_path / name).read_text(encoding="utf-8")
