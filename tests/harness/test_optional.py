"""The harness adapters are optional extras: ``import diveval`` (and scoring) imports none of them
(nor the integrations), and the packaging declares each extra and Inspect's entry point."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HARNESSES = ("inspect_ai", "lm_eval", "evaluate", "diveval.harness")
# the integrations (torchmetrics, Ray Data, Trainer callback) and their host libraries
INTEGRATIONS = ("torch", "torchmetrics", "ray", "transformers", "diveval.integrations")


def test_import_and_score_load_no_harness():
    code = (
        "import sys, diveval; diveval.score([['a b', 'a c']], ['distinct-1']); "
        f"print([m for m in {HARNESSES + INTEGRATIONS!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_each_harness_is_an_extra_and_inspect_finds_the_entry_point():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    for extra, package in (
        ("inspect", "inspect-ai"),
        ("lm-eval", "lm-eval"),
        ("evaluate", "evaluate"),
    ):
        assert [r.split("=")[0] for r in extras[extra]] == [package]  # one pinned package
        assert extra in extras["all"][0]
    assert project["entry-points"]["inspect_ai"] == {"diveval": "diveval.harness.inspect_registry"}


def _entry_point_installed() -> bool:
    eps = importlib.metadata.entry_points(group="inspect_ai")
    return any(ep.name == "diveval" for ep in eps)


@pytest.mark.skipif(
    not _entry_point_installed(),
    reason="diveval is installed without its inspect_ai entry point (reinstall: pip install -e .)",
)
def test_inspect_resolves_diveval_names_through_the_entry_point_alone():
    pytest.importorskip("inspect_ai")
    code = (
        "import sys\n"
        "from inspect_ai._util.registry import registry_lookup\n"
        "assert 'diveval.harness.inspect_registry' not in sys.modules\n"
        "print(registry_lookup('scorer', 'diveval/self-bleu') is not None,"
        " registry_lookup('solver', 'diveval/k_samples') is not None)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]
