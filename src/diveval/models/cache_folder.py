"""diveval's own folder for files it makes once and reuses: converted or unpacked model weights."""

from __future__ import annotations

import os
from pathlib import Path


def cache_folder() -> Path:
    """diveval's cache folder: $DIVEVAL_CACHE, else $XDG_CACHE_HOME/diveval, else ~/.cache/diveval."""
    if os.environ.get("DIVEVAL_CACHE"):
        return Path(os.environ["DIVEVAL_CACHE"]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "diveval"
