"""The package source of an earlier commit, for benchmarks that time it beside this tree."""

from __future__ import annotations

import os
import subprocess
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def baseline_source(rev: str, folder: str) -> str:
    """The ``src`` folder of commit ``rev``, extracted into ``folder``."""
    archive = os.path.join(folder, "src.tar")
    subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", "-o", archive, rev, "src"], check=True
    )
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    return os.path.join(folder, "src")
