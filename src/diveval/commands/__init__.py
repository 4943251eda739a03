"""One module per `diveval` subcommand: ``add_parser(subparsers)`` and ``run(args) -> int``."""

from __future__ import annotations

import argparse
import re
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


def print_warnings(results: dict, by: str | None = None) -> None:
    """Every Score's ``details["warnings"]`` on stderr, one line per kind: ``results`` is
    ``{group: {metric: Score}}`` (one group, None, without ``--by``); ``by`` names the field the
    groups are values of, so a line says which groups it concerns."""
    import sys

    for line in warning_lines(results, by):
        print(f"diveval: warning: {line}", file=sys.stderr)


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def warning_lines(results: dict, by: str | None = None) -> list[str]:
    """The lines of :func:`print_warnings`. A warning of one kind (the same text but for its
    numbers) in several groups is one line naming the groups, its numbers given as their range
    over them ("1 to 3 of 100 sets"): per group, 24 systems printed 16 near-identical lines that
    did not say which system each was about. A warning about the input (its script, its
    language) names every metric it concerns instead of repeating itself once per metric."""
    from ..lexical.ead import explained_by_tokens
    from ..text.language import is_language_warning, is_unsegmented_warning

    # per metric and kind: the groups that have it and each one's text
    kinds: dict[tuple[str, str], dict[Any, str]] = {}
    for group, scores in results.items():
        for name, s in scores.items():
            warnings = list(s.details.get("warnings", ()))
            if any(is_unsegmented_warning(w) for w in warnings):
                # whole runs of text as tokens hardly repeat: that, not EAD's formula, is why
                # EAD passes 1 here, and the tokenizer warning says it already
                warnings = [explained_by_tokens(w) for w in warnings]
            for w in warnings:
                kinds.setdefault((name, _NUMBER.sub("#", w)), {}).setdefault(group, w)
    said: dict[tuple[str, tuple], list[str]] = {}
    for (name, _), texts in kinds.items():
        key = (_merged(list(texts.values())), tuple(texts))
        names = said.setdefault(key, [])
        if name not in names:
            names.append(name)
    lines = []
    # the warnings about the input (its script, its language) first; a reason said once a run:
    # the same reason after another head (another share or value) points back to it
    reasons: set[str] = set()
    for (text, groups), names in sorted(
        said.items(), key=lambda i: not is_language_warning(i[0][0])
    ):
        first, sep, reason = text.partition(": ")
        if sep and reason in reasons:
            text = f"{first}: as above"
        reasons.add(reason)
        where = ""
        if by is not None and any(g is not None for g in groups):
            shown = ", ".join(str(g) for g in groups)
            where = f" ({by}: {shown}; {len(groups)} of {len(results)})"
        lines.append(f"{', '.join(names)}{where}: {text}")
    return lines


def _merged(texts: list[str]) -> str:
    """Texts of one kind as one: each number that differs between them as its range."""
    if len(set(texts)) == 1:
        return texts[0]
    numbers = [_NUMBER.findall(t) for t in texts]
    out, at = [], 0
    for i, m in enumerate(_NUMBER.finditer(texts[0])):
        out.append(texts[0][at : m.start()])
        column = [ns[i] for ns in numbers]
        low, high = min(column, key=float), max(column, key=float)
        out.append(low if float(low) == float(high) else f"{low} to {high}")
        at = m.end()
    return "".join(out) + texts[0][at:]
