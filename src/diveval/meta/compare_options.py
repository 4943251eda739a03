"""The choices and defaults of :mod:`diveval.meta.compare` that ``diveval compare`` and
``diveval leaderboard`` declare as flags, apart from the method (numpy, scipy, the metrics), so
that building the parser imports none of it. ``meta.compare`` imports them from here: one
definition each."""

from __future__ import annotations

# the bootstrap's, which compare and leaderboard share (their callers read cmp.DEFAULT_SEED, ...)
from ..constants import DEFAULT_CONFIDENCE as DEFAULT_CONFIDENCE
from ..constants import DEFAULT_RESAMPLES as DEFAULT_RESAMPLES
from ..constants import DEFAULT_SEED as DEFAULT_SEED

DEFAULT_REFIT_RESAMPLES = 200  # metrics refitted on every resample (MAUVE): see meta.compare
DEFAULT_ALPHA = 0.05
TESTS = ("permutation", "bootstrap")
DEFAULT_TEST = "permutation"
LEVELS = (1, 2)
DEFAULT_LEVELS = 1
MATCHES = ("id", "prompt", "position")
