"""Every `--help` states an option's default once: the help formatter is the one place that adds
"(default: X)", and only to a help that does not say its default in words."""

import argparse

from diveval.cli import build_parser
from diveval.options import OPTION


def parsers(parser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from parsers(child)


def helps():
    for parser in parsers(build_parser()):
        formatter = parser._get_formatter()
        for action in parser._actions:
            if action.help and action.help != argparse.SUPPRESS:
                yield parser.prog, action, formatter._expand_help(action)


def test_no_help_states_its_default_twice():
    checked = 0
    for prog, action, shown in helps():
        if "default" in action.help:  # said in words: nothing added
            assert shown.count("default") == action.help.count("default"), (prog, shown)
            checked += 1
    assert checked > 50


def test_defaults_in_words_and_declared_ones_are_shown_once():
    shown = {(prog, a.option_strings[0]): text for prog, a, text in helps() if a.option_strings}
    assert (
        shown[("diveval correlate", "--resamples")]
        == "bootstrap resamples (0: none) (default: 1000)"
    )
    assert shown[("diveval generate", "--keep")].endswith("most diverse one met (default: last)")
    assert shown[("diveval sample", "--model")].count("default") == 1
    # a metric option's declared default, shown by the formatter; its help is left as declared
    tokenizer = next(a for p, a, _ in helps() if p == "diveval score" and a.dest == "tokenizer")
    assert tokenizer.help == OPTION["tokenizer"].help and tokenizer.default is None
    assert (
        shown[("diveval score", "--tokenizer")]
        == OPTION["tokenizer"].help + " (default: whitespace)"
    )
    assert shown[("diveval score", "--pairs-seed")].endswith("(default: 0)")
