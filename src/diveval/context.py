"""The per-run context: work that several metrics of one ``diveval.score`` call share.

``diveval.score`` makes one ``RunContext`` per call and hands it to every metric whose function
takes a ``context`` argument: the token lists of a (tokenizer, lowercase) choice, the LSDSCC
alignment behind MDS / PDS / MaxBLEU, the BERTScore matrix behind P / R / F. It lives as long as
the run, so two runs, two threads or two Ray actors never share a memo by accident; a metric called
on its own gets a fresh context and computes everything itself.

It also carries the run's model settings (``models``: a :class:`diveval.models.devices.
ModelSettings`), resolved once by the engine that starts the run, so every model-backed metric
loads its model with the same checked device, precision and batch size; None for a bare context
(a metric called on its own resolves its own keywords).

Loaded model backends are a different thing: they are immutable after loading and are kept per
process by :mod:`diveval.models.loaded`.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Hashable, TypeVar

from .constants import DEFAULT_TOKENIZER
from .text.prepared import prepare

T = TypeVar("T")


class RunContext:
    """Memos of one run. ``memo(key, build)`` computes ``build()`` once per key in this run.

    progress: whether the run may show progress bars (a terminal only); models: the run's
    ``ModelSettings`` (typed loosely: the models layer sits above this one).
    """

    def __init__(self, progress: bool = False, models: Any = None) -> None:
        self.progress = progress
        self.models = models
        self._memo: dict[Hashable, Any] = {}
        # one run may score its metrics from several threads (the Ray engine's actors each have
        # their own run); the lock keeps a memo from being built twice at once
        self._lock = threading.RLock()

    def memo(self, key: Hashable, build: Callable[[], T]) -> T:
        with self._lock:
            if key not in self._memo:
                self._memo[key] = build()
            return self._memo[key]

    def prepared(self, items: list, tokenizer: Any, lowercase: bool) -> Any:
        """``items`` tokenized once per (tokenizer, lowercase) for all lexical metrics of a run."""
        name = tokenizer or DEFAULT_TOKENIZER
        key = ("prepared", name if isinstance(name, str) else id(name), bool(lowercase))
        return self.memo(key, lambda: prepare(items, name, bool(lowercase)))

    def __contains__(self, key: Hashable) -> bool:
        return key in self._memo
