"""The model settings of a run: resolved once where the run starts, carried by its context; metric
rows say which model they load; the models package imports without a circle."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import diveval
from diveval.context import RunContext
from diveval.errors import InputError
from diveval.models import devices
from diveval.models.devices import ModelSettings, resolve_settings, run_settings
from diveval.options import OPTION
from diveval.registry import all_metrics

MODELS = Path(__file__).resolve().parents[2] / "src" / "diveval" / "models"
KINDS = ("embedder", "nli", "pair-classifier", "generator")


class StubEmbedder:
    name = "stub-embedder"
    fingerprint = "0000stub0000"

    def encode(self, texts):
        return np.array([[len(t), t.count("a") + 1.0] for t in texts], dtype=np.float32)


SETS = [["a b", "a c a", "xyz"], ["same", "same", "other text"]]


def test_defaults_come_from_the_option_declarations():
    s = resolve_settings({})
    assert s == ModelSettings()
    assert s.precision == OPTION["precision"].default == "fp32"
    assert (s.device, s.batch_size, s.threads, s.cache_dir) == (None, None, None, None)


def test_values_are_checked_and_normalised_once():
    s = resolve_settings({"device": " CUDA:1 ", "precision": "BF16", "batch_size": 8, "x": 1})
    assert (s.device, s.precision, s.batch_size) == ("cuda:1", "bf16", 8)
    assert resolve_settings(precision="fp32", threads="3").threads == 3
    for bad, message in (
        ({"device": "gpu0"}, "unknown device 'gpu0'"),
        ({"precision": "half"}, "unknown precision 'half'"),
        ({"batch_size": 0}, "batch size must be a positive integer"),
        ({"threads": 0}, "--threads must be a positive integer"),
    ):
        with pytest.raises(InputError, match=message):
            resolve_settings(bad)
    with pytest.raises(TypeError, match="devcie"):
        resolve_settings(devcie="cpu")  # a keyword typo is the caller's TypeError


def test_settings_are_frozen_and_key_a_load():
    s = resolve_settings(device="cpu", batch_size=4, cache_dir="/tmp/x", threads=2)
    with pytest.raises(AttributeError):
        s.device = "cuda"  # type: ignore[misc]
    # the score cache and threads leave a loaded model as it is: one load for both
    assert s.for_loading() == resolve_settings(device="cpu", batch_size=4).for_loading()
    assert s.for_loading() == ModelSettings(device="cpu", batch_size=4)


def test_a_run_resolves_its_settings_once(monkeypatch):
    calls = []
    real = devices.check_device_name

    def counting(name):
        calls.append(name)
        return real(name)

    monkeypatch.setattr(devices, "check_device_name", counting)
    out = diveval.score(
        SETS, metrics=["sent-bert", "intdiv", "rke"], embedding_model=StubEmbedder(), device="cpu"
    )
    assert set(out) == {"sent-bert", "intdiv", "rke"}
    assert calls == ["cpu"]  # at the API's boundary, not once per metric or per model


def test_the_context_carries_the_runs_settings():
    run = resolve_settings(device="cpu")
    assert run_settings(RunContext(models=run), {"device": "mps"}) is run
    # a bare context (a metric called on its own): its own keywords
    assert run_settings(RunContext(), {"device": "mps"}).device == "mps"
    assert run_settings(None, {}) == ModelSettings()


def test_a_bad_device_is_one_line_even_when_no_metric_loads_a_model():
    with pytest.raises(InputError, match="unknown device 'tpu'"):
        diveval.score(SETS, metrics=["distinct-1"], device="tpu")


def test_the_public_keywords_give_the_numbers_of_a_run_without_them():
    stub = StubEmbedder()
    plain = diveval.score(SETS, metrics=["sent-bert", "vendi"], embedding_model=stub)
    given = diveval.score(
        SETS, metrics=["sent-bert", "vendi"], embedding_model=stub, device="cpu", batch_size=2
    )
    for name in plain:
        assert given[name].value == plain[name].value
        assert given[name].signature == plain[name].signature
    # the metric function called on its own takes the same keywords
    alone = diveval.embedding_diversity(SETS, stub, device="cpu")
    assert alone.value == plain["sent-bert"].value


def test_rows_declare_the_model_they_load():
    rows = all_metrics()
    for name, m in rows.items():
        assert m.model in (None, *KINDS), name
        names_a_model = {"nli_model", "embedding_model"} & set(m.options)
        assert bool(names_a_model) == (m.model is not None), name
    assert rows["sent-bert"].model == "embedder"
    assert rows["nli-baseline"].model == "nli"
    assert rows["distinct-2"].model is None


def _imports_within_models(path: Path) -> set[str]:
    """The modules of diveval.models that ``path`` imports, function-level imports included."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(a.name for a in node.names)
    return {m for m in found if (MODELS / f"{m}.py").exists()}


def test_the_models_package_has_no_import_circle():
    graph = {p.stem: _imports_within_models(p) for p in MODELS.glob("*.py")}
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            circle = path[path.index(module) :] + [module]
            pytest.fail("import circle: " + " -> ".join(circle))
        if module in done:
            return
        for target in sorted(graph.get(module, ())):
            visit(target, path + [module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])


def _tevet_csv(path) -> str:
    rows = ["sample_id,context,label_value,resp_0,resp_1,resp_2"]
    for i in range(12):
        words = " ".join(f"w{j}" for j in range(i % 4 + 1))
        rows.append(f"s{i},c,{i % 2}.0,a b {words},a c {i},{words} d")
    path.write_text("\n".join(rows) + "\n")
    return str(path)


@pytest.mark.parametrize(
    "argv",
    [
        ["score", "SETS", "-m", "distinct-2", "--level", "per-input", "--resamples", "20"],
        ["score", "SYSTEMS", "--by", "system", "--across", "--similarity", "exact"],
        ["compare", "SYSTEMS", "--by", "system", "--match", "position", "--confidence", "0.5"],
        ["leaderboard", "SYSTEMS", "--by", "system", "--match", "position", "-m", "distinct-1"]
        + ["--confidence", "0.5"],
        ["meta", "tevet", "TEVET", "-m", "distinct-2", "--resamples", "20"],
        ["meta", "agreement", "TEVET", "-m", "distinct-2", "--resamples", "20"],
    ],
    ids=["level", "across", "compare", "leaderboard", "meta tevet", "meta agreement"],
)
def test_each_command_resolves_the_device_once(monkeypatch, capsys, tmp_path, argv):
    """The command line resolves the model settings; every kind of run hands them on resolved,
    so the device name is checked once, not once per system, file or metric."""
    from diveval import cli

    examples = Path(__file__).resolve().parents[2] / "examples"
    paths = {
        "SETS": str(examples / "sets.jsonl"),
        "SYSTEMS": str(examples / "systems.jsonl"),
        "TEVET": _tevet_csv(tmp_path / "tevet.csv"),
    }
    calls = []
    real = devices.check_device_name

    def counting(name):
        if name is not None:
            calls.append(name)
        return real(name)

    monkeypatch.setattr(devices, "check_device_name", counting)
    code = cli.main([paths.get(a, a) for a in argv] + ["--device", "cpu"])
    err = capsys.readouterr().err
    # it scored: done, or refused after scoring (4 prompts are too few for the paired tests)
    assert code == 0 or "distinct-1: 4 prompts and 1000 resamples cannot reach" in err, err
    assert calls == ["cpu"]
