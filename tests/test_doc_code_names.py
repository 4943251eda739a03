"""Every code name the guides mention is one the package has: a guide that names a function, a
module or a file that was renamed or removed is a guide that drifted (it once described
``_loaded(...)`` in ``semantic/register.py`` after that adapter was gone).

The names are read from the inline code spans of ``docs/guides/*.md`` and resolved against the
package's source, parsed (nothing is imported: an optional extra's module is checked too):

- a dotted name whose first part is ``diveval`` or one of its modules (``models.embedders.
  embedder_for``), or a class of the package (``Metric.load``), and ``"module:function"``
  strings: the module exists and defines (or imports) each part;
- a file or folder (``semantic/register.py``, ``tests/test_common.py``, ``lexical/``): it exists
  (under the repository, ``src/`` or ``src/diveval/``);
- a call (``name(...)``, each one inside a span too): some module or class of the package defines
  ``name``; and where the guide says the span is *in* or *of* a module (```x(...)`` in
  ``semantic/register.py``), that module has it;
- a bare name that only code has (``CamelCase``, ``UPPER_CASE``, ``_private``): the package
  defines it.

Flags (``--metric``), commands (``diveval score ...``), option values and prose in backticks are
none of these, and are left alone.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "diveval"
GUIDES = sorted((ROOT / "docs" / "guides").glob("*.md"))

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
#: names the guides show as code that the package never uses: Ray's deprecated aggregation
#: class (what the Ray guide says diveval does not take), NaN (what a metric never returns)
OUTSIDE = {"AggregateFn", "NaN"}


class Module:
    """The names a source file binds at module level, and its classes' members."""

    def __init__(self, path: Path):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        self.names: set[str] = set()
        self.classes: dict[str, set[str]] = {}
        for node in tree.body:
            self.names |= _bound(node)
            if isinstance(node, ast.ClassDef):
                self.classes[node.name] = {n for item in node.body for n in _bound(item)}
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict):
                # a PEP 562 table of lazily resolved names ({"score": "diveval.api:score"})
                self.names |= {
                    k.value
                    for k in node.value.keys
                    if isinstance(k, ast.Constant) and isinstance(k.value, str)
                }


