"""Fuzzing of every reader and of the CLI's input paths (score, correlate, meta, lsdscc).

Short by default (a few seconds a target, part of ``make test``); ``DIVEVAL_FUZZ=long`` (or
``make fuzz``) runs the long profile. Every file of the seed corpus (``corpus/``: one per crash
found, plus samples of each format) runs through every target that takes its suffix.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz import grammar
from fuzz.harness import TARGETS, run_target

CORPUS = Path(__file__).resolve().parent / "corpus"
LONG = os.environ.get("DIVEVAL_FUZZ") == "long"
EXAMPLES = int(os.environ.get("DIVEVAL_FUZZ_EXAMPLES", 2000 if LONG else 25))

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize=not LONG,  # the short run is the same every time: a failure reproduces
    suppress_health_check=list(HealthCheck),
)


def _strategy(suffix: str, target: str) -> st.SearchStrategy[bytes]:
    if target == "lsdscc":
        return grammar.LSDSCC_GROUPS if suffix == "json" else grammar.LSDSCC_HYPOTHESES
    return grammar.FILES[suffix]


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_fuzz(name):
    target = TARGETS[name]
    files = st.tuples(*(_strategy(s, name) for s in target.suffixes))

    @FUZZ
    @given(files)
    def fuzz(contents):
        run_target(target, list(contents))

    fuzz()


def _seeds():
    for path in sorted(CORPUS.iterdir()):
        suffix = path.suffix.lstrip(".")
        for name, target in TARGETS.items():
            if target.suffixes == (suffix,):
                yield pytest.param(name, path, id=f"{name}:{path.name}")


@pytest.mark.parametrize("name,path", list(_seeds()))
def test_seed_corpus(name, path):
    run_target(TARGETS[name], [path.read_bytes()])
