"""The import picture of ``src/diveval``: every arrow points down the layers, and there is no
circle.

Data flows one way (the guide's "shape of the house"): the core types, then text, inputs, models
and reports, then the metric families, then the engines, then the analyses built on scoring, then
the public API, then the commands. An engine that imports the API, or a metric that imports an
engine, is a circle waiting to happen and makes each harder to replace; this test reads every
import statement (function-level ones included, since they run too) and names the arrow that
breaks the order.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "diveval"

# Lowest first. A part may import its own layer or any layer below it, never one above.
LAYERS: list[set[str]] = [
    {"_version", "errors", "results", "data", "state_files", "state", "options"},
    {"text", "context", "registry", "catalog"},
    {"io", "models", "report", "pairs"},
    {"lexical", "semantic", "reference", "augment", "generation", "sampling"},
    {"scale"},
    {"meta", "rate"},
    {"api"},
    {"commands", "cli", "__main__", "__init__", "harness", "integrations", "torchmetrics"},
]
LAYER_OF = {part: i for i, parts in enumerate(LAYERS) for part in parts}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """The diveval modules ``path`` imports, resolved to absolute names."""
    here = _module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "diveval")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "diveval":
                continue
            if node.module is None:  # `from . import x`: x may be a module
                found.update(f"{target}.{a.name}" for a in node.names)
            else:
                found.add(target)
    return found


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


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One circle of ``graph`` as a path, or []."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        state[node] = 2
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return []


def test_the_parts_import_each_other_without_a_circle():
    assert _cycle(_part_graph()) == []


def test_the_engines_never_import_the_api():
    for path in (SRC / "scale").rglob("*.py"):
        assert "diveval.api" not in _imports(path), path.name


@pytest.mark.parametrize(
    "graph, circle",
    [
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, ["a", "b", "c", "a"]),
        ({"a": {"b"}, "b": {"c"}}, []),
    ],
)
def test_the_circle_finder_finds_circles(graph, circle):
    assert _cycle(graph) == circle


def test_the_import_reader_resolves_relative_imports(tmp_path, monkeypatch):
    """``from ..api import score`` inside scale/ is read as diveval.api (so the checks above can
    fail)."""
    package = tmp_path / "diveval" / "scale"
    package.mkdir(parents=True)
    (package / "x.py").write_text("def f():\n    from ..api import score\n    from . import y\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", tmp_path / "diveval")
    assert _imports(package / "x.py") == {"diveval.api", "diveval.scale.y"}
