"""Devices, checked once: a clear error for a device that is unknown or not there.

``check_device(name)`` accepts ``cpu``, ``cuda``, ``cuda:N`` and ``mps`` (None: pick the best
available), checks that torch can use it, and returns the device actually used. Backends record
it in their signatures when it is not the CPU, since GPU kernels give slightly different numbers.
The shipped NLI model runs on onnxruntime's CPU provider only: asking it for a GPU is an error,
not a silent fall-back.
"""

from __future__ import annotations

import re
from typing import Optional

from ..errors import InputError

_DEVICE = re.compile(r"^(cpu|mps|cuda(:\d+)?)$")


def check_device_name(device: Optional[str]) -> Optional[str]:
    """The device's spelling only (no torch import): None, or an InputError for a typo."""
    if device is None or device == "":
        return None
    name = str(device).strip().lower()
    if not _DEVICE.match(name):
        raise InputError(f"unknown device {device!r}: use cpu, cuda, cuda:N or mps")
    return name


def check_device(device: Optional[str]) -> str:
    """The torch device to use: ``device`` if torch can use it (else an InputError), or the best
    available one when None."""
    name = check_device_name(device)
    import torch

    if name is None:
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name.startswith("cuda"):
        if not torch.cuda.is_available():
            raise InputError(f"device {name!r} asked for, but torch sees no CUDA GPU here")
        index = int(name.split(":")[1]) if ":" in name else 0
        if index >= torch.cuda.device_count():
            raise InputError(
                f"device {name!r} asked for, but torch sees {torch.cuda.device_count()} GPU(s)"
            )
    if name == "mps" and not torch.backends.mps.is_available():
        raise InputError("device 'mps' asked for, but torch's MPS backend is not available here")
    return name


def cpu_only(device: Optional[str], what: str) -> None:
    """An InputError when a GPU is asked of a CPU-only backend."""
    name = check_device_name(device)
    if name not in (None, "cpu"):
        raise InputError(
            f"{what} runs on the CPU only (onnxruntime); --device {name} applies to Hugging Face "
            "models (name one with --nli-model)"
        )


def signature_device(model: object) -> Optional[str]:
    """The device a backend (or the backend a cache wraps) runs on, for a signature; None on the
    CPU, so CPU signatures stay as they were."""
    for obj in (model, getattr(model, "model", None)):
        device = getattr(obj, "device", None)
        if isinstance(device, str):
            return None if device == "cpu" else device
    return None
