"""The two settings of Tevet & Berant (2021), as explicit input shapes.

- corpus (test-set diversity): a list of strings, one response per context; the metric is
  computed over all of them at once.
- sets (multi-response diversity): a list of lists of strings, m responses per context; the
  metric is computed per set, then averaged.

``as_setting`` tells which one an input is and refuses anything else with a clear message.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence, Union

from .errors import InputError
from .results import CORPUS, SETS

Corpus = Sequence[str]
Sets = Sequence[Sequence[str]]
Texts = Union[Corpus, Sets]


def _plain(data: Any) -> Any:
    """numpy arrays and pandas Series as lists (duck-typed: neither library is imported here);
    a DataFrame needs its text column named (``column=``)."""
    if hasattr(data, "columns") and hasattr(data, "iloc"):
        cols = ", ".join(map(str, list(data.columns)[:10]))
        raise InputError(f"a DataFrame: name the text column with column= (columns: {cols})")
    if hasattr(data, "tolist") and not isinstance(data, (str, list, tuple)):
        data = data.tolist()  # numpy array, pandas Series: nested lists of Python str
    return data


def select_column(data: Any, column: str | None) -> Any:
    """``data[column]`` of a DataFrame (or of any mapping of columns), with a clear error."""
    if column is None:
        return data
    try:
        return data[column]
    except (KeyError, TypeError, IndexError):
        cols = getattr(data, "columns", None)
        known = f" (columns: {', '.join(map(str, list(cols)[:10]))})" if cols is not None else ""
        raise InputError(f"no column {column!r} in the input{known}") from None


def as_setting(data: Any, setting: str | None = None) -> tuple[str, list]:
    """(setting, data as lists) for a corpus or for sets; validates every element.

    Lists, tuples, numpy arrays and pandas Series are accepted (a set may itself be an array)."""
    data = _plain(data)
    if isinstance(data, str):
        raise InputError(
            "expected a list of responses (or a list of response sets), got one string"
        )
    try:
        items = list(data)
    except TypeError:
        raise InputError(f"expected a list of responses, got {type(data).__name__}") from None
    if not items:
        raise InputError("no responses to score")
    if all(isinstance(x, str) for x in items):
        found = CORPUS
        out: list = items
    elif all(isinstance(x, (list, tuple)) or hasattr(x, "tolist") for x in items):
        found = SETS
        out = [list(_plain(s)) for s in items]
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
        raise InputError(
            f"input is in the {found} setting, but the {setting} setting was asked for"
        )
    return found, out


def is_empty(text: str) -> bool:
    """A response that is blank or whitespace only. The one rule of the readers,
    ``diveval.score`` and the integrations: skipped, never scored as a response (an empty
    response has no n-gram and no pair worth a number: scored, a set of them would read as the
    most diverse by Self-BLEU and as the least by distinct-n, without a word)."""
    return not text.strip()


def no_responses(skipped: int) -> str:
    """The one-line error of an input with no response left once the empty ones are skipped."""
    extra = f" ({skipped} empty one{'s' if skipped != 1 else ''} skipped)" if skipped else ""
    return f"no responses to score{extra}"


def skipped_warning(skipped: int, where: str = "") -> str:
    """The warning a run carries when it skipped ``skipped`` empty responses (``where``: which)."""
    return (
        f"skipped {skipped} empty response{'s' if skipped != 1 else ''}"
        + (f" ({where})" if where else "")
        + ": blank responses are not scored"
    )


def listed(indices: Sequence[int], what: str) -> str:
    """``item 3`` / ``items 3, 7, ...``: the first five of ``indices`` (a sixth: there are more)."""
    shown = ", ".join(map(str, indices[:5])) + (", ..." if len(indices) > 5 else "")
    return f"{what}{'s' if len(indices) > 1 else ''} {shown}"


def count_responses(setting: str, items: list) -> int:
    return len(items) if setting == CORPUS else sum(len(s) for s in items)


def without_empty(
    setting: str, items: list, options: dict[str, Any], per_item: Sequence[str] = ()
) -> tuple[list, dict[str, Any], Optional[str]]:
    """(items, options, warning) with the empty responses skipped (:func:`is_empty`): a corpus
    loses those items, a set those responses, and a set left with none is left out, as
    ``diveval score`` reads a file. The ``per_item`` options among ``options`` (references per
    response, a set's logprobs or reference groups) lose the same entries. warning: None when
    nothing was skipped; an input with nothing left is an InputError."""
    if setting == CORPUS:
        dropped = [i for i, t in enumerate(items) if is_empty(t)]
        if not dropped:
            return items, options, None
        keep = [i for i in range(len(items)) if i not in set(dropped)]
        count, where = len(dropped), listed(dropped, "item")
        kept_items = [items[i] for i in keep]
        inner: dict[int, list[int]] = {}
    else:
        inner = {
            i: [j for j, t in enumerate(s) if not is_empty(t)]
            for i, s in enumerate(items)
            if any(is_empty(t) for t in s)
        }
        if not inner:
            return items, options, None
        count = sum(len(items[i]) - len(js) for i, js in inner.items())
        gone = [i for i, js in inner.items() if not js]
        keep = [i for i in range(len(items)) if i not in set(gone)]
        kept_items = [[items[i][j] for j in inner.get(i, range(len(items[i])))] for i in keep]
        where = listed(sorted(inner), "in set") + (
            f"; {listed(gone, 'set')} had none left and {'are' if len(gone) > 1 else 'is'} "
            "left out of the items"
            if gone
            else ""
        )
    if not kept_items:
        raise InputError(no_responses(count))
    out = dict(options)
    for key in per_item:
        values = out.get(key)
        if values is None:
            continue
        values = list(values)
        if setting == CORPUS or key != "logprobs":
            out[key] = [values[i] for i in keep]
        else:  # one number per response of each set (a list of another length: the metric's
            # own error names it)
            out[key] = [
                [values[i][j] for j in inner[i]]
                if i in inner and len(values[i]) == len(items[i])
                else values[i]
                for i in keep
            ]
    return kept_items, out, skipped_warning(count, where)


def flatten_sets(sets: Sets):
    """(all texts, index of the set of each text)."""
    import numpy as np

    texts = [t for s in sets for t in s]
    group = np.repeat(np.arange(len(sets), dtype=np.int64), [len(s) for s in sets])
    return texts, group


def require_sets(data: Any, metric: str) -> list[list[str]]:
    """The input as sets, or an InputError saying that ``metric`` is defined on sets only."""
    found, items = as_setting(data)
    if found != SETS:
        raise InputError(
            f"{metric} is defined on response sets (a list of lists of strings), not on a corpus"
        )
    return items


def set_logprobs(sets: list[list[str]], logprobs: Any, metric: str) -> Optional[list[list[float]]]:
    """The input's ``logprobs`` checked against its sets: one list of finite numbers per set, one
    per response (None where the input has none at all; some sets without them is an error)."""
    if logprobs is None:
        return None
    rows = list(logprobs)
    if len(rows) != len(sets):
        raise InputError(
            f"{metric}: logprobs has {len(rows)} rows for {len(sets)} sets (one list per set, "
            "one number per response)"
        )
    if all(r is None for r in rows):
        return None
    out = []
    for g, (row, s) in enumerate(zip(rows, sets)):
        if row is None:
            raise InputError(f"{metric}: set {g} has no logprobs while others have them")
        try:
            values = [float(x) for x in row]
        except (TypeError, ValueError):
            raise InputError(f"{metric}: the logprobs of set {g} must be numbers") from None
        if len(values) != len(s):
            raise InputError(f"{metric}: set {g} has {len(s)} responses but {len(values)} logprobs")
        if not all(math.isfinite(v) for v in values):
            raise InputError(f"{metric}: the logprobs of set {g} must be finite numbers")
        out.append(values)
    return out


def sequence_probabilities(logprobs: Sequence[float]) -> Any:
    """p_i = exp(l_i) / sum_j exp(l_j): one set's sequence probabilities, normalised (from
    l_i - max l, so no probability that matters underflows)."""
    import numpy as np

    lp = np.asarray(logprobs, dtype=np.float64)
    w = np.exp(lp - lp.max())
    return w / w.sum()


def require_pairs(sizes, metric: str) -> None:
    """Pairwise metrics need at least two responses in every set: say which set has fewer."""
    import numpy as np

    small = np.flatnonzero(np.asarray(sizes) < 2)
    if small.size:
        raise InputError(
            f"{metric} compares responses in pairs: set {int(small[0])} has "
            f"{int(sizes[small[0]])} response(s), at least 2 are needed"
        )


def _pairs_in_sets(sizes, ordered: bool):
    import numpy as np

    firsts, seconds, owners = [], [], []
    start = 0
    for s, m in enumerate(sizes):
        m = int(m)
        i, j = np.nonzero(~np.eye(m, dtype=bool)) if ordered else np.tril_indices(m, k=-1)
        firsts.append(i + start)
        seconds.append(j + start)
        owners.append(np.full(i.size, s))
        start += m
    if not firsts:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    return tuple(np.concatenate(x).astype(np.int64) for x in (firsts, seconds, owners))


def unordered_pairs(sizes):
    """(i, j, set) flat text indices of every pair i > j inside each set."""
    return _pairs_in_sets(sizes, ordered=False)


def ordered_pairs(sizes):
    """(premise, hypothesis, set) flat text indices of every ordered pair i != j inside each set."""
    return _pairs_in_sets(sizes, ordered=True)
