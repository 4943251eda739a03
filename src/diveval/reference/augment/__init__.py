"""Deprecated import path: SCARCE augmentation is the top-level package :mod:`diveval.augment`.

``diveval.reference.augment`` and its submodules (``.retrieval``, ``.pipeline``, ...) still import,
with a DeprecationWarning, and are the very same module objects as ``diveval.augment``'s.
"""

from __future__ import annotations

import importlib
import sys
import warnings

warnings.warn(
    "diveval.reference.augment moved to diveval.augment; the old path will be removed",
    DeprecationWarning,
    stacklevel=2,
)

from diveval.augment import *  # noqa: E402,F403  (the alias re-exports the package)
from diveval.augment import __all__  # noqa: E402,F401

for _sub in ("adapters", "commonsense", "corpus", "pipeline", "retrieval"):
    sys.modules[f"{__name__}.{_sub}"] = importlib.import_module(f"diveval.augment.{_sub}")
