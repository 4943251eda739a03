"""The package imports on every Python that pyproject.toml promises, checked from the source here
(the test suite runs on one Python); `make pythons` runs the CLI on each Python the machine has.

Regressions: `typing.Unpack` (3.11+) and `kw_only` dataclasses (3.10+) made every command fail on
3.9 and 3.10; a lone surrogate in a non-raw docstring made 3.13.0 fail to import the package.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "src").rglob("*.py"))


def oldest_promised() -> tuple[int, int]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r'^requires-python\s*=\s*">=\s*(\d+)\.(\d+)', text, re.M)
    assert found, "pyproject.toml: requires-python is not of the form '>=X.Y'"
    return int(found.group(1)), int(found.group(2))


OLDEST = oldest_promised()

# Names that exist only from the given Python on: importing one at run time fails before it.
NEWER_TYPING = {
    "ParamSpec": (3, 10),
    "Concatenate": (3, 10),
    "TypeAlias": (3, 10),
    "TypeGuard": (3, 10),
    "Unpack": (3, 11),
    "Self": (3, 11),
    "NotRequired": (3, 11),
    "Required": (3, 11),
    "LiteralString": (3, 11),
    "Never": (3, 11),
    "assert_never": (3, 11),
    "reveal_type": (3, 11),
    "dataclass_transform": (3, 11),
    "TypeVarTuple": (3, 11),
    "override": (3, 12),
    "TypeIs": (3, 13),
}
NEWER_MODULES = {"tomllib": (3, 11)}
NEWER_KEYWORDS = {  # call keyword -> (callee names, since)
    "kw_only": ({"dataclass", "field"}, (3, 10)),
    "slots": ({"dataclass"}, (3, 10)),
    "match_args": ({"dataclass"}, (3, 10)),
    "strict": ({"zip"}, (3, 10)),
}


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    """ids of the nodes under `if TYPE_CHECKING:` (never run)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                out.update(id(n) for n in ast.walk(child))
    return out


def _name(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def version_problems(source: str, where: str, oldest: tuple[int, int]) -> list[str]:
    """What in ``source`` fails on Python ``oldest``: newer syntax, names, modules, keywords."""
    try:
        tree = ast.parse(source, str(where), feature_version=oldest)
    except SyntaxError as err:
        return [f"{where}:{err.lineno}: syntax newer than Python {oldest[0]}.{oldest[1]}"]
    skip = _type_checking_nodes(tree)
    out = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom) and node.module == "typing":
            for alias in node.names:
                since = NEWER_TYPING.get(alias.name, (0, 0))
                if since > oldest:
                    out.append(f"{where}:{node.lineno}: typing.{alias.name} is {since} and up")
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            modules += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            for module in modules:
                since = NEWER_MODULES.get(module.split(".")[0], (0, 0))
                if since > oldest:
                    out.append(f"{where}:{node.lineno}: {module} is {since} and up")
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                callees, since = NEWER_KEYWORDS.get(kw.arg or "", (set(), (0, 0)))
                if _name(node.func) in callees and since > oldest:
                    out.append(f"{where}:{node.lineno}: {kw.arg}= is {since} and up")
    return out


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT / "src")))
def test_the_source_runs_on_the_oldest_promised_python(path):
    where = str(path.relative_to(ROOT))
    assert version_problems(path.read_text(encoding="utf-8"), where, OLDEST) == []


def test_the_check_finds_what_broke_3_9():
    source = (
        "from typing import Any, Unpack\n"
        "from dataclasses import dataclass\n"
        "@dataclass(frozen=True, kw_only=True)\n"
        "class A:\n"
        "    x: int\n"
    )
    problems = version_problems(source, "a.py", (3, 9))
    assert len(problems) == 2 and problems[0].startswith("a.py:1: typing.Unpack")
    assert version_problems(source, "a.py", (3, 11)) == []
    guarded = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from typing import Unpack\n"
    assert version_problems(guarded, "a.py", (3, 9)) == []
    assert version_problems("match x:\n    case 1:\n        pass\n", "a.py", (3, 9))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT / "src")))
def test_docstrings_are_text(path):
    """A docstring holding a lone surrogate (``"\\ud800"`` in a non-raw string) cannot be encoded:
    Python 3.13.0 fails to import its module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc is not None:
                doc.encode("utf-8")  # raises UnicodeEncodeError on a lone surrogate
