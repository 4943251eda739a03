"""What running the documented commands leaves in a checkout is ignored by git: `inspect eval`
writes its logs to ./logs, wherever it is run."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("path", ["logs/2026-01-01_task.eval", "examples/inspect/logs/x.json"])
def test_inspect_logs_are_ignored(path):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", "-q", path], cwd=ROOT, capture_output=True
    )
    assert done.returncode == 0, f"{path} is not ignored"
