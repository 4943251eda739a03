"""CPU threads of the model backends (torch, onnxruntime), chosen once per process.

torch starts as many intra-op threads as there are cores, plus an inter-op pool as large, and
onnxruntime as many again; their OpenMP threads spin while they wait for each other. On a machine
where another process keeps some cores busy, a thread that loses its core holds every other one
up: SmolLM2 sampling took 80-93 s with a competing process on 2 cores, 15 s with one thread.

The number (``threads()``): ``--threads`` / ``threads=`` when given, else ``$DIVEVAL_THREADS``,
else the cores this process may run on (``os.sched_getaffinity``) less those the rest of the
machine keeps busy (the 1-minute load average, read before the first model loads, so before this
process adds to it), at least 1. torch gets it for both its intra-op and inter-op pools, once,
before its first model (``torch_threads()``); onnxruntime gets it for its intra-op pool, with one
inter-op thread (``onnx_threads()``). A thread count changes no score (``benchmarks/threads.py``
measures the time), so no signature names it.
"""

from __future__ import annotations

import os
import threading
from typing import Optional

from ..errors import InputError

THREADS_ENV = "DIVEVAL_THREADS"

_lock = threading.Lock()
_chosen: Optional[int] = None  # set by set_threads (the CLI's --threads, the API's threads=)
_torch_done = False


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity), else the machine's."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def default_threads() -> int:
    """The usable cores less the ones other processes keep busy, at least 1."""
    cores = usable_cores()
    try:
        busy = int(os.getloadavg()[0])
    except (AttributeError, OSError):
        busy = 0
    return max(1, min(cores, cores - busy))


def check_threads(value: object, where: str = "--threads") -> int:
    """A thread count of at least 1, or an InputError naming where it came from."""
    try:
        n = int(str(value).strip())
    except ValueError:
        raise InputError(f"{where} must be a positive integer, got {value!r}") from None
    if n < 1:
        raise InputError(f"{where} must be a positive integer, got {value!r}")
    return n


def threads() -> int:
    """The thread count of this process (see the module's docstring)."""
    if _chosen is not None:
        return _chosen
    env = os.environ.get(THREADS_ENV)
    if env is not None and env.strip():
        return check_threads(env, f"${THREADS_ENV}")
    return default_threads()


def set_threads(n: Optional[int]) -> None:
    """Use ``n`` threads from now on (None: back to the default); torch, if already set up,
    changes its intra-op pool at once (its inter-op pool is fixed once started)."""
    global _chosen
    with _lock:
        _chosen = None if n is None else check_threads(n)
        if _torch_done:
            import torch

            torch.set_num_threads(threads())


def torch_threads() -> int:
    """Set torch's intra-op and inter-op pools to ``threads()``, once, before its first model."""
    global _torch_done
    with _lock:
        n = threads()
        if not _torch_done:
            import torch

            torch.set_num_threads(n)
            try:
                torch.set_num_interop_threads(n)
            except RuntimeError:  # parallel work already ran: the pool is fixed
                pass
            _torch_done = True
        return n


def onnx_threads() -> int:
    """onnxruntime's intra-op threads (its inter-op pool gets one)."""
    return threads()
