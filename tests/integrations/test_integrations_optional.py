"""The packaging declares the torchmetrics extra, part of ``all`` (that ``import diveval`` loads no
integration is checked with the harnesses, tests/harness/test_optional.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_torchmetrics_extra_is_declared_and_in_all():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    assert extras["torchmetrics"] == ["torchmetrics>=1.4"]
    assert "torchmetrics" in extras["all"][0].split("[")[1].rstrip("]").split(",")
