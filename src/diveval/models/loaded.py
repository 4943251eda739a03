"""Model backends loaded once per process and shared by every run.

A loaded backend (spaCy word vectors, a BERTScore scorer) is never changed after loading, so runs,
threads and Ray actors may share it safely: only the loading is guarded by a lock, so a model is
never built twice at once. Results computed *with* a model are per-run (see ``diveval.context``).
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Hashable, TypeVar

T = TypeVar("T")

_backends: dict[Hashable, Any] = {}
#: held while a backend is built, by ``load_once`` and by loaders that keep their own
#: ``functools.cache`` (``models.embedders``)
LOADING = threading.RLock()  # a loader may load another (re-entrant)


def load_once(key: Hashable, build: Callable[[], T]) -> T:
    """``build()`` the first time ``key`` is asked for in this process, the same object after."""
    with LOADING:
        if key not in _backends:
            _backends[key] = build()
        return _backends[key]
