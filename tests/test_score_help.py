"""`diveval score --help` is read by someone looking for one flag among fifty: flags that look
alike carry the name of their mode, no flag's help runs past a short paragraph, and the older
spellings of renamed flags still parse (unlisted)."""

import argparse

import pytest

from diveval.cli import build_parser


def score_parser() -> argparse.ArgumentParser:
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices["score"]
    raise AssertionError("no score command")


def listed_flags(parser) -> set[str]:
    return {
        flag for a in parser._actions if a.help != argparse.SUPPRESS for flag in a.option_strings
    }


def test_look_alike_flags_are_named_by_their_mode():
    listed = listed_flags(score_parser())
    # --level's draws and seed beside --at-k's; streaming's memory beside the all-pairs budget
    assert {"--level-k", "--level-draws", "--level-seed", "--stream-memory"} <= listed
    assert {"--at-k", "--at-k-draws", "--at-k-seed", "--memory-budget", "--pairs-seed"} <= listed
    assert not {"--k", "--draws", "--seed", "--memory"} & listed


@pytest.mark.parametrize(
    "old, new, dest, value",
    [
        ("--k", "--level-k", "k", 5),
        ("--draws", "--level-draws", "draws", 7),
        ("--seed", "--level-seed", "seed", 3),
        ("--memory", "--stream-memory", "memory", "2G"),
    ],
)
def test_older_spellings_still_parse_to_the_same_setting(old, new, dest, value):
    parser = score_parser()
    by_old = parser.parse_args(["x.txt", old, str(value)])
    by_new = parser.parse_args(["x.txt", new, str(value)])
    assert getattr(by_old, dest) == getattr(by_new, dest) == value
    assert vars(by_old) == vars(by_new)


def test_unset_renamed_flags_keep_their_defaults():
    args = score_parser().parse_args(["x.txt"])
    assert (args.k, args.draws, args.seed, args.memory) == (None, 10, 0, None)


def test_every_flag_help_is_a_short_paragraph():
    parser = score_parser()
    formatter = parser._get_formatter()
    long = {
        a.option_strings[0]: len(formatter._expand_help(a))
        for a in parser._actions
        if a.option_strings and a.help != argparse.SUPPRESS
        if len(formatter._expand_help(a)) > 420
    }
    assert not long, long  # details belong on the metric's page, not in --help


def test_usage_is_one_line_and_each_flag_sits_in_a_group():
    parser = score_parser()
    assert parser.format_usage().count("\n") == 1
    titled = [
        g for g in parser._action_groups if g.title not in ("positional arguments", "options")
    ]
    assert len(titled) >= 7
    ungrouped = [
        a.option_strings[0]
        for g in parser._action_groups
        if g.title == "options"
        for a in g._group_actions
        if a.help != argparse.SUPPRESS
    ]
    # the input's own flags (what to read, what to write) stay with the command
    assert len(ungrouped) <= 12, ungrouped
