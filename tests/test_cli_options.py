"""One helper turns parsed CLI arguments into metric options, for every command."""

from __future__ import annotations

import pathlib
import re

import pytest

from diveval.cli import build_parser
from diveval.commands.options import metric_options

COMMANDS = pathlib.Path(__file__).parents[1] / "src" / "diveval" / "commands"


def test_score_flags_become_canonical_options_and_unset_ones_are_left_out():
    args = build_parser().parse_args(
        ["score", "x.txt", "--smoothing", "coco", "--variant", "nlg-eval", "--vocab", "100"]
    )
    got = metric_options(args)
    assert got["smoothing"] == "coco" and got["variant"] == "nlg-eval" and got["vocab"] == 100
    assert "lowercase" not in got and "nli_model" not in got  # unset: the metric's default
    args = build_parser().parse_args(["score", "x.txt", "--lowercase", "--cache", "d"])
    assert metric_options(args)["lowercase"] is True
    assert metric_options(args)["cache_dir"] == "d"


def test_only_the_named_options():
    args = build_parser().parse_args(["thresholds", "x.json", "--device", "cpu"])
    assert metric_options(args, "device", "tokenizer") == {"device": "cpu"}
    with pytest.raises(ValueError):
        metric_options(args, "not_an_option")


def test_commands_do_not_import_helpers_from_each_other():
    sideways = re.compile(r"from \.(score|generate|thresholds|meta|lsdscc|correlate) import")
    offenders = [p.name for p in COMMANDS.glob("*.py") if sideways.search(p.read_text("utf-8"))]
    assert offenders == []
