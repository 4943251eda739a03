"""Shared fixtures. The authors' evaluation data lives in ../shared/data beside the project; tests
that need it skip cleanly when it is absent. No test reaches a model hub."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# Property tests check values, not speed: no per-example deadline and no too-slow health check,
# which a loaded machine trips without any change in the code under test
settings.register_profile("diveval", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("diveval")

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"


def shared_path(*parts: str) -> Path:
    """A path under ../shared/data, or skip the test when it is not there."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not available: {path}")
    return path


def read_tevet_csv(path: Path) -> tuple[list[dict], list[list[str]]]:
    """(rows, response sets) of one Tevet & Berant CSV: resp_0..resp_k in numeric order."""
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    cols = sorted((k for k in rows[0] if k.startswith("resp_")), key=lambda k: int(k[5:]))
    return rows, [[r[c] for c in cols] for r in rows]


def diversity_eval_sets() -> list[list[str]]:
    """Every response set of every CSV in ../shared/data/diversity-eval (skip when absent)."""
    paths = sorted(shared_path("diversity-eval").rglob("*.csv"))
    if not paths:
        pytest.skip("no diversity-eval CSV files")
    return [s for path in paths for s in read_tevet_csv(path)[1]]


@pytest.fixture
def shared_data():
    return shared_path


@pytest.fixture
def examples_dir() -> Path:
    return PROJECT_ROOT / "examples"


def assert_same_scores(local, other, tol: float = 1e-12) -> None:
    """Two runs' {name: Score} agree: names in order, metric, signature, setting, value, items."""
    import numpy as np

    assert list(other) == list(local)
    for name, want in local.items():
        got = other[name]
        assert (got.metric, got.signature, got.setting) == (
            want.metric,
            want.signature,
            want.setting,
        )
        assert got.value == pytest.approx(want.value, rel=0, abs=tol), name
        if want.items is not None:
            assert np.allclose(got.items, want.items, rtol=0, atol=tol), name
