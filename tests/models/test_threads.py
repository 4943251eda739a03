"""CPU threads of the model backends: the default never takes more cores than the process may use
and the machine has free, ``$DIVEVAL_THREADS`` and ``--threads`` override it, torch's two pools
and onnxruntime get the same number, and a score does not depend on it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from diveval.cli import main
from diveval.errors import InputError
from diveval.models import threads as th

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    monkeypatch.setattr(th, "_chosen", None)
    monkeypatch.delenv(th.THREADS_ENV, raising=False)


@pytest.mark.parametrize(
    "cores, load, want",
    [(2, 0.3, 2), (2, 1.2, 1), (2, 9.0, 1), (8, 2.5, 6), (4, 0.0, 4)],
)
def test_default_is_the_usable_cores_less_the_busy_ones(monkeypatch, cores, load, want):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    assert th.default_threads() == want
    assert th.threads() == want


def test_the_affinity_mask_not_the_machine_counts(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert th.threads() == 1


def test_environment_and_explicit_choice_override_the_default(monkeypatch):
    monkeypatch.setenv(th.THREADS_ENV, "3")
    assert th.threads() == 3
    th.set_threads(2)
    assert th.threads() == 2
    th.set_threads(None)
    monkeypatch.setenv(th.THREADS_ENV, "zero")
    with pytest.raises(InputError, match="DIVEVAL_THREADS must be a positive integer"):
        th.threads()


def test_threads_flag_refuses_zero_in_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["score", str(ROOT / "examples" / "sets.jsonl"), "--threads", "0"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--threads" in err and "Traceback" not in err


def test_torch_gets_the_same_number_for_both_pools():
    code = (
        "import torch; from diveval.models.threads import set_threads, torch_threads;"
        "set_threads(1); torch_threads();"
        "print(torch.get_num_threads(), torch.get_num_interop_threads())"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["1", "1"]


def test_the_score_and_its_signature_do_not_depend_on_the_threads(capsys):
    pytest.importorskip("onnxruntime")
    from diveval.models.shipped_nli import shipped_model_available

    if not shipped_model_available():
        pytest.skip("the shipped NLI model is not installed")
    path = str(ROOT / "examples" / "sets.jsonl")
    outs = []
    for n in ("1", "2"):
        assert main(["score", path, "-m", "nli-baseline", "--threads", n, "--json"]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0] == outs[1]
    assert "thread" not in outs[0]["scores"]["nli-baseline"]["signature"]
