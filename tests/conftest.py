"""Shared fixtures. The authors' evaluation data lives in ../shared/data beside the project; tests
that need it skip cleanly when it is absent. No test reaches the network: ``no_network`` blocks
every connection that would leave this machine, in this process and in the processes it starts,
and a test that tried fails."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import no_network
import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"  # else Ray's processes probe cloud metadata servers

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


def pytest_configure(config) -> None:
    """The no-network guard for the whole run, child processes included (see no_network.py)."""
    import tempfile

    no_network.install()
    log = tempfile.NamedTemporaryFile(prefix="diveval-network-", suffix=".log", delete=False)
    log.close()
    os.environ.update(no_network.child_environment(log.name))


@pytest.fixture(autouse=True)
def _no_network_attempt():
    """Fail the test that tried to reach the network (a library may have swallowed the error)."""
    before = len(no_network.attempts())
    yield
    tried = no_network.attempts()[before:]
    if tried:
        pytest.fail(f"{len(tried)} network attempt(s) blocked:\n" + "\n".join(tried))
