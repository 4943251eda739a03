"""Errors that the CLI turns into one-line messages (exit status 2, no traceback)."""

from __future__ import annotations

import re

#: Characters that would break the one-line message (Python's str.splitlines() breaks on all of
#: them) or that stderr cannot encode (lone surrogates); they are shown escaped instead.
_UNPRINTABLE = re.compile("[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029\ud800-\udfff]")


def one_line(text: str) -> str:
    """``text`` with line breaks and lone surrogates escaped, e.g. a field name from the input."""
    return _UNPRINTABLE.sub(lambda m: repr(m.group())[1:-1], text)


def did_you_mean(name: str, choices, cutoff: float = 0.6) -> str:
    """``" (did you mean 'X'?)"`` for the choice nearest to a mistyped ``name``, else ``""``."""
    import difflib

    near = difflib.get_close_matches(str(name), [str(c) for c in choices], n=1, cutoff=cutoff)
    return f" (did you mean {near[0]!r}?)" if near else ""


class DivevalError(Exception):
    """Base class of every error diveval raises on purpose."""


class InputError(DivevalError, ValueError):
    """Bad input: names the file and line when they are known.

    ``str(err)`` is the one-line message a person sees, e.g.
    ``responses.jsonl:12: "responses" must be a list of strings``.
    """

    def __init__(self, problem: str, path: str | None = None, line: int | None = None):
        # Messages quote the input (field names, queries): keep them one line whatever it holds.
        problem = one_line(problem)
        self.problem = problem
        self.path = path
        self.line = line
        where = ""
        if path is not None:
            path = one_line(path)
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(f"{where}{problem}")


# The extras that bring torch. pip's default torch on Linux is a CUDA build of several GB, so the
# hint installs the CPU wheel first, pinned as the Makefile pins it (a test keeps the two equal).
TORCH_CPU = "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
TORCH_EXTRAS = frozenset({"models", "train", "torchmetrics", "lm-eval", "all"})


def install_hint(extra: str) -> str:
    """The commands that install ``extra``: the CPU torch first where the extra brings torch."""
    then = f"pip install 'diveval[{extra}]'"
    return f"{TORCH_CPU}, then {then}" if extra in TORCH_EXTRAS else then


class MissingDependencyError(DivevalError, ImportError):
    """An optional dependency is needed; the message says what to install."""

    def __init__(self, what: str, extra: str):
        super().__init__(f"{what} needs extra packages: {install_hint(extra)}")
