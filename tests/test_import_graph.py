"""The package's modules import one another without a circle.

The graph is read from the source with ``ast``, nothing imported: every
``import`` and ``from ... import`` of a module, at its top and inside its
functions alike (a deferred import that closes a circle is still a
circle), relative imports resolved to module names. ``from P import name``
counts as an import of the module ``P.name`` where there is one, else of
``P`` (a package: its ``__init__``); ``import P.Q`` as an import of
``P.Q``. Imports by name at run time (``families``' "module:attr"
entries, ``importlib``) are not imports here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import seqalign_cli

PACKAGE = Path(seqalign_cli.__file__).resolve().parent


def modules(root: Path) -> dict[str, Path]:
    """Module name -> file of every module of the package at ``root`` (a package under its own name)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        if "__pycache__" in parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _nearest(name: str, known: dict) -> str | None:
    """``name`` or the closest package above it that is a module of the package."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(root: Path) -> dict[str, dict[str, list[str]]]:
    """module -> {module it imports: where (``line N`` or ``line N, in f``), ...} for the package at ``root``."""
    known = modules(root)
    top = root.name
    graph: dict[str, dict[str, list[str]]] = {}
    for name, path in known.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges = graph.setdefault(name, {})

        def add(target: str | None, node: ast.stmt, function: str | None):
            where = f"line {node.lineno}" + (f", in {function}" if function else "")
            if target is not None and target != name and where not in edges.setdefault(target, []):
                edges[target].append(where)

        def visit(node: ast.AST, function: str | None):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.Import):
                    for alias in child.names:
                        if alias.name == top or alias.name.startswith(top + "."):
                            add(_nearest(alias.name, known), child, function)
                elif isinstance(child, ast.ImportFrom):
                    if child.level:
                        base = here.split(".")
                        base = base[:len(base) - (child.level - 1)]
                        source = ".".join(base + ([child.module] if child.module else []))
                    else:
                        source = child.module or ""
                    if source != top and not source.startswith(top + "."):
                        continue
                    for alias in child.names:
                        sub = f"{source}.{alias.name}"
                        add(sub if sub in known else _nearest(source, known), child, function)
                inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
                visit(child, inner)

        visit(ast.parse(path.read_text(encoding="utf-8"), str(path)), None)
    return graph


def cycles(graph: dict[str, dict[str, list[str]]]) -> list[tuple[list[str], list[str]]]:
    """Each group of modules that import one another (Tarjan's strongly connected components): its modules,
    and one circle through them as [m0, m1, ..., m0]."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def connect(v: str):  # the package's graph is a few dozen modules deep at most
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            connect(v)
    found = []
    for group in groups:
        start = min(group)
        # the shortest way back to ``start`` inside the group (breadth first)
        came = {start: None}
        queue = [start]
        end = None
        while queue and end is None:
            v = queue.pop(0)
            for w in sorted(graph[v]):
                if w == start:
                    end = v
                    break
                if w in group and w not in came:
                    came[w] = v
                    queue.append(w)
        path = [start]
        while end is not None and end != start:
            path.insert(1, end)
            end = came[end]
        found.append((sorted(group), path + [start]))
    return found


def describe(cycle: list[str], graph: dict[str, dict[str, list[str]]]) -> str:
    return "\n    ".join(f"{a} imports {b} ({'; '.join(graph[a][b])})" for a, b in zip(cycle, cycle[1:]))


@pytest.fixture(scope="module")
def graph():
    """The package's import graph, read once."""
    return import_graph(PACKAGE)


def test_the_package_has_no_import_circle(graph):
    found = cycles(graph)
    assert not found, "import circles:\n" + "\n".join(
        f"  {' -> '.join(circle)}:\n    {describe(circle, graph)}\n"
        f"  ({len(group)} modules reach one another: {', '.join(group)})" for group, circle in found)


def test_the_graph_holds_every_module_and_its_deferred_imports(graph):
    """The reading itself: every module is in the graph, with its top-level, relative and function-level
    imports."""
    assert set(graph) == set(modules(PACKAGE))
    assert "seqalign_cli.cli" in graph and "seqalign_cli.io.fastx" in graph and "seqalign_cli" in graph
    assert "seqalign_cli.config" in graph["seqalign_cli.cli"]  # from .config import ...
    assert "seqalign_cli.api" in graph["seqalign_cli"]  # a package's __init__
    assert "seqalign_cli.progress" in graph["seqalign_cli.io.fastx"]  # from .. import progress
    assert any("in execute" in where for where in graph["seqalign_cli.cli"]["seqalign_cli.runner"])


def test_a_circle_through_a_deferred_or_package_import_is_found(tmp_path):
    pkg = tmp_path / "seqalign_cli"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .a import f\n")
    (pkg / "a.py").write_text("def f():\n    from .sub import g\n    return g\n")
    (pkg / "sub" / "__init__.py").write_text("from .b import g\n")
    (pkg / "sub" / "b.py").write_text("import os\n\nfrom .. import a\n\ng = 1\n")
    (pkg / "c.py").write_text("import seqalign_cli.sub.b\n")
    graph = import_graph(pkg)
    assert graph["seqalign_cli.c"] == {"seqalign_cli.sub.b": ["line 1"]}
    circle = ["seqalign_cli.a", "seqalign_cli.sub", "seqalign_cli.sub.b"]
    assert cycles(graph) == [(circle, circle + ["seqalign_cli.a"])]
    (pkg / "sub" / "b.py").write_text("g = 1\n")
    assert cycles(import_graph(pkg)) == []
