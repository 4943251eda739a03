"""The ``diveval`` command. Thin: parse arguments, call the library, print.

Each subcommand lives in ``diveval.commands.<name>`` with ``add_parser(subparsers)`` and
``run(args) -> int``. Errors diveval raises on purpose (bad input, a missing extra) become one
line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from ._version import __version__

COMMANDS = [
    "score",
    "metrics",
    "lsdscc",
    "correlate",
    "meta",
    "length-bias",
    "generate",
    "thresholds",
    "augment",
    "nli-eval",
    "rate",
]

EXAMPLES = """examples:
  diveval score examples/responses.txt
  diveval score examples/sets.jsonl --metric distinct-2 --metric ead --json
  diveval metrics
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own errors: one line, status 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="diveval",
        description="Diversity metrics for generated text (dialogue responses first).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"diveval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        module = importlib.import_module(f"diveval.commands.{name.replace('-', '_')}")
        sp = module.add_parser(sub)
        sp.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from .errors import DivevalError

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
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
