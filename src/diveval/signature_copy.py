"""A thin wrapper declared with the parameters of the function it passes its arguments on to.

Writing the wrapped function's parameter list again is a second place for every default to
drift; ``*args, **kwargs`` alone hides the parameters from ``help()``, ``inspect`` and type
checkers. :func:`same_signature` gives the wrapper the wrapped function's parameters, typed
(a ``ParamSpec``), and keeps the wrapper's own return type.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Callable, TypeVar

if TYPE_CHECKING:
    from typing import Concatenate, ParamSpec

    P = ParamSpec("P")
else:
    # ParamSpec is Python 3.10+; at run time P only appears in postponed annotations (strings).
    P = TypeVar("P")
R = TypeVar("R")
S = TypeVar("S")
T = TypeVar("T")


def same_signature(source: Callable[P, Any]) -> Callable[[Callable[..., R]], Callable[P, R]]:
    """Decorate ``wrapper(*args, **kwargs)``, which calls ``source`` with its arguments: type
    checkers check its calls against ``source``'s parameters, and ``inspect.signature`` (so
    ``help``) lists them, with the wrapper's own return annotation."""

    def declare(wrapper: Callable[..., R]) -> Callable[P, R]:
        returns = inspect.signature(wrapper).return_annotation
        signature = inspect.signature(source).replace(return_annotation=returns)
        wrapper.__signature__ = signature  # type: ignore[attr-defined]
        return wrapper

    return declare


def same_options(
    source: Callable[Concatenate[Any, Any, P], Any],
) -> Callable[[Callable[Concatenate[S, T, ...], R]], Callable[Concatenate[S, T, P], R]]:
    """Like :func:`same_signature` for a wrapper that keeps its own first two parameters (what it
    scores, in its own shape) and takes ``source``'s other parameters after them."""

    def declare(wrapper: Callable[Concatenate[S, T, ...], R]) -> Callable[Concatenate[S, T, P], R]:
        own = inspect.signature(wrapper)
        first_two = list(own.parameters.values())[:2]
        rest = list(inspect.signature(source).parameters.values())[2:]
        signature = own.replace(parameters=[*first_two, *rest])
        wrapper.__signature__ = signature  # type: ignore[attr-defined]
        return wrapper

    return declare
