"""Progress bars for anything that may run longer than a second: one style (rich), on stderr,
shown only when stderr is a terminal and the run is not quiet (``--quiet`` / ``set_quiet``).

The CLI also silences the bars and log lines of the libraries it drives (transformers' weight
loading, sentence-transformers' tqdm): one style, and nothing on a log file."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, TypeVar

T = TypeVar("T")
_quiet = False


def set_quiet(quiet: bool = True) -> None:
    """No progress bar anywhere in this process (``--quiet``)."""
    global _quiet
    _quiet = bool(quiet)


def bars_enabled(enabled: bool | None = None) -> bool:
    """Whether a bar shows: never when quiet; by default only on a terminal."""
    if _quiet:
        return False
    return sys.stderr.isatty() if enabled is None else bool(enabled)


def silence_libraries() -> None:
    """Turn off the progress bars and info logs of tqdm, transformers and the Hugging Face hub
    (their own style; they would also leak into redirected stderr)."""
    import os

    os.environ.setdefault("TQDM_DISABLE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    # libraries imported before (in a long-lived process) read those variables already
    if "transformers" in sys.modules:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    if "huggingface_hub" in sys.modules:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()


def track(
    iterable: Iterable[T], description: str, total: int | None = None, enabled: bool | None = None
) -> Iterator[T]:
    """Yield from ``iterable`` with a transient progress bar on stderr when it is a terminal."""
    if not bars_enabled(enabled):
        yield from iterable
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(description, total=total)
        for item in iterable:
            yield item
            progress.advance(task)


@contextmanager
def status(description: str, enabled: bool | None = None) -> Iterator[None]:
    """A spinner on stderr while a single long call runs (when bars are enabled)."""
    if not bars_enabled(enabled):
        yield
        return
    from rich.console import Console

    with Console(stderr=True).status(description):
        yield


@contextmanager
def counter(
    description: str, total: int, enabled: bool | None = None
) -> Iterator[Callable[[int], None]]:
    """A bar over ``total`` units of work (pairs, say) with the time left; yields
    ``update(done)``, to call with the units done so far (a terminal only, as every bar)."""
    if not bars_enabled(enabled) or total <= 0:
        yield lambda done: None
        return
    with _counting_bar(description, total) as (progress, task):
        yield lambda done: progress.update(task, completed=done)


@contextmanager
def rate_counter(
    description: str, total: int, unit: str = "", enabled: bool | None = None
) -> Iterator[Callable[[int], None]]:
    """A bar over ``total`` units with the rate (units/s) and the time left; yields
    ``advance(n)``, to call with the units just done (a terminal only, as every bar)."""
    if not bars_enabled(enabled) or total <= 0:
        yield lambda n: None
        return
    with _counting_bar(description, total, rate_unit=unit) as (progress, task):
        yield lambda n: progress.advance(task, n)


@contextmanager
def _counting_bar(
    description: str, total: int, rate_unit: str | None = None
) -> Iterator[tuple[Any, Any]]:
    """(rich Progress, its task): done of total, elapsed time and ETA, with the rate in
    ``rate_unit``/s after the count when one is given."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task) -> Text:
            speed = task.finished_speed or task.speed
            return Text(f"{speed:.2f} {rate_unit}/s" if speed else f"- {rate_unit}/s")

    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn()]
    if rate_unit is not None:
        columns.append(Rate())
    columns += [TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn()]
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        yield progress, progress.add_task(description, total=total)
