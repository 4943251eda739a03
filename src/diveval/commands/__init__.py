"""One module per `diveval` subcommand: ``add_parser(subparsers)`` and ``run(args) -> int``."""

import argparse
from typing import Any

from ..io import json_out

#: The attribute of an argparse action holding the default its help shows, where that is not the
#: action's own default (a metric option's flag, unset so the metric's default applies).
SHOWN_DEFAULT = "diveval_shown_default"


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Examples kept as written, and each option's default shown where its help does not already
    say it (argparse's ArgumentDefaultsHelpFormatter would also print "default: None" and repeat
    defaults the help names in words). The one place that adds "(default: X)" to a help text,
    so a help says its default in words ("(default 10)", "default: ...", "; default 1000") or
    leaves it to this, never both. A metric option's flag is unset (None) so that the metric's
    own default applies; the default it shows is the one ``diveval.options`` declares
    (``SHOWN_DEFAULT`` on the action)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        import re

        text = action.help or ""
        default = getattr(action, SHOWN_DEFAULT, action.default)
        if (
            not action.option_strings  # a positional argument has no default to show
            or action.nargs == 0  # a switch (--no-logprobs): "default: True" would only confuse
            or any(default is d for d in (None, False, argparse.SUPPRESS))  # 0 is a default
            or default == []
            or "(default" in text
            or "default:" in text
            or re.search(rf"\bdefault\W+{re.escape(str(default))}\b", text)
            or "%(default)" in text
        ):
            return text
        shown = "%(default)s" if default is action.default else str(default).replace("%", "%%")
        return f"{text} (default: {shown})" if text else f"default: {shown}"


def help_formatter():
    return _HelpFormatter


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of a table"
    )


def add_valued_flags(group: Any, *rows: tuple[str, Any, str]) -> None:
    """Flags that take one value, declared as rows (flag, default, help): the value's type is the
    default's, so the two cannot disagree."""
    for flag, default, text in rows:
        group.add_argument(flag, type=type(default), default=default, help=text)


def same_names(args: argparse.Namespace, *names: str) -> dict[str, Any]:
    """``{name: args.<name>}``: parsed flags passed on to the parameters of the same names."""
    return {name: getattr(args, name) for name in names}


def add_online_flag(parser) -> None:
    """--online, on the commands that load Hugging Face models: diveval keeps the hub offline
    unless asked (see ``diveval.models.offline``)."""
    parser.add_argument(
        "--online",
        action="store_true",
        help="let Hugging Face download a model not in the local cache (also DIVEVAL_ONLINE=1; "
        "default: offline)",
    )


def add_metric_flag(
    parser: argparse.ArgumentParser, help: str, *, metavar: str = "NAME", required: bool = False
) -> None:
    """--metric/-m NAME, repeatable, into ``args.metrics``."""
    parser.add_argument(
        "--metric",
        "-m",
        action="append",
        dest="metrics",
        metavar=metavar,
        required=required,
        help=help,
    )


def print_json(obj: Any) -> None:
    """A command's --json output: one JSON document, indented, non-ASCII text kept as it is."""
    print(json_out.dumps(obj, indent=2, ensure_ascii=False))


def print_warnings(results: dict) -> None:
    """Every Score's ``details["warnings"]``, once each, on stderr: the warnings about the input
    (its script, its language) first."""
    import sys

    from ..lexical.ead import explained_by_tokens
    from ..text.language import is_language_warning, is_unsegmented_warning

    # one line per text: a warning about the input (its script, its language) names every
    # metric it concerns instead of repeating itself once per metric
    said: dict[str, list[str]] = {}
    for scores in results.values():
        for name, s in scores.items():
            warnings = list(s.details.get("warnings", ()))
            if any(is_unsegmented_warning(w) for w in warnings):
                # whole runs of text as tokens hardly repeat: that, not EAD's formula, is why
                # EAD passes 1 here, and the tokenizer warning says it already
                warnings = [explained_by_tokens(w) for w in warnings]
            for w in warnings:
                names = said.setdefault(w, [])
                if name not in names:
                    names.append(name)
    # a reason said once a run: the same reason after another head (another group, another
    # share or value) points back to it
    reasons: set[str] = set()
    for w, names in sorted(said.items(), key=lambda item: not is_language_warning(item[0])):
        head, sep, reason = w.partition(": ")
        if sep and reason in reasons:
            w = f"{head}: as above"
        reasons.add(reason)
        print(f"diveval: warning: {', '.join(names)}: {w}", file=sys.stderr)
