"""The choices and defaults of :mod:`diveval.meta.statistics.compare` that ``diveval compare`` and
``diveval leaderboard`` declare as flags, apart from the method (numpy, scipy, the metrics), so
that building the parser imports none of it. ``meta.statistics.compare`` imports them from here: one
definition each. :func:`check_choices` checks a run's choices against them."""

from __future__ import annotations

import math

# the bootstrap's, which compare and leaderboard share (their callers read cmp.DEFAULT_SEED, ...)
from ...constants import DEFAULT_CONFIDENCE as DEFAULT_CONFIDENCE
from ...constants import DEFAULT_RESAMPLES as DEFAULT_RESAMPLES
from ...constants import DEFAULT_SEED as DEFAULT_SEED
from ...errors import InputError

DEFAULT_REFIT_RESAMPLES = (
    200  # metrics refitted on every resample (MAUVE): see meta.statistics.compare
)
DEFAULT_ALPHA = 0.05
TESTS = ("permutation", "bootstrap")
DEFAULT_TEST = "permutation"
LEVELS = (1, 2)
DEFAULT_LEVELS = 1
MATCHES = ("id", "prompt", "position")


def check_choices(test: str, n_resamples: int, alpha: float, confidence: float, levels: int):
    if test not in TESTS:
        raise InputError(f"unknown test {test!r}; choose {' or '.join(TESTS)}")
    if levels not in LEVELS:
        raise InputError(f"levels is 1 (prompts) or 2 (prompts, then responses), got {levels}")
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be in (0, 1), got {alpha}")
    if not 0 < confidence < 1:
        raise InputError(f"confidence must be in (0, 1), got {confidence}")
    if n_resamples * (1 - confidence) / 2 < 5:
        need = math.ceil(10 / (1 - confidence))
        raise InputError(
            f"{n_resamples} resamples are too few for a {confidence:g} interval: each tail needs "
            f"at least 5 resamples; use --resamples {need} or more"
        )
