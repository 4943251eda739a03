"""The Ray a run uses: joined once per process, quiet unless asked, rows kept in order.

Both the engine (``scale.ray_engine``) and the inputs Ray Data reads (``scale.ray_read``) start
Ray through here. Ray is imported inside the functions: a user without Ray never imports it.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from ..errors import MissingDependencyError


def start_ray(address: str | None, verbose: bool = False) -> Any:
    """The ``ray`` module, joined to the cluster at ``address`` or to a Ray of this process's
    own (started here when none runs), with Ray Data keeping rows in order."""
    try:
        import ray
        import ray.data
    except ImportError:
        raise MissingDependencyError("engine='ray'", "ray") from None
    if not ray.is_initialized():
        # Ray's usage statistics probe cloud metadata servers (169.254.169.254) and report to
        # Anyscale: network use diveval never asks for. The user's setting wins.
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": verbose}
        if not verbose:
            # a Ray that diveval starts keeps its start-up and Ray Data INFO lines to itself
            # (they stay in Ray's session log files); errors still show
            kwargs["logging_level"] = logging.ERROR
            _quiet_ray_data()
        # without an address Ray joins the Ray last started on this machine, whoever started
        # it (on a shared machine: another user's, with their environment); diveval starts its
        # own unless told where to go (--address, or RAY_ADDRESS as Ray reads it)
        kwargs["address"] = address or os.environ.get("RAY_ADDRESS") or "local"
        ray.init(**kwargs)
    ctx = ray.data.DataContext.get_current()
    ctx.execution_options.preserve_order = True  # batches come back in input order
    ctx.enable_progress_bars = False
    return ray


def ray_initialized() -> bool | None:
    """Whether this process has a Ray already (None: Ray is not installed)."""
    try:
        import ray
    except ImportError:
        return None
    return bool(ray.is_initialized())


def _quiet_ray_data() -> None:
    """Ray Data logs each execution (plan, timings) on its own console handler, not through the
    "ray" logger that ``ray.init(logging_level=...)`` sets: raise that handler's level only, so
    that its log file keeps everything."""
    for handler in logging.getLogger("ray.data").handlers:
        if isinstance(handler, logging.StreamHandler) and not isinstance(
            handler, logging.FileHandler
        ):  # the console (Ray Data's session file handler is no stream)
            handler.setLevel(logging.ERROR)
