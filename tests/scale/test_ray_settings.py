"""The model settings a caller resolved (``diveval.score(..., models=)``) reach a Ray run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import diveval
from diveval.models.devices import ModelSettings
from diveval.scale.ray_engine import settings_as_options

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sets.jsonl"


def test_the_settings_travel_as_the_options_every_ray_path_reads():
    models = ModelSettings(device="cpu", precision="fp16", batch_size=4, cache_dir="/tmp/c")
    options = settings_as_options({"tokenizer": "whitespace", "device": "cuda"}, models)
    assert options == {
        "tokenizer": "whitespace",
        "device": "cpu",
        "precision": "fp16",
        "batch_size": 4,
        "cache_dir": "/tmp/c",
    }
    assert settings_as_options({"device": "cuda"}, None) == {"device": "cuda"}


def test_a_ray_run_loads_its_models_with_the_callers_settings(tmp_path):
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    sets = [json.loads(line)["responses"] for line in EXAMPLE.read_text().splitlines()]
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        models = ModelSettings(cache_dir=str(tmp_path))
        diveval.score(sets, ["sent-bert"], engine="ray", concurrency=1, models=models)
    finally:
        ray.shutdown()
    assert (tmp_path / "diveval-cache.sqlite").exists()  # the workers' score cache
