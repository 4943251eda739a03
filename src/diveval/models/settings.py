"""The settings every model of a run is loaded with, resolved once where the run starts.

``resolve_settings(options)`` turns the loose options a user gives (``--device cpu``,
``device="cpu"``, ``precision=``, ``batch_size=``, ``threads=``, ``cache_dir=``) into one frozen
:class:`ModelSettings`: each value checked (a typo is one ``InputError`` line), precision's default
filled in. The CLI and ``diveval.score`` call it at their boundary and hand the result to the run's
context (:class:`diveval.context.RunContext`); metric code never sees the loose keywords.

The device stays as asked (None: cuda when present), because the shipped ONNX NLI model accepts
no device but the CPU while torch models take the best one; ``torch_device`` resolves it when a
torch model loads (``models.devices.available_device``, the one place that asks torch).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

from ..errors import InputError
from .devices import DEFAULT_PRECISION, available_device, check_device_name, check_precision_name
from .threads import check_threads

#: The options that resolve into :class:`ModelSettings` (``threads`` is process-wide: the run's
#: boundary applies it; the others are per model and metric rows take them).
SETTINGS_OPTIONS = ("device", "precision", "batch_size", "cache_dir")


@dataclass(frozen=True)
class ModelSettings:
    """How a run's models are loaded. device: as asked, spelling checked (None: cuda when
    present); precision: fp32, fp16, bf16 or auto; batch_size: None for the backend's default by
    device; threads: the CPU threads asked for (None: ``models.threads``' default);
    cache_dir: the on-disk score cache (None: memory only)."""

    device: Optional[str] = None
    precision: str = DEFAULT_PRECISION
    batch_size: Optional[int] = None
    threads: Optional[int] = None
    cache_dir: Optional[str] = None

    def torch_device(self) -> str:
        """The torch device to load on: the one asked for if torch can use it, else cuda when
        present, else the CPU."""
        return available_device(self.device)

    def asked(self, exclude: tuple[str, ...] = ()) -> dict[str, Any]:
        """The per-model settings that differ from the defaults, as option keywords (for a
        backend or a state that takes them one by one), less those in ``exclude``."""
        out = {
            "device": self.device,
            "precision": None if self.precision == DEFAULT_PRECISION else self.precision,
            "batch_size": self.batch_size,
            "cache_dir": self.cache_dir,
        }
        return {k: v for k, v in out.items() if v is not None and k not in exclude}


def check_batch_size(batch_size: Any) -> Optional[int]:
    """None, or a positive integer (else an InputError)."""
    if batch_size is None:
        return None
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise InputError(f"batch size must be a positive integer, got {batch_size!r}")
    return batch_size


def resolve_settings(options: Mapping[str, Any] | None = None, **given: Any) -> ModelSettings:
    """The :class:`ModelSettings` of ``options`` (a run's options; other keys are ignored) and
    ``given`` keywords: every value checked once, here."""
    unknown = set(given) - {*SETTINGS_OPTIONS, "threads"}
    if unknown:  # a keyword argument, so a typo is the caller's TypeError
        raise TypeError(f"unknown model settings {sorted(unknown)}")
    merged = {**(options or {}), **given}
    threads = merged.get("threads")
    cache_dir = merged.get("cache_dir")
    return ModelSettings(
        device=check_device_name(merged.get("device")),
        precision=check_precision_name(merged.get("precision")) or DEFAULT_PRECISION,
        batch_size=check_batch_size(merged.get("batch_size")),
        threads=None if threads is None else check_threads(threads),
        cache_dir=None if cache_dir is None else str(cache_dir),
    )


def run_settings(context: Any, options: Mapping[str, Any]) -> ModelSettings:
    """The settings of the run ``context`` belongs to (resolved once, where the run started), or,
    for a metric called on its own with a bare context, those of its ``options``."""
    found = getattr(context, "models", None)
    return found if isinstance(found, ModelSettings) else resolve_settings(options)
