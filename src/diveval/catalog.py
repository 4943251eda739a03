"""Which modules register metrics. Importing one fills ``registry.METRICS`` with its entries.

They are imported in this order, each once: all of them by :func:`load`, or as many as it takes
to register one metric (``load(until=...)``), so that a run of a lexical metric does not import
the semantic and reference families (about 27 ms of CPU at start-up).
"""

from __future__ import annotations

import importlib
from typing import Callable

METRIC_MODULES = [
    "diveval.lexical.register",
    "diveval.semantic.register",
    "diveval.reference.register",
]

_loaded = 0  # how many of METRIC_MODULES are imported


def load(until: Callable[[], bool] | None = None) -> None:
    """Import the metric modules in order; with ``until``, stop as soon as it holds (a name is
    registered), so the modules after the one that registers it stay unimported."""
    global _loaded
    while _loaded < len(METRIC_MODULES):
        if until is not None and until():
            return
        importlib.import_module(METRIC_MODULES[_loaded])
        _loaded += 1
