"""``import diveval`` names every public function lazily; each name resolves, and every family of
registered metrics has its function reachable from the top level."""

from __future__ import annotations

import subprocess
import sys

import diveval


def test_every_lazy_name_resolves():
    for name in diveval.__all__:
        assert getattr(diveval, name) is not None, name


def test_the_metric_functions_of_every_family_are_public():
    from diveval.registry import all_metrics

    public = {getattr(diveval, n) for n in diveval.__all__ if n != "__version__"}
    modules = {getattr(f, "__module__", "") for f in public}
    families = {m.implementation.__module__.split(".")[1] for m in all_metrics().values()}
    for family in families:
        assert any(mod.startswith(f"diveval.{family}.") for mod in modules), family
    # the LLM-evaluation metrics too, not only the dialogue-era ones
    for fn in ("compression_ratio", "mattr", "homogenization_rouge_l", "equivalence_classes"):
        assert fn in diveval.__all__


def test_importing_diveval_stays_cheap():
    code = "import sys, diveval; print(sorted(m for m in ('numpy', 'torch', 'scipy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
