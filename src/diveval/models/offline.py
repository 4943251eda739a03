"""diveval runs Hugging Face offline unless the user asks for the network.

A model name that is not in the local cache would otherwise cost a minute of hub retries on a
machine without a network before any error. So every load of a Hugging Face model (transformers,
sentence-transformers, BERTScore) runs inside :func:`hub_offline`, which turns the hub's offline
mode on for that load only and puts the user's own settings back afterwards.

Opting in to the network, for a run that downloads a model once:
- ``--online`` on the commands that load models, or ``DIVEVAL_ONLINE=1`` in the environment;
- an explicit ``HF_HUB_OFFLINE=0`` (or false/no/off): the hub's own switch, said on purpose.
``HF_HUB_OFFLINE=1`` set by the user always wins: diveval never turns the hub online.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from pathlib import Path
from typing import Iterator

from ..errors import InputError

ONLINE_ENV = "DIVEVAL_ONLINE"
#: The variables huggingface_hub and older transformers read (at import) to stay offline.
_OFFLINE_VARS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")

_lock = threading.RLock()


def error_line(err: BaseException) -> str:
    """The first line of an error from a model library (their messages run on), or its type."""
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def _env(name: str) -> str:
    return os.environ.get(name, "").strip().lower()


def online_requested() -> bool:
    """True when the user opted in to the network (``--online``, ``DIVEVAL_ONLINE=1`` or an
    explicit ``HF_HUB_OFFLINE=0``)."""
    return _env(ONLINE_ENV) in _TRUE or _env("HF_HUB_OFFLINE") in _FALSE


def user_offline() -> bool:
    """True when the user's own environment keeps the hub offline (HF_HUB_OFFLINE=1...)."""
    return any(_env(name) in _TRUE for name in _OFFLINE_VARS)


def hub_is_offline() -> bool:
    """Whether a Hugging Face load made now through :func:`hub_offline` stays on this machine."""
    return user_offline() or not online_requested()


def how_to_get(spec: str) -> str:
    """What to do when ``spec`` is not in the local cache: the end of a one-line error."""
    if user_offline():
        return (
            "the hub is offline (HF_HUB_OFFLINE=1 is set): unset it and run once with --online "
            "(or DIVEVAL_ONLINE=1) where there is a network, or give a local folder"
        )
    return (
        f"diveval runs offline unless asked: run once with --online (or DIVEVAL_ONLINE=1) where "
        f"there is a network to download it (or hf download {spec}), or give a "
        "local folder"
    )


@contextlib.contextmanager
def hub_offline() -> Iterator[None]:
    """Hugging Face offline inside the block unless the user opted in; the user's environment
    and the hub's setting as they were after it.

    The environment variables are set before anything below imports huggingface_hub or
    transformers (both read them at import); the hub's module-level switch is set too, for when
    they were imported before. A lock keeps two threads from restoring each other's settings.
    """
    if online_requested():
        yield
        return
    with _lock:
        saved_env = {name: os.environ.get(name) for name in _OFFLINE_VARS}
        constants = _hub_constants()  # imported with the user's settings, so it saves theirs
        saved_flag = getattr(constants, "HF_HUB_OFFLINE", None)
        try:
            for name in _OFFLINE_VARS:
                os.environ[name] = "1"
            if constants is not None:
                constants.HF_HUB_OFFLINE = True
            yield
        finally:
            for name, value in saved_env.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            if constants is not None:
                constants.HF_HUB_OFFLINE = saved_flag


def _hub_constants():
    """huggingface_hub's constants module (cheap: the package imports lazily), None without it."""
    if "huggingface_hub.constants" in sys.modules:
        return sys.modules["huggingface_hub.constants"]
    try:
        from huggingface_hub import constants
    except ImportError:
        return None
    return constants


def check_model_spec(spec: str, what: str) -> None:
    """A model named by path must exist; a hub name must be in the local cache when the hub is
    offline (diveval's default), checked here in one look-up instead of the hub client's
    retries."""
    if Path(spec).expanduser().exists():
        return
    if spec.startswith((".", "/", "~")) or spec.count("/") > 1:  # a path, not "org/name"
        raise InputError(f"{what} {spec!r}: no such file or folder")
    if hub_is_offline():
        try:
            from huggingface_hub import try_to_load_from_cache
        except ImportError:
            return
        # some sentence-transformers versions read a bare name as one of their own organisation's
        names = [spec] + ([f"sentence-transformers/{spec}"] if "/" not in spec else [])
        try:
            cached = [try_to_load_from_cache(name, "config.json") for name in names]
        except ValueError:  # the hub's name rules (characters, length)
            raise InputError(
                f"{what} {spec!r} is neither a local folder nor a Hugging Face model name"
            ) from None
        if not any(isinstance(c, str) for c in cached):
            raise InputError(
                f"{what} {spec!r} is not in the local Hugging Face cache nor a local folder; "
                + how_to_get(spec)
            )
