"""`diveval metrics` names each metric's options: its flags, and the input fields it reads."""

import json

from diveval.cli import main
from diveval.options import OPTION
from diveval.registry import all_metrics


def listing(capsys, *argv):
    assert main(["metrics", *argv]) == 0
    return capsys.readouterr().out


def test_json_lists_each_metrics_flags_and_input_fields(capsys):
    listed = json.loads(listing(capsys, "--json"))
    assert "--judge" in listed["semantic-entropy"]["options"]
    assert "--similarity" in listed["spectral-eigv"]["options"]
    assert listed["distinct-1"]["options"] == ["--tokenizer", "--lowercase"]
    assert "references" in listed["ref-bleu-4"]["input_fields"]
    assert "logprobs" in listed["semantic-entropy"]["input_fields"]
    for name, metric in all_metrics().items():  # every option the metric takes, none other
        shown = listed[name]["options"] + listed[name]["input_fields"]
        taken = [o for o in metric.options if OPTION[o].flags or OPTION[o].per_item]
        assert len(shown) == len(taken), name


def test_table_has_an_options_column(capsys):
    lines = listing(capsys).splitlines()
    assert "options" in lines[2]
    row = next(line for line in lines if line.startswith("│ semantic-entropy "))
    assert "--judge" in row
