"""The integrations are optional: ``import diveval`` (and scoring) imports none of them nor their
host libraries, and the packaging declares the torchmetrics extra (part of ``all``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOSTS = ("torch", "torchmetrics", "ray", "transformers", "diveval.integrations")


def test_import_and_score_load_no_integration():
    code = (
        "import sys, diveval; diveval.score(['a b', 'a c'], ['distinct-1']); "
        f"print([m for m in {HOSTS!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_torchmetrics_extra_is_declared_and_in_all():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    assert extras["torchmetrics"] == ["torchmetrics>=1.4"]
    assert "torchmetrics" in extras["all"][0].split("[")[1].rstrip("]").split(",")
