"""Percentile thresholds, and the paper's 0.98 for averaged distinct-n on DailyDialog++ dev."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import shared_path

from diveval.cli import main
from diveval.errors import InputError
from diveval.generation.thresholds import percentile_threshold
from diveval.io.contexts import read_response_sets


def _tevet_avg_distinct(responses):
    """Tevet & Berant's averaged distinct-n, written out independently of diveval."""
    toks = [[w for w in r.replace(".", "").replace("\n", "").split(" ") if w] for r in responses]
    vals = []
    for n in range(1, 6):
        grams = [tuple(t[i : i + n]) for t in toks for i in range(len(t) - n + 1)]
        vals.append(len(set(grams)) / len(grams) if grams else 0.0)
    return sum(vals) / 5


def test_paper_threshold_for_averaged_distinct_on_dailydialog_dev(capsys):
    path = shared_path("dailydialog-plusplus", "dev.json")
    sets = read_response_sets(str(path))
    assert len(sets) == 1028 and all(len(s) == 5 for s in sets)
    est = percentile_threshold(sets, "avg-distinct", 90)
    independent = np.percentile([_tevet_avg_distinct(s) for s in sets], 90)
    assert est.value == pytest.approx(independent, abs=1e-12)
    print(f"\navg-distinct 90th percentile on DailyDialog++ dev: {est.value:.4f} (paper: 0.98)")
    assert round(est.value, 2) == 0.98
    assert "tok:tevet" in est.signature and "pct:90" in est.signature
    assert main(["thresholds", str(path)]) == 0
    out = capsys.readouterr().out
    assert "0.9829" in out and "0.98" in out


def test_percentile_on_small_sets_and_bad_input(tmp_path):
    sets = [["a b", "a b"], ["a b", "c d"], ["a a", "a a"], ["x y z", "u v w"]]
    est = percentile_threshold(sets, "distinct-1", 50)
    vals = [0.5, 1.0, 0.25, 1.0]
    assert est.value == pytest.approx(np.percentile(vals, 50))
    assert est.sets == 4 and est.mean == pytest.approx(np.mean(vals))
    with pytest.raises(InputError):
        percentile_threshold(sets, "distinct-1", 120)
    f = tmp_path / "sets.jsonl"
    f.write_text("\n".join(json.dumps({"responses": s}) for s in sets) + "\n")
    assert read_response_sets(str(f)) == sets
    f.write_text(json.dumps({"other": 1}) + "\n")
    with pytest.raises(InputError, match="responses"):
        read_response_sets(str(f))
