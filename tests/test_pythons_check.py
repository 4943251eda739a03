"""`make pythons` (tests/pythons/check_pythons.py): which Pythons it checks, that it fails on a
package one of them cannot import, and that `make test` runs it."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "pythons" / "check_pythons.py"


@pytest.fixture(scope="module")
def pythons():
    spec = importlib.util.spec_from_file_location("check_pythons", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_promise_and_the_base_dependencies_are_read_from_pyproject(pythons):
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert pythons.promise(text) >= (3, 9)
    assert pythons.promise('requires-python = ">=3.10"\n') == (3, 10)
    deps = pythons.base_dependencies(text)
    assert {d.split(">")[0].split("=")[0] for d in deps} == {"numpy", "scipy", "sacrebleu", "rich"}


def test_every_installed_release_the_promise_covers_and_a_note_for_the_missing(pythons):
    installed = ["2.7.18", "3.8.18", "3.9.18", "3.11.7", "3.13.0", "3.13.1", "3.14-dev", "pypy3.10"]
    releases, missing = pythons.choose(installed, (3, 9))
    assert releases == ["3.9.18", "3.11.7", "3.13.0", "3.13.1"]
    assert (3, 10) in missing and (3, 12) in missing and (3, 9) not in missing


def _fake_project(root: Path, broken: bool) -> None:
    package = root / "src" / "diveval"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text("import sys\nsys.exit(0)\n")
    (package / "needs_extra.py").write_text("import a_package_that_is_not_installed\n")
    if broken:  # what `@dataclass(kw_only=True)` did on 3.9
        (package / "levels.py").write_text("raise TypeError('no kw_only here')\n")
    (root / "examples").mkdir()
    (root / "examples" / "responses.txt").write_text("a b\n")


@pytest.mark.parametrize("broken", [False, True])
def test_a_module_the_python_cannot_import_fails_the_check(pythons, tmp_path, monkeypatch, broken):
    _fake_project(tmp_path / "project", broken)
    pyenv = tmp_path / "pyenv"
    version = "{}.{}.{}".format(*sys.version_info[:3])
    (pyenv / "versions" / version / "bin").mkdir(parents=True)
    (pyenv / "versions" / version / "bin" / "python").symlink_to(sys.executable)
    monkeypatch.setattr(pythons, "ROOT", tmp_path / "project")
    monkeypatch.setattr(pythons, "CACHE", tmp_path / "cache")
    problem = pythons.check(pyenv, version, [], "key")
    if broken:
        assert problem and "importing every module failed" in problem
        assert "diveval.levels: TypeError: no kw_only here" in problem
    else:
        assert problem is None
        assert (tmp_path / "cache" / f"py{version}" / pythons.STAMP).read_text() == "key"


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_make_test_runs_the_check():
    args = ["make", "-n", "-C", str(ROOT), "test", "VENV=/nonexistent-venv"]
    out = subprocess.run(args, capture_output=True, text=True).stdout
    assert "tests/pythons/check_pythons.py" in out
