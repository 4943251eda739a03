"""What a newcomer runs from README.md: no command leaves untracked files in the clone (its
outputs go to an ignored folder), every `sample` line is short enough for a CPU, and the page says
how to reach the `diveval` that `make demo` installs and what `make test` does besides testing."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_doc_commands import code_blocks, is_shell, shell_lines, side_products, split_commands

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def readme_lines() -> list[str]:
    return [line for b in code_blocks(README) if is_shell(b) for line in shell_lines(b.text)]


def test_what_the_readme_writes_is_ignored_by_git():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    written = sorted(
        {
            out
            for line in readme_lines()
            for c in split_commands(line)[0]
            for out in c.outputs + side_products(c)
        }
    )
    assert len(written) >= 5  # the report, the samples, ...
    check = ["git", "check-ignore", "--no-index", "-q"]
    left = [p for p in written if subprocess.run([*check, p], cwd=ROOT).returncode != 0]
    assert not left, f"README commands leave untracked files: {left}"


def test_every_sample_line_caps_the_response_length():
    # the default cap, 512 tokens, turns a README line into most of an hour on two CPU cores
    samples = [line for line in readme_lines() if re.search(r"\bdiveval sample\b", line)]
    assert samples
    for line in samples:
        found = re.search(r"--max-tokens (\d+)", line)
        assert found and int(found.group(1)) <= 64, line


def test_the_readme_says_how_to_run_what_make_demo_installed_and_what_make_test_does():
    text = README.read_text(encoding="utf-8")
    assert ". .venv/bin/activate" in text and ".venv/bin/diveval" in text
    assert "apt-get" in text and "build/site" in text
    assert "--index-url https://download.pytorch.org/whl/cpu" in text
