"""The choices and defaults of :mod:`diveval.meta.statistics.leaderboard` that ``diveval
leaderboard`` declares as flags, apart from the method, so that building the parser imports none of
it (the flags it shares with ``compare`` are :mod:`diveval.meta.statistics.compare_options`').
``meta.statistics.leaderboard`` imports them from here: one definition each."""

from __future__ import annotations

INTERVALS = ("simultaneous", "per-system")
DEFAULT_INTERVALS = "simultaneous"
