"""A mistyped option is an InputError naming the metric and the nearest valid name."""

from __future__ import annotations

import pytest

import diveval
from diveval.errors import InputError
from diveval.registry import get_metric

SETS = [["a b c", "a b d"], ["x y", "x z"]]


def test_score_refuses_a_typo_and_names_the_nearest_option():
    with pytest.raises(InputError, match=r"'tokenzier' for distinct-1; did you mean 'tokenizer'"):
        diveval.score(SETS, ["distinct-1"], tokenzier="bert")


def test_default_metrics_refuse_a_typo_too():
    with pytest.raises(InputError, match=r"did you mean 'lowercase'"):
        diveval.score(SETS, lowercse=True)


def test_a_metric_called_directly_refuses_a_typo():
    with pytest.raises(InputError, match=r"for ead; did you mean 'vocab'"):
        get_metric("ead")(SETS, vocabb=100)


def test_an_option_for_other_metrics_of_the_run_is_ignored():
    # run-wide options: `vocab` is EAD's, distinct-1 ignores it (the CLI passes every flag)
    out = diveval.score(SETS, ["distinct-1", "ead"], vocab=100)
    assert out["distinct-1"].value == diveval.score(SETS, ["distinct-1"])["distinct-1"].value
    assert "V:100" in out["ead"].signature


# -- every option declared once (diveval.options), every command's flags built from it -------------


def _parsers(parser):
    import argparse

    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                yield from _parsers(child)


def test_every_command_flag_of_a_metric_option_is_its_declaration():
    from diveval.cli import build_parser
    from diveval.options import OPTION

    seen = set()
    for parser in _parsers(build_parser()):
        for action in parser._actions:
            if action.dest not in OPTION or not action.option_strings:
                continue
            option = OPTION[action.dest]
            assert tuple(action.option_strings) == option.flags, (parser.prog, action.dest)
            assert action.help.startswith(option.help), (parser.prog, action.dest)
            assert action.choices == (list(option.choices) if option.choices else None) or (
                tuple(action.choices or ()) == option.choices
            ), (parser.prog, action.dest)
            seen.add(action.dest)
    # the options users set on the command line all reach it through some command
    assert {"tokenizer", "lowercase", "vocab", "join", "nli_model", "aligner"} <= seen


def test_no_command_declares_a_metric_option_flag_itself():
    """The flag strings of the metric options appear in diveval.options only, never in a
    command module (where a second declaration would drift: other defaults, other help)."""
    from pathlib import Path

    import diveval.commands
    from diveval.options import OPTIONS

    folder = Path(diveval.commands.__file__).parent
    flags = [f for o in OPTIONS for f in o.flags]
    for path in folder.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        found = [f for f in flags if f'"{f}"' in text or f"'{f}'" in text]
        assert found == [], path.name


def test_the_registry_and_the_declarations_agree():
    from diveval.options import KNOWN_OPTIONS, OPTIONS, PER_ITEM_OPTIONS, RUN_OPTIONS
    from diveval.registry import all_metrics

    assert len(KNOWN_OPTIONS) == len(OPTIONS)
    assert set(PER_ITEM_OPTIONS) == {
        "references",
        "reference_groups",
        "logprobs",
        "classes",
        "quality",
    }
    taken = {o for m in all_metrics().values() for o in m.options}
    assert taken <= set(KNOWN_OPTIONS)
    # a declared option no metric takes would be a flag that does nothing
    assert set(KNOWN_OPTIONS) - taken <= {"progress", *RUN_OPTIONS}
    assert not taken & set(RUN_OPTIONS)  # a run's option is the engine's, never a metric's
