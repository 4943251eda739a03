"""Progress bars for anything that may run longer than a second (rich; quiet when not a TTY)."""

from __future__ import annotations

import sys
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")


def track(
    iterable: Iterable[T], description: str, total: int | None = None, enabled: bool | None = None
) -> Iterator[T]:
    """Yield from ``iterable`` with a transient progress bar on stderr when it is a terminal."""
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        yield from iterable
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(description, total=total)
        for item in iterable:
            yield item
            progress.advance(task)