def _bound(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    elif isinstance(node, (ast.If, ast.Try)):
        inner = node.body + node.orelse + [s for h in getattr(node, "handlers", []) for s in h.body]
        return {n for s in inner for n in _bound(s)}
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


@cache
def module(dotted: str) -> Module | None:
    """The module ``diveval.x.y`` (a file or a package), or None."""
    parts = dotted.split(".")
    if parts[0] != "diveval":
        return None
    base = PACKAGE.joinpath(*parts[1:])
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return Module(path)
    return None


@cache
def everything() -> tuple[set[str], dict[str, set[str]]]:
    """(every name any module binds, every class's members by class name)."""
    names: set[str] = set()
    classes: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        m = Module(path)
        names |= m.names
        for name, members in m.classes.items():
            classes.setdefault(name, set()).update(members)
    return names, classes


def top_level() -> set[str]:
    return {p.stem for p in PACKAGE.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}


def resolve_dotted(name: str) -> bool | None:
    """Whether ``name`` resolves in the package; None when it is not the package's to judge."""
    parts = name.split(".")
    _, classes = everything()
    if parts[0] != "diveval":
        if parts[0] in top_level():
            parts = ["diveval", *parts]
        elif parts[0] in classes:
            return all(p in classes[parts[0]] for p in parts[1:2])
        else:
            return None
    # the longest prefix that is a module, then its attributes
    for cut in range(len(parts), 0, -1):
        found = module(".".join(parts[:cut]))
        if found is None:
            continue
        rest = parts[cut:]
        if not rest:
            return True
        if rest[0] not in found.names:
            return False
        if len(rest) > 1 and rest[0] in found.classes:
            return rest[1] in found.classes[rest[0]]
        return True  # an attribute of an imported object: its first step is enough
    return False


def resolve_path(span: str) -> bool:
    """Whether the file or folder ``span`` names exists (``pkg/mod.name``: the module, then the
    name in it)."""
    rel = span.strip("/")
    if any((base / rel).exists() for base in (ROOT, ROOT / "src", PACKAGE)):
        return True
    if "/" not in rel:  # "its `register.py`": a file some family has
        return any(PACKAGE.rglob(rel))
    head, dot, name = span.partition(".")
    if dot and "/" in head and re.fullmatch(IDENT, name):
        return resolve_dotted("diveval." + head.strip("/").replace("/", ".") + "." + name) is True
    return False


def is_path(span: str) -> bool:
    """Whether ``span`` names a file or folder of this repository: ``x/y.ext``, ``x/``,
    ``pkg/mod.name`` with a first part the repository has (``src/`` as ``src/diveval/``: another
    project's ``src/partition.py`` is not this one's to check)."""
    if not re.fullmatch(r"[\w./-]+", span) or not re.search(r"\.\w+$|/$", span):
        return False
    if span.startswith("src/"):
        return span.startswith("src/diveval/")
    first = span.strip("/").split("/")[0]
    return (
        "/" not in span
        and span.endswith(".py")
        or first in {"tests", "benchmarks", "examples", "docs", "diveval", *top_level()}
    )


def spans(text: str):
    """(code span, the rest of its line) of every inline code span outside fenced blocks."""
    text = re.sub(r"^\s*```.*?^\s*```", "", text, flags=re.S | re.M)
    text = re.sub(r"\n(?!\s*\n)", " ", text)  # a paragraph as one line: spans wrap
    for m in re.finditer(r"(?<!`)`([^`\n]+)`(?!`)", text):
        yield m.group(1).strip(), text[m.end() : m.end() + 80]


def problems(text: str) -> list[str]:
    names, classes = everything()
    bad = []
    for span, after in spans(text):
        if " " in span.split("(")[0] and not re.match(rf"{IDENT}\(", span):
            continue  # a command line, a formula, a phrase
        if span.startswith(("-", "http", "diveval ")) or re.search(r"[\[<>=*]", span.split("(")[0]):
            continue
        impl = re.fullmatch(r"[\"']?((?:diveval\.)[\w.]+):(\w+)[\"']?", span)
        if impl:
            if not resolve_dotted(f"{impl.group(1)}.{impl.group(2)}"):
                bad.append(span)
            continue
        for quoted in re.findall(r"\"((?:diveval\.)[\w.]+:\w+)\"", span):
            if not resolve_dotted(quoted.replace(":", ".")):
                bad.append(f"{span} ({quoted})")
        if "/" in span.split("(")[0] or re.fullmatch(r"[\w.]+\.py", span):
            if is_path(span) and not resolve_path(span):
                bad.append(span)
            continue
        lead = re.match(rf"{IDENT}(?:\.{IDENT})*", span)
        if lead is None:
            continue
        head = lead.group(0)
        if "." in head:
            if resolve_dotted(head) is False:
                bad.append(span)
        elif span[len(head) :].startswith("(") or _code_only(head):
            if head not in identifiers() and head not in OUTSIDE:
                bad.append(span)
        # the module the guide places a call in: "`f(...)` in `pkg/mod.py`"
        where = re.match(r"\s*(?:in|of)\s+`([\w/]+)\.py`", after)
        if where and "." not in head and span[len(head) :].startswith("("):
            found = module("diveval." + where.group(1).replace("/", ".").removeprefix("diveval."))
            if found is not None and head not in found.names:
                bad.append(f"{span} (not in {where.group(1)}.py)")
        # calls inside the span's arguments
        for inner in re.finditer(rf"(?<![\w.]){IDENT}(?=\()", span[len(head) :]):
            name = inner.group(0)
            if name not in identifiers():
                bad.append(f"{span} ({name})")
    return bad


def _code_only(name: str) -> bool:
    """A name that is code, not a word: CamelCase, or UPPER_CASE with an underscore (``_id``,
    ``_line``: fields of an input record, are words of the file format)."""
    return (
        re.fullmatch(r"[A-Z][a-z0-9]+[A-Z]\w*", name) is not None
        or re.fullmatch(r"[A-Z0-9]+_[A-Z0-9_]+", name) is not None
    )


@cache
def identifiers() -> frozenset[str]:
    """Every name the package's source uses: its own definitions, and those of the libraries it
    calls (``RougeScorer``, ``AggregateFn``) and the environment variables it reads, so that a
    call or a class a guide shows is one the code makes; and Python's builtins."""
    import builtins

    found: set[str] = set(dir(builtins))
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Name):
                found.add(node.id)
            elif isinstance(node, ast.Attribute):
                found.add(node.attr)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.add(node.name)
            elif isinstance(node, ast.arg):
                found.add(node.arg)
            elif isinstance(node, ast.alias):
                found.update((node.asname or node.name).split("."))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.update(re.findall(IDENT, node.value))
    return frozenset(found)


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.name)
def test_every_code_name_a_guide_mentions_is_in_the_package(guide):
    assert problems(guide.read_text(encoding="utf-8")) == []


def test_the_check_finds_names_that_are_gone():
    """The sentence that drifted, and names that never were, are found; live ones are not."""
    drifted = (
        "the row's compute hands the metric the model loaded with them, as "
        "`_loaded(embedder_for, ...)` in `semantic/register.py` does with "
        "`models.embedders.embedder_for(spec, run_settings(context, options))`."
    )
    assert problems(drifted) == ["_loaded(embedder_for, ...) (not in semantic/register.py)"]
    gone = "`diveval.registry.run_metric`, `models/embedders.load_embedder`, `lexical/nothing.py`"
    assert problems(gone) == [
        "diveval.registry.run_metric",
        "models/embedders.load_embedder",
        "lexical/nothing.py",
    ]
    assert problems("`Metric.nothing`, `NoSuchClass`, `NO_SUCH_TABLE`, `made_up(x)`") == [
        "Metric.nothing",
        "NoSuchClass",
        "NO_SUCH_TABLE",
        "made_up(x)",
    ]
    live = (
        "`diveval.score(...).skipped`, `Metric.load`, `registry.Implementation`, "
        "`SETTINGS_OPTIONS` of `diveval/models/devices.py`, `with_embedder(options, context)` in "
        '`models/embedders.py`, `Implementation("diveval.semantic.set_geometry:intdiv")`, '
        "`--metric`, `diveval score x.txt --json`, `tokenizer`, `corpus`, `lexical/`"
    )
    assert problems(live) == []
