"""One module per `diveval` subcommand: ``add_parser(subparsers)`` and ``run(args) -> int``."""

import argparse


def help_formatter():
    return argparse.RawDescriptionHelpFormatter


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of a table"
    )


def add_metric_flag(parser: argparse.ArgumentParser, help: str) -> None:
    """--metric/-m NAME, repeatable, into ``args.metrics``."""
    parser.add_argument(
        "--metric", "-m", action="append", dest="metrics", metavar="NAME", help=help
    )
