"""The import picture of ``src/diveval``: every arrow points down the layers, and there is no
circle.

Data flows one way (the guide's "shape of the house"): the core types, then text, inputs, models
and reports, then the metric families, then the engines, then the analyses built on scoring, then
the public API, then the commands. An engine that imports the API, or a metric that imports an
engine, is a circle waiting to happen and makes each harder to replace; this test reads every
import statement (function-level ones included, since they run too) and names the arrow that
breaks the order, then the modules of each import circle. An import inside a function is allowed
only where its listed reason says why it cannot sit at the top of its module.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "diveval"

# Lowest first. A part may import its own layer or any layer below it, never one above.
LAYERS: list[set[str]] = [
    {
        "_version",
        "errors",
        "results",
        "data",
        "state_files",
        "state",
        "sorted_sets",
        "options",
        "progress",
        "signature_copy",
        "sizes",
        "constants",
    },
    {"text", "context", "registry", "catalog"},
    {"io", "models", "report", "pairs"},
    {"lexical", "semantic", "reference", "augment", "generation", "sampling"},
    {"scale"},
    {"meta", "rate"},
    {"api"},
    {"commands", "cli", "__main__", "__init__", "harness", "integrations"},
]
LAYER_OF = {part: i for i, parts in enumerate(LAYERS) for part in parts}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _import_nodes(path: Path) -> list[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement of ``path``, with True where it sits inside a function."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside.update(id(n) for n in ast.walk(node) if n is not node)
    return [
        (node, id(node) in inside)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
    ]


def _targets(path: Path, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The diveval modules one import statement of ``path`` imports, resolved to absolute names
    (``from .models import resolve`` names the module diveval.models.resolve)."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names if a.name.split(".")[0] == "diveval"}
    here = _module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    if node.level:
        base = package[: len(package) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if target.split(".")[0] != "diveval":
        return set()
    found: set[str] = set()
    for alias in node.names:
        submodule = f"{target}.{alias.name}"
        # `from . import x`: x is a module; `from .pkg import x`: x may be one
        if node.module is None or _is_module(submodule):
            found.add(submodule)
        else:
            found.add(target)
    return found


def _is_module(name: str) -> bool:
    path = SRC.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _imports(path: Path) -> set[str]:
    """The diveval modules ``path`` imports, wherever the import statement is."""
    return {t for node, _ in _import_nodes(path) for t in _targets(path, node)}


def _part(module: str) -> str:
    """The top-level part of diveval a module belongs to (``diveval.scale.shards`` -> scale)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _part_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for path in SRC.rglob("*.py"):
        source = _part(_module_name(path))
        for target in _imports(path):
            if _part(target) != source:
                graph[source].add(_part(target))
    return graph


def test_every_part_of_the_package_has_a_layer():
    parts = {_part(_module_name(p)) for p in SRC.rglob("*.py")}
    assert {"api", "scale", "lexical"} <= parts  # the tree was found: the checks below can fail
    assert parts - set(LAYER_OF) == set(), "add the new part to LAYERS"


def test_no_import_points_up_the_layers():
    upward = sorted(
        f"{a} -> {b}"
        for a, targets in _part_graph().items()
        for b in targets
        if LAYER_OF.get(b, -1) > LAYER_OF.get(a, -1)
    )
    assert upward == []


def test_the_parts_import_each_other_without_a_circle():
    assert _circles(_part_graph()) == []


def _module_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in SRC.rglob("*.py"):
        name = _module_name(path)
        graph[name] = _imports(path) - {name}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of ``graph`` with more than one node (Tarjan), each
    sorted: every module of one can reach every other, so none of them can load first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_the_modules_import_each_other_without_a_circle():
    graph = _module_graph()
    assert "diveval.api" in graph and graph["diveval.api"]  # the graph was read
    circles = _circles(graph)
    assert circles == [], "import circles: " + "; ".join(" <-> ".join(c) for c in circles)


