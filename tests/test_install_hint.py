"""The install hint of a missing extra: an extra that brings torch names the CPU wheel first (an
unpinned `pip install 'diveval[models]'` pulls a CUDA torch of several GB), pinned as the Makefile
pins the torch it installs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from diveval.errors import MissingDependencyError

ROOT = Path(__file__).resolve().parents[1]


def makefile_torch_pin() -> str:
    found = re.search(r"\btorch==([\w.+]+)", (ROOT / "Makefile").read_text(encoding="utf-8"))
    assert found, "the Makefile pins no torch"
    return found.group(1)


@pytest.mark.parametrize("extra", ["models", "torchmetrics"])
def test_an_extra_with_torch_installs_the_cpu_wheel_first(extra):
    message = str(MissingDependencyError("the default sentence embedder", extra))
    cpu = f"pip install torch=={makefile_torch_pin()} --index-url https://download.pytorch.org/whl/cpu"
    assert message.index(cpu) < message.index(f"pip install 'diveval[{extra}]'")
    assert "\n" not in message


def test_an_extra_without_torch_is_one_command():
    message = str(MissingDependencyError("the ja-mecab tokenizer", "cjk"))
    assert message == "the ja-mecab tokenizer needs extra packages: pip install 'diveval[cjk]'"
