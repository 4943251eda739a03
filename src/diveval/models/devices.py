"""Devices, checked once: a clear error for a device that is unknown or not there.

``check_device(name)`` accepts ``cpu``, ``cuda``, ``cuda:N`` and ``mps`` (None: pick the best
available), checks that torch can use it, and returns the device actually used. Backends record
it in their signatures when it is not the CPU, since GPU kernels give slightly different numbers.
The shipped NLI model runs on onnxruntime's CPU provider only: asking it for a GPU is an error,
not a silent fall-back.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from ..errors import InputError
from ..options import OPTION

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
    return available_device(check_device_name(device))


def available_device(name: Optional[str]) -> str:
    """``name`` (spelling already checked) if torch can use it, else an InputError; None: cuda
    when present, else the CPU. The one place that asks torch which devices it has."""
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


PRECISIONS = ("fp32", "fp16", "bf16", "auto")
#: fp32 unless asked otherwise: half precision changes the numbers slightly (declared once, with
#: the option)
DEFAULT_PRECISION: str = OPTION["precision"].default


def check_precision_name(precision: Optional[str]) -> Optional[str]:
    """The precision's spelling only (no torch import): None (the default, fp32), or an
    InputError."""
    if precision is None or precision == "":
        return None
    name = str(precision).strip().lower()
    if name not in PRECISIONS:
        raise InputError(f"unknown precision {precision!r}: use {', '.join(PRECISIONS)}")
    return None if name == DEFAULT_PRECISION else name


def resolve_precision(precision: Optional[str], device: str) -> str:
    """The precision a torch backend runs in on ``device``: fp32 unless asked otherwise. ``auto``
    is bf16 on a GPU that has it (compute capability 8 or more), else fp16 on CUDA, and fp32 on
    the CPU (half precision there is slower, not faster). Half precision changes the numbers
    slightly, so it is never the default, and signatures and cache keys record it."""
    name = check_precision_name(precision) or DEFAULT_PRECISION
    if name != "auto":
        return name
    if not device.startswith("cuda"):
        return "fp32"
    import torch

    return "bf16" if torch.cuda.is_bf16_supported() else "fp16"


def cast_module(module: Any, precision: str) -> Any:
    """``module`` in ``precision`` (fp32: unchanged), in place as torch's ``.to`` does."""
    if precision == "fp32":
        return module
    import torch

    return module.to({"fp16": torch.float16, "bf16": torch.bfloat16}[precision])


def signature_precision(model: object) -> Optional[str]:
    """The precision a backend (or the backend a cache wraps) runs in, for a signature; None for
    fp32, so fp32 signatures stay as they were."""
    for obj in (model, getattr(model, "model", None)):
        precision = getattr(obj, "precision", None)
        if isinstance(precision, str):
            return None if precision == "fp32" else precision
    return None


# batch sizes by GPU memory: the CPU defaults were chosen for a few GiB of RAM; a GPU with more
# free memory takes larger batches (fewer kernel launches): x2 each time the free memory doubles
# past 4 GiB (8 GiB: x2, 64 GiB: x16), a rule of thumb that keeps BERT-size models well inside
# memory at their maximum sequence length
_GIB = 1 << 30


def batch_size_for(device: str, cpu_default: int) -> int:
    """The default batch size on ``device``: ``cpu_default`` on the CPU; on CUDA, scaled by the
    free memory (see above)."""
    if not device.startswith("cuda"):
        return cpu_default
    import torch

    free, _ = torch.cuda.mem_get_info(torch.device(device))
    scale = 1
    while scale < 16 and free >= 4 * _GIB * scale * 2:
        scale *= 2
    return cpu_default * scale