# Imports of diveval modules inside functions that are lazy on purpose, by rule: (importing
# modules, imported modules) as name prefixes, each with the reason and what it saves.
LAZY_BY_DESIGN: dict[tuple[str, str], str] = {
    ("diveval.commands", "diveval"): (
        "the CLI builds every command's parser on each call, so a command module imports its "
        "machinery in run(): with the 46 modules its commands import at the top, build_parser() "
        "took 0.66 s instead of 0.23 s"
    ),
    ("diveval.cli", "diveval"): (
        "`diveval --version` is answered before any parser is built, with the standard library "
        "alone: cli's own imports (the model settings, the commands' help formatter, progress) "
        "are made by the functions that use them (--version: 0.023 s of CPU, `python -c pass` "
        "0.014 s; 0.100 s when cli imported them at its top and built every parser)"
    ),
    ("diveval.api", "diveval.scale.ray_engine"): (
        "the Ray engine (its shards, state merging, Ray session and readers) is imported by a "
        "call that runs on Ray: a local run, every `diveval score`, paid ~10 ms of CPU for it"
    ),
    ("diveval.reference.register", "diveval.reference"): (
        "a registry row imports its implementation when first called, so that registering every "
        "metric (catalog.load, ~0.32 s) doesn't load every family: lsdscc, local_recall and mauve "
        "add ~10 ms"
    ),
    ("diveval.semantic.register", "diveval.semantic"): (
        "a registry row imports its implementation when first called, so that registering every "
        "metric doesn't load every family: the seven semantic modules not otherwise loaded add "
        "~30 ms to catalog.load (~0.32 s)"
    ),
}

# Single imports inside functions, keyed (importing module, imported module), each with the
# reason it cannot sit at the top of its module: a circle it breaks, or an optional dependency
# the imported module loads at its top. None today: keep it that way.
FUNCTION_LEVEL_ALLOWED: dict[tuple[str, str], str] = {}


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _lazy_rule(importer: str, imported: str) -> tuple[str, str] | None:
    """The LAZY_BY_DESIGN rule that covers one function-level import, if any."""
    for rule in LAZY_BY_DESIGN:
        if _under(importer, rule[0]) and _under(imported, rule[1]):
            return rule
    return None


def _function_level_imports() -> list[tuple[str, int, str]]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        name = _module_name(path)
        for node, inside in _import_nodes(path):
            if inside:
                found.extend((name, node.lineno, t) for t in sorted(_targets(path, node)))
    return found


def test_diveval_modules_are_imported_at_the_top_of_modules():
    """An import inside a function hides an arrow from the reader (and from this file's
    checks until it runs); at the top, a circle fails at once and in one place."""
    unexplained = sorted(
        f"{a}:{line} imports {b}"
        for a, line, b in _function_level_imports()
        if (a, b) not in FUNCTION_LEVEL_ALLOWED and _lazy_rule(a, b) is None
    )
    assert unexplained == [], f"{len(unexplained)} function-level imports:\n" + "\n".join(
        unexplained
    )


def test_every_allowed_entry_is_still_needed():
    """A rule or an allowed pair that no import uses any more is deleted, not kept "in case"."""
    found = _function_level_imports()
    assert set(FUNCTION_LEVEL_ALLOWED) - {(a, b) for a, _, b in found} == set()
    assert set(LAZY_BY_DESIGN) - {_lazy_rule(a, b) for a, _, b in found} == set()


def test_the_engines_never_import_the_api():
    for path in (SRC / "scale").rglob("*.py"):
        assert "diveval.api" not in _imports(path), path.name


def test_the_component_finder_finds_every_circle():
    graph = {"a": {"b"}, "b": {"a", "c"}, "c": {"d"}, "d": {"e"}, "e": {"c"}, "f": {"a"}}
    assert _circles(graph) == [["a", "b"], ["c", "d", "e"]]
    assert _circles({"a": {"b"}, "b": {"c"}}) == []


def test_the_import_reader_resolves_relative_imports(tmp_path, monkeypatch):
    """``from ..api import score`` inside scale/ is read as diveval.api (so the checks above can
    fail)."""
    package = tmp_path / "diveval" / "scale"
    package.mkdir(parents=True)
    (package / "x.py").write_text("def f():\n    from ..api import score\n    from . import y\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path / "diveval")
    assert _imports(package / "x.py") == {"diveval.api", "diveval.scale.y"}
    assert [(b, line) for a, line, b in _function_level_imports()] == [
        ("diveval.api", 2),
        ("diveval.scale.y", 3),
    ]
