"""The two settings of Tevet & Berant (2021), as explicit input shapes.

- corpus (test-set diversity): a list of strings, one response per context; the metric is
  computed over all of them at once.
- sets (multi-response diversity): a list of lists of strings, m responses per context; the
  metric is computed per set, then averaged.

``as_setting`` tells which one an input is and refuses anything else with a clear message.
"""

from __future__ import annotations

from typing import Any, Sequence, Union

from .errors import InputError
from .results import CORPUS, SETS

Corpus = Sequence[str]
Sets = Sequence[Sequence[str]]
Texts = Union[Corpus, Sets]


def as_setting(data: Any, setting: str | None = None) -> tuple[str, list]:
    """(setting, data as lists) for a corpus or for sets; validates every element."""
    if isinstance(data, str):
        raise InputError("expected a list of responses (or a list of response sets), got one string")
    try:
        items = list(data)
    except TypeError:
        raise InputError(f"expected a list of responses, got {type(data).__name__}") from None
    if not items:
        raise InputError("no responses to score")
    if all(isinstance(x, str) for x in items):
        found = CORPUS
        out: list = items
    elif all(isinstance(x, (list, tuple)) for x in items):
        found = SETS
        out = [list(s) for s in items]
        for i, s in enumerate(out):
            bad = [x for x in s if not isinstance(x, str)]
            if bad:
                raise InputError(f"set {i}: response is {type(bad[0]).__name__}, not a string")
    else:
        kinds = sorted({type(x).__name__ for x in items})
        raise InputError(
            "expected either strings (corpus) or lists of strings (sets), got a mix of "
            + ", ".join(kinds)
        )
    if setting is not None and setting != found:
        raise InputError(f"input is in the {found} setting, but the {setting} setting was asked for")
    return found, out


def flatten_sets(sets: Sets):
    """(all texts, index of the set of each text)."""
    import numpy as np

    texts = [t for s in sets for t in s]
    group = np.repeat(np.arange(len(sets), dtype=np.int64), [len(s) for s in sets])
    return texts, group
