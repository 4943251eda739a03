"""The ``diveval`` command. Thin: parse arguments, call the library, print.

Each subcommand lives in ``diveval.commands.<name>`` with ``add_parser(subparsers)`` and
``run(args) -> int``. Errors diveval raises on purpose (bad input, a missing extra) become one
line on stderr and exit status 2, never a traceback.

Start-up is part of the interface (``benchmarks/startup.py``, ``tests/test_startup.py``): this
module imports only the standard library at its top; ``diveval --version`` is answered before
any parser is built, and a run of one command builds that command's parser alone (the parser of
every command is built for ``diveval --help``, a mistyped command and ``build_parser()``).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Any, NoReturn, Sequence

from ._version import __version__

COMMANDS = [
    "score",
    "compare",
    "leaderboard",
    "merge",
    "metrics",
    "lsdscc",
    "correlate",
    "meta",
    "length-bias",
    "rarefy",
    "generate",
    "sample",
    "thresholds",
    "augment",
    "nli-eval",
    "rate",
    "report",
]

VERSION = f"diveval {__version__}"

EXAMPLES = """examples:
  diveval score examples/responses.txt
  diveval score examples/sets.jsonl --metric distinct-2 --metric ead --json
  diveval metrics
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse's own errors: one line, status 2
        self.exit(2, f"{self.prog}: error: {message}\n")


class _CommandParser(_Parser):
    """The parser of every command, and of its actions (argparse gives a parser's subparsers its
    class): examples kept as written and defaults shown, by the commands' help formatter."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        from .commands import help_formatter

        kwargs.setdefault("formatter_class", help_formatter())
        super().__init__(*args, **kwargs)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``diveval``: of every command, or of ``command`` alone (one of COMMANDS),
    which parses that command's arguments as the whole parser does, without importing the other
    command modules."""
    parser = _Parser(
        prog="diveval",
        description="Diversity metrics for generated text (dialogue responses first).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=VERSION)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_CommandParser)
    for name in COMMANDS if command is None else [command]:
        module = importlib.import_module(f"diveval.commands.{name.replace('-', '_')}")
        sp = module.add_parser(sub)
        _add_quiet(sp)
        sp.set_defaults(run=module.run)
    return parser


def _add_quiet(parser: argparse.ArgumentParser) -> None:
    """--quiet on a command and on each of its actions (``meta tevet``, ``rate serve``...);
    SUPPRESS as default, so that an action's parser does not reset a --quiet given before it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _add_quiet(child)
    if "--quiet" not in parser._option_string_actions:
        parser.add_argument(
            "--quiet",
            "-q",
            action="store_true",
            default=argparse.SUPPRESS,
            help="no progress bars (also when not a terminal)",
        )


def check_common_arguments(args) -> None:
    """The model settings several commands share (--device, --precision, --batch-size), checked
    before any work, so a typo is one line before the input is read (``models.devices``), and
    kept as ``args.models``: the commands hand them on, resolved, to the library."""
    from .models.devices import SETTINGS_OPTIONS, resolve_settings

    given = {name: getattr(args, name, None) for name in (*SETTINGS_OPTIONS, "threads")}
    args.models = resolve_settings(given)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv == ["--version"]:
        # what the parser's --version action prints, and how it exits, without building it
        sys.stdout.write(VERSION + "\n")
        raise SystemExit(0)
    from .errors import DivevalError
    from .models.offline import ONLINE_ENV
    from .models.threads import set_threads
    from .progress import set_quiet, silence_libraries

    silence_libraries()
    # a command named first: its parser alone parses the arguments exactly as the whole one does
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    args = parser.parse_args(argv)
    set_quiet(getattr(args, "quiet", False))
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    if getattr(args, "online", False):
        # diveval's own variable, so that model loads in this process and its workers see it
        os.environ[ONLINE_ENV] = "1"
    try:
        check_common_arguments(args)
        if args.models.threads is not None:
            set_threads(args.models.threads)  # before any model loads
        return int(args.run(args) or 0)
    except DivevalError as exc:
        print(f"diveval: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("diveval: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
