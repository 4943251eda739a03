"""One k, the responses sampled per prompt, wherever diveval samples (diveval.options)."""

from __future__ import annotations

import inspect

import pytest

from diveval.options import RESPONSES_PER_PROMPT


def test_the_default_is_novelty_bench_s():
    # NoveltyBench samples 10 answers per prompt: samples drawn with the defaults compare with it
    assert RESPONSES_PER_PROMPT.default == 10


def test_sample_command_uses_it():
    from diveval.cli import build_parser

    args = build_parser().parse_args(["sample", "prompts.txt", "--out", "x.jsonl"])
    assert args.k == RESPONSES_PER_PROMPT.default


def test_sampling_library_uses_it():
    from diveval.sampling.runner import SamplingSettings

    assert SamplingSettings(model="fake").k == RESPONSES_PER_PROMPT.default


def test_trainer_callback_uses_it():
    pytest.importorskip("transformers")
    from diveval.integrations.transformers import DiversityCallback

    default = inspect.signature(DiversityCallback.__init__).parameters["k"].default
    assert default == RESPONSES_PER_PROMPT.default


def test_inspect_solver_uses_it():
    pytest.importorskip("inspect_ai")
    from diveval.harness.inspect_registry import _k_samples

    assert inspect.signature(_k_samples).parameters["k"].default == RESPONSES_PER_PROMPT.default
