"""The kinds of run `diveval score` makes, and which flags each takes.

A run is whole (the default) or one of the modes a flag chooses: ``--level``, ``--across``,
``--stream-memory``, ``--shard``. Each mode's module (``score_level``, ``score_across``,
``score_stream``, ``score_shard``) declares its :class:`Mode`: the flags that choose it and, of
the flags below whose meaning belongs to a kind of run, the ones it takes. One rule then refuses,
before the input is read, a flag that the chosen kind of run does not take, naming the kinds
that do; no pair of modes needs a rule of its own.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ..errors import InputError
from ..options import OPTION


def _given(name: str) -> Callable[[argparse.Namespace], bool]:
    """Whether the flag of argument ``name`` (None unless given) was given."""
    return lambda a: getattr(a, name) is not None


# the run flags that are metric options, by the flags their declarations give (written once)
AT_K, AT_K_DRAWS, AT_K_SEED, CLASSES, QUALITY = (
    OPTION[name].flags[0] for name in ("at_k", "at_k_draws", "at_k_seed", "classes", "quality")
)

#: The flags whose meaning belongs to a kind of run, each with how to tell that it was given.
RUN_FLAGS: dict[str, Callable[[argparse.Namespace], bool]] = {
    "--by": lambda a: bool(a.by),
    "--summary": lambda a: bool(a.summary),
    "--items FILE": lambda a: isinstance(a.items, str),
    "--items": lambda a: a.items is True,
    "--report": lambda a: bool(a.report),
    AT_K: _given("at_k"),
    AT_K_DRAWS: _given("at_k_draws"),
    AT_K_SEED: _given("at_k_seed"),
    CLASSES: lambda a: bool(a.classes),
    QUALITY: lambda a: bool(a.quality),
    "--engine ray": lambda a: a.engine != "local",
    # Ray's own flags: a whole run is the one that computes on Ray
    "--address": lambda a: a.address is not None,
    "--concurrency": lambda a: a.concurrency is not None,
    "--num-gpus": lambda a: bool(a.num_gpus),
    "--verbose": lambda a: bool(a.verbose),
}


@dataclass(frozen=True)
class Mode:
    """A kind of run: ``name`` as messages say it, the argument names (``args`` attributes) of
    which any one set chooses it, and the :data:`RUN_FLAGS` it takes."""

    name: str
    chosen_by: tuple[str, ...]
    takes: frozenset[str]


#: The default kind of run: every flag of RUN_FLAGS is one of its own.
WHOLE = Mode("a whole run", (), frozenset(RUN_FLAGS))


def chosen_mode(args: argparse.Namespace, modes: tuple[Mode, ...]) -> Mode:
    """The kind of run ``args`` ask for, once its flags are checked: two modes at once, or a
    flag the chosen one does not take, is an InputError naming the kinds of run that take it."""
    chosen = [m for m in modes if any(getattr(args, name) for name in m.chosen_by)]
    if len(chosen) > 1:
        raise InputError(f"{chosen[0].name} and {chosen[1].name} are two kinds of run: give one")
    mode = chosen[0] if chosen else WHOLE
    for flag, given in RUN_FLAGS.items():
        if given(args) and flag not in mode.takes:
            takers = " or ".join(m.name for m in (WHOLE, *modes) if flag in m.takes)
            raise InputError(f"{flag} goes with {takers}: not with {mode.name}")
    return mode


def mergeable_defaults(
    metrics: Optional[list[str]], setting: str, splits: Callable[[str], bool], why: str
) -> list[str]:
    """The metrics of a run split into parts (shards, a stream): ``metrics`` as given; else the
    default set less those ``splits(name)`` refuses, named on stderr with ``why`` they are left
    out."""
    from ..registry import default_metrics

    if metrics:
        return metrics
    names = default_metrics(setting)
    kept = [n for n in names if setting == "sets" or splits(n)]
    if kept != names:
        skipped = ", ".join(n for n in names if n not in kept)
        print(f"diveval: skipped default metrics with {why}: {skipped}", file=sys.stderr)
    return kept


def read_scored_input(args: argparse.Namespace) -> Any:
    """The input as a whole run and a shard read it: the stored classes and quality scores read
    with the responses; the sets left out, and the classes that disagree with their records'
    ``distinct``, said on stderr."""
    from ..io.readers import read_input, reading_notes
    from ..pairs import parse_size

    if args.memory_budget is not None:
        parse_size(args.memory_budget)  # a bad size is refused before the input is read
    stored = [f for f in (args.classes, args.quality) if f]
    data = read_input(args.input, args.format, args.field, per_response=stored)
    for line in reading_notes(data, args.classes):
        print(line, file=sys.stderr)
    return data
