"""The guide's example metric (docs/guides/adding-a-metric.md) is real code: its file, run as
written, gives a row that passes every common check, and its state merges shard files in any
order to the one-process Score."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import registered
from test_common import CHECKS, check_declaration

import diveval
from diveval.results import CORPUS, SETS
from diveval.scale.shards import ShardResult, merge_shards, score_shard

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guides" / "adding-a-metric.md"


def guide_module() -> dict:
    """The guide's one-file example, executed (its block starts with the file's path)."""
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    found = [b for b in blocks if b.lstrip().startswith("# src/diveval/lexical/my_types.py")]
    assert len(found) == 1, "the guide's example file is its one block that names the file"
    # the block is indented under a list item of the guide
    source = "\n".join(
        line[3:] if line.startswith("   ") else line for line in found[0].split("\n")
    )
    namespace: dict = {"__name__": "my_types"}
    exec(compile(source, str(GUIDE), "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def example():
    return guide_module()


@pytest.mark.parametrize("setting", [CORPUS, SETS])
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_the_guide_row_passes_the_common_checks(example, setting, check):
    with registered(example["ROW"]) as row:
        check_declaration(row)
        check(row, setting)


def test_the_guide_state_merges_shard_files_to_the_one_process_score(example, tmp_path):
    texts = [f"w{i % 7} W{i % 5} w{i % 11} w{i}" for i in range(40)] + ["", "w1 w1 w1"]
    for lowercase in (False, True):
        with registered(example["ROW"]):
            whole = diveval.score(texts, ["my-types"], lowercase=lowercase)["my-types"]
            files = []
            for i in range(3):
                part = score_shard(texts, ["my-types"], (i, 3), lowercase=lowercase)
                part.save(tmp_path / f"{i}.state")
                files.append(ShardResult.load(tmp_path / f"{i}.state"))
            merged = merge_shards(files[::-1])["my-types"]
        # the independent count: Python sets over the same words
        words = [w.lower() if lowercase else w for t in texts for w in t.split()]
        assert whole.value == len(set(words)) / len(words)
        assert (merged.value, merged.signature) == (whole.value, whole.signature)
