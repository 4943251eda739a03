"""Errors that the CLI turns into one-line messages (exit status 2, no traceback)."""

from __future__ import annotations


class DivevalError(Exception):
    """Base class of every error diveval raises on purpose."""


class InputError(DivevalError, ValueError):
    """Bad input: names the file and line when they are known.

    ``str(err)`` is the one-line message a person sees, e.g.
    ``responses.jsonl:12: "responses" must be a list of strings``.
    """

    def __init__(self, problem: str, path: str | None = None, line: int | None = None):
        self.problem = problem
        self.path = path
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(f"{where}{problem}")


class MissingDependencyError(DivevalError, ImportError):
    """An optional dependency is needed; the message says what to install."""

    def __init__(self, what: str, extra: str):
        super().__init__(f"{what} needs extra packages: pip install 'diveval[{extra}]'")
