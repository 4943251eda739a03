"""How a run's models run: device, precision, batch size, threads, score cache, checked once.

``resolve_settings(options)`` turns the loose options a user gives (``--device cpu``,
``device="cpu"``, ``precision=``, ``batch_size=``, ``threads=``, ``cache_dir=``) into one frozen
:class:`ModelSettings`: each value checked (a typo is one ``InputError`` line), precision's default
(fp32) filled in. ``diveval.score`` calls it at its boundary (the CLI too, before it reads the
input) and the run's context (:class:`diveval.context.RunContext`) carries the result to every
model-backed metric, which gets a model loaded with it and never sees the loose keywords.

The device stays as asked (None: cuda when present), because the shipped ONNX NLI model accepts no
device but the CPU while torch models take the best one: ``available_device`` resolves it when a
torch model loads, the one place that asks torch. Backends record it in their signatures when it
is not the CPU, since GPU kernels give slightly different numbers; the shipped NLI model runs on
onnxruntime's CPU provider only: asking it for a GPU is an error, not a silent fall-back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Optional, TypedDict

from ..errors import InputError
from ..options import OPTION
from .threads import check_threads

if TYPE_CHECKING:
    from typing import Unpack  # Python 3.11+; only postponed annotations name it

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


def model_signature(model: Any) -> dict[str, Any]:
    """The signature entries naming a loaded model: its name, its weights' fingerprint, and its
    device and precision where they are not the CPU's fp32 (None entries are left out)."""
    return {
        "model": model.name,
        "fp": model.fingerprint,
        "dev": signature_device(model),
        "prec": signature_precision(model),
    }


def _recorded(model: object, attribute: str, usual: str) -> Optional[str]:
    """A backend's (or the backend a cache wraps) ``attribute`` for a signature; None when it is
    the ``usual`` one, so signatures that do not name it stay as they were."""
    for obj in (model, getattr(model, "model", None)):
        value = getattr(obj, attribute, None)
        if isinstance(value, str):
            return None if value == usual else value
    return None


def signature_device(model: object) -> Optional[str]:
    """The device a backend runs on, for a signature; None on the CPU."""
    return _recorded(model, "device", "cpu")


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


def as_built(precision: str, what: str, applies_to: str) -> None:
    """A model that cannot be cast (an object built by the caller, an ONNX model) runs as it was
    built: ``auto`` leaves it so; an explicit half precision is an error, not a silent fp32 run.
    ``applies_to``: the models the precision does apply to."""
    if precision not in (DEFAULT_PRECISION, "auto"):
        raise InputError(
            f"precision {precision} applies to {applies_to}; {what} runs as it was built"
        )


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
    """The precision a backend runs in, for a signature; None for fp32."""
    return _recorded(model, "precision", "fp32")


# batch sizes by GPU memory: the CPU defaults were chosen for a few GiB of RAM; a GPU with more
# free memory takes larger batches (fewer kernel launches): x2 each time the free memory doubles
# past 4 GiB (8 GiB: x2, 64 GiB: x16), a rule of thumb that keeps BERT-size models well inside
# memory at their maximum sequence length
_GIB = 1 << 30

#: The batch of BERTScore (bert-score's own default) and of the sentence embedders on the CPU,
#: scaled on a GPU by :func:`batch_size_for`; the NLI and similarity cross-encoders take 32.
CPU_BATCH_SIZE = 64


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


#: The options that resolve into :class:`ModelSettings` (``threads`` is process-wide: the run's
#: boundary applies it; the others are per model and metric rows take them).
SETTINGS_OPTIONS = ("device", "precision", "batch_size", "cache_dir")


@dataclass(frozen=True)
class ModelSettings:
    """How a run's models are loaded. device: as asked, spelling checked (None: cuda when
    present, see ``available_device``); precision: fp32, fp16, bf16 or auto; batch_size: None
    for the backend's default by device; threads: the CPU threads asked for (None:
    ``models.threads``' default); cache_dir: the on-disk score cache (None: memory only)."""

    device: Optional[str] = None
    precision: str = DEFAULT_PRECISION
    batch_size: Optional[int] = None
    threads: Optional[int] = None
    cache_dir: Optional[str] = None

    def place(self, module: Any, cpu_batch_size: int, device: Optional[str] = None):
        """A torch backend's ``module`` on the device (``device``: already asked of torch), in
        eval mode, cast to the precision; (device, precision, batch size) for the backend to
        record (the batch size: the one set, else ``cpu_batch_size`` scaled by the device)."""
        device = device or available_device(self.device)
        module.to(device).eval()
        precision = resolve_precision(self.precision, device)
        cast_module(module, precision)  # before any fingerprint: caches keep precisions apart
        return (
            device,
            precision,
            max(1, int(self.batch_size or batch_size_for(device, cpu_batch_size))),
        )

    def for_loading(self) -> ModelSettings:
        """These settings less those that leave a loaded model as it is (the score cache wraps
        it, threads are process-wide): the key a model is loaded once under."""
        return ModelSettings(self.device, self.precision, self.batch_size)


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
    device, precision, threads, cache_dir = (
        merged.get(k) for k in ("device", "precision", "threads", "cache_dir")
    )
    return ModelSettings(
        device=None if device is None else check_device_name(device),
        precision=check_precision_name(precision) or DEFAULT_PRECISION,
        batch_size=check_batch_size(merged.get("batch_size")),
        threads=None if threads is None else check_threads(threads),
        cache_dir=None if cache_dir is None else str(cache_dir),
    )


def run_settings(context: Any, options: Mapping[str, Any]) -> ModelSettings:
    """The settings of the run ``context`` belongs to (resolved once, where the run started), or,
    for a metric called on its own with a bare context, those of its ``options``."""
    found = getattr(context, "models", None)
    return found if isinstance(found, ModelSettings) else resolve_settings(options)


class SettingsKeywords(TypedDict, total=False):
    """The loose settings a direct call to a loader may give in place of a ``ModelSettings``."""

    device: Optional[str]
    batch_size: Optional[int]
    precision: Optional[str]


class RunSettingsKeywords(SettingsKeywords, total=False):
    """The loose settings of a metric called on its own: a loader's, and the score cache's."""

    cache_dir: Optional[str]


def settings_of(
    settings: Optional[ModelSettings], **keywords: Unpack[SettingsKeywords]
) -> ModelSettings:
    """A loader's settings: the run's, or those of a direct call's ``keywords`` (never both)."""
    if settings is None:
        return resolve_settings(**keywords)
    if any(v is not None for v in keywords.values()):
        raise TypeError("give model settings or their keywords, not both")  # a developer's slip
    return settings


def split_settings(
    options: Mapping[str, Any], settings: Optional[ModelSettings] = None, context: Any = None
) -> tuple[ModelSettings, dict[str, Any]]:
    """(one ModelSettings, the other options): ``settings`` when given, else those of the run
    ``context`` belongs to, else the settings keywords among ``options`` resolved."""
    rest = {k: v for k, v in options.items() if k not in SETTINGS_OPTIONS}
    loose = {k: v for k, v in options.items() if k in SETTINGS_OPTIONS}
    if settings is None:
        return run_settings(context, loose), rest
    return settings_of(settings, **loose), rest


def with_settings(options: dict[str, Any], context: Any) -> dict[str, Any]:
    """A registry row's ``load`` for a metric that loads its own models: its options with the
    loose settings (device, precision, ...) replaced by the run's one ``settings``."""
    settings, rest = split_settings(options, context=context)
    return {**rest, "settings": settings}
