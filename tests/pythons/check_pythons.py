"""`make pythons`: diveval on every Python that pyproject.toml promises and pyenv has.

The test suite runs on one Python; this runs the package on the others. For each installed
CPython at or above requires-python: a virtual environment with the base dependencies only (what
`pip install diveval` gives), then, with the source tree on PYTHONPATH, every module of the
package is imported (those needing an absent extra are skipped) and
`python -m diveval score examples/responses.txt` must succeed.

The environments are cached in build/pythons/, keyed by pyproject.toml's text: a second run takes
seconds, a changed dependency list builds them again. A promised Python that is not installed, or
no pyenv at all, is a printed note, not a failure: a fresh machine without them still passes.
Runs on any Python 3.9+ with only the standard library.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / "build" / "pythons"
STAMP = ".diveval-deps"

# Imports every module of the package; a module whose extra is absent is skipped, any other
# failure (a name this Python lacks, a syntax error) is printed and fails the check.
IMPORT_ALL = """
import importlib, pkgutil, sys
import diveval
failed = 0
for info in pkgutil.walk_packages(diveval.__path__, "diveval."):
    if info.name == "diveval.__main__":
        continue
    try:
        importlib.import_module(info.name)
    except ImportError as err:
        if err.name and not err.name.startswith("diveval"):
            continue
        print(f"{info.name}: {type(err).__name__}: {err}", file=sys.stderr)
        failed += 1
    except Exception as err:
        print(f"{info.name}: {type(err).__name__}: {err}", file=sys.stderr)
        failed += 1
sys.exit(1 if failed else 0)
"""


def promise(pyproject: str) -> tuple[int, int]:
    """The oldest Python of ``requires-python = ">=X.Y"``."""
    found = re.search(r'^requires-python\s*=\s*">=\s*(\d+)\.(\d+)', pyproject, re.M)
    if not found:
        raise SystemExit("pyproject.toml: requires-python is not of the form '>=X.Y'")
    return int(found.group(1)), int(found.group(2))


def base_dependencies(pyproject: str) -> list[str]:
    """The requirement strings of ``[project] dependencies``."""
    found = re.search(r"^dependencies\s*=\s*\[(.*?)\]", pyproject, re.M | re.S)
    if not found:
        raise SystemExit("pyproject.toml: no dependencies = [...] list")
    return re.findall(r'"([^"]+)"', found.group(1))


def pyenv_root() -> Optional[Path]:
    if shutil.which("pyenv"):
        done = subprocess.run(["pyenv", "root"], capture_output=True, text=True)
        if done.returncode == 0 and done.stdout.strip():
            return Path(done.stdout.strip())
    for root in (os.environ.get("PYENV_ROOT"), str(Path.home() / ".pyenv")):
        if root and (Path(root) / "versions").is_dir():
            return Path(root)
    return None


def choose(
    installed: list[str], oldest: tuple[int, int]
) -> tuple[list[str], list[tuple[int, int]]]:
    """The installed CPython releases (X.Y.Z) the promise covers, and the promised minor versions
    none of them is (from the oldest promised to the newest installed)."""
    releases = []
    for name in installed:
        found = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", name)
        if found and (int(found.group(1)), int(found.group(2))) >= oldest:
            releases.append(name)
    releases.sort(key=lambda v: tuple(int(p) for p in v.split(".")))
    minors = {tuple(int(p) for p in v.split(".")[:2]) for v in releases}
    newest = max([*minors, sys.version_info[:2], oldest])
    missing = [
        (newest[0], m) for m in range(oldest[1], newest[1] + 1) if (newest[0], m) not in minors
    ]
    return releases, missing


def environment(python: Path, version: str, deps: list[str], key: str) -> Path:
    """A venv of ``python`` with ``deps``, reused while ``key`` is the same."""
    venv = CACHE / f"py{version}"
    stamp = venv / STAMP
    if stamp.exists() and stamp.read_text() == key:
        return venv
    shutil.rmtree(venv, ignore_errors=True)  # a stale or half-built one
    bare = [] if deps else ["--without-pip"]
    run([str(python), "-m", "venv", *bare, str(venv)], version, "creating its venv")
    if deps:
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
        run([*pip, "--disable-pip-version-check", *deps], version, "installing " + " ".join(deps))
    stamp.write_text(key)  # last: an interrupted build is never taken for a finished one
    return venv


class Failed(Exception):
    pass


def run(argv: list[str], version: str, what: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(PYTHONPATH=str(ROOT / "src"), PYTHONNOUSERSITE="1", OMP_NUM_THREADS="1")
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", NO_COLOR="1")
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise Failed(f"Python {version}: {what} failed (exit {done.returncode}):\n{tail}")


def check(root: Path, version: str, deps: list[str], key: str) -> Optional[str]:
    """None, or why diveval fails on this Python."""
    try:
        venv = environment(root / "versions" / version / "bin" / "python", version, deps, key)
        python = str(venv / "bin" / "python")
        run([python, "-c", IMPORT_ALL], version, "importing every module")
        score = ["-m", "diveval", "score", "examples/responses.txt"]
        run([python, *score], version, "python " + " ".join(score))
    except Failed as err:
        return str(err)
    return None


def main() -> int:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    oldest, deps = promise(pyproject), base_dependencies(pyproject)
    root = pyenv_root()
    if root is None:
        print("pythons: no pyenv here; diveval is checked on this Python only (the test suite)")
        return 0
    releases, missing = choose(sorted(os.listdir(root / "versions")), oldest)
    for minor in missing:
        print(f"pythons: note: Python {minor[0]}.{minor[1]} is promised but not installed")
    key = hashlib.sha256(pyproject.encode()).hexdigest()
    workers = max(1, min(len(releases), os.cpu_count() or 1))
    with ThreadPoolExecutor(workers) as pool:
        problems = list(pool.map(lambda v: check(root, v, deps, key), releases))
    for version, problem in zip(releases, problems):
        print(problem or f"pythons: Python {version}: ok")
    return 1 if any(problems) else 0


if __name__ == "__main__":
    sys.exit(main())
