"""Devices, model paths and batch sizes: one clear error each, before any work; the device a
model runs on is in the signature when it is not the CPU."""

from __future__ import annotations

import numpy as np
import pytest

import diveval
from diveval.cli import main
from diveval.errors import InputError
from diveval.models.devices import check_device, check_device_name, signature_device
from diveval.models.resolve import resolve_embedder, resolve_nli_model


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", ["cpu", "CUDA", "cuda:1", "mps"])
def test_device_names(name):
    assert check_device_name(name) == name.lower()


def test_unknown_or_absent_devices_are_input_errors():
    import torch

    with pytest.raises(InputError, match="unknown device 'gpu0'"):
        check_device_name("gpu0")
    if not torch.cuda.is_available():
        with pytest.raises(InputError, match="torch sees no CUDA GPU"):
            check_device("cuda")
    assert check_device(None) in ("cpu", "cuda")


@pytest.mark.parametrize(
    "argv, message",
    [
        # regression: a traceback with sent-bert, silently the CPU with NLI
        (["-m", "sent-bert", "--device", "tpu"], "unknown device 'tpu'"),
        (["-m", "nli-confidence", "--device", "cuda:0"], "the shipped NLI model runs on the CPU"),
        (["-m", "nli-baseline", "--nli-model", "/nonexistent"], "'/nonexistent': no such file"),
        (["-m", "nli-baseline", "--batch-size", "0"], "batch size must be a positive integer"),
        (["-m", "ead", "--vocab", "-5"], "--vocab must be a positive integer"),
    ],
)
def test_the_cli_says_what_is_wrong_in_one_line(capsys, examples_dir, argv, message):
    code, out, err = run(capsys, "score", examples_dir / "sets.jsonl", *argv)
    assert code == 2 and out == "" and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_an_offline_hub_name_fails_fast_with_how_to_get_it(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path))  # an empty cache
    with pytest.raises(InputError, match="not in the local Hugging Face cache.*offline"):
        resolve_nli_model("someone/some-nli-model")
    with pytest.raises(InputError, match="not in the local Hugging Face cache"):
        resolve_embedder("someone/some-embedder")


class GPUEmbedder:
    name = "stub-embedder"
    fingerprint = "00000000aaaa"
    device = "cuda:1"

    def encode(self, texts):
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)


def test_a_non_cpu_device_is_recorded_in_the_signature():
    sets = [["a", "bb", "ccc"], ["dd", "e", "f"]]
    on_gpu = diveval.embedding_diversity(sets, GPUEmbedder()).signature
    assert "|dev:cuda:1|" in on_gpu
    GPUEmbedder.device = "cpu"
    try:
        assert "dev:" not in diveval.embedding_diversity(sets, GPUEmbedder()).signature
    finally:
        GPUEmbedder.device = "cuda:1"
    assert signature_device(object()) is None


def test_precision_names_and_auto_by_device(monkeypatch):
    import torch

    from diveval.models.devices import check_precision_name, resolve_precision

    assert check_precision_name(None) is None and check_precision_name("FP32") is None
    assert check_precision_name("bf16") == "bf16"
    with pytest.raises(InputError, match="unknown precision 'half'"):
        check_precision_name("half")
    assert resolve_precision("auto", "cpu") == "fp32"
    assert resolve_precision("fp16", "cpu") == "fp16"  # asked for: done, and recorded
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: True)
    assert resolve_precision("auto", "cuda:0") == "bf16"
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: False)
    assert resolve_precision("auto", "cuda") == "fp16"


def test_default_batch_size_grows_with_free_gpu_memory(monkeypatch):
    import torch

    from diveval.models.devices import batch_size_for

    gib = 1 << 30
    assert batch_size_for("cpu", 64) == 64
    for free, want in ((2 * gib, 32), (8 * gib, 64), (20 * gib, 128), (70 * gib, 512)):
        monkeypatch.setattr(torch.cuda, "mem_get_info", lambda device, f=free: (f, 80 * gib))
        assert batch_size_for("cuda:0", 32) == want


def test_precision_of_models_that_cannot_be_cast_is_refused(capsys):
    with pytest.raises(InputError, match="precision fp16 applies to Hugging Face models"):
        resolve_nli_model(None, precision="fp16")
    assert resolve_nli_model(None, precision="auto") is resolve_nli_model(None)
    code, _, err = run(capsys, "score", "examples/sets.jsonl", "-m", "nli-baseline",
                       "--precision", "bf16")  # fmt: skip
    assert code == 2 and "applies to Hugging Face models" in err and "Traceback" not in err


def test_half_precision_embedder_signature_and_values():
    sets = [["a cat sat on the mat", "the dog ran", "hello there"], ["yes", "no", "maybe so"]]
    full = diveval.score(sets, ["sent-bert"])["sent-bert"]
    half = diveval.score(sets, ["sent-bert"], precision="bf16")["sent-bert"]
    assert "prec:" not in full.signature and "prec:bf16" in half.signature
    assert half.signature != full.signature
    np.testing.assert_allclose(half.items, full.items, atol=2e-2)
