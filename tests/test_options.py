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
