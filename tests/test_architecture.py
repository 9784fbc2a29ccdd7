"""The package's shape: the pipeline's stages as layers, imports one way, no long module.

Every module of ``ofc_stats`` belongs to one layer of :data:`LAYERS` and imports only
its own layer and the layers below it (docs/architecture.md). The imports are read
from the source with ``ast``: every ``import`` and ``from ... import`` anywhere in a
module counts, inside functions and ``TYPE_CHECKING`` blocks too, so a cycle cannot
hide behind an import made late.
"""

from __future__ import annotations

import ast
import itertools
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "ofc_stats"
MAX_LINES = 700

# Lowest first: (layer, the modules and packages in it). A module is in the layer of
# the longest name it is or lies under; the package itself (its public API) is named
# alone and holds no module under it.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", ("ofc_stats.errors", "ofc_stats.version", "ofc_stats.util")),
    ("engine", ("ofc_stats.engine",)),
    ("schemas", ("ofc_stats.warehouse.schemas",)),
    ("formats", ("ofc_stats.formats",)),
    ("simulate", ("ofc_stats.simulate",)),
    ("warehouse", ("ofc_stats.warehouse",)),
    ("ingest", ("ofc_stats.ingest",)),
    ("analysis", ("ofc_stats.analysis",)),
    ("db", ("ofc_stats.db",)),
    ("report", ("ofc_stats.report",)),
    ("bench", ("ofc_stats.bench",)),
    ("spark", ("ofc_stats.spark",)),
    ("cli and api", ("ofc_stats", "ofc_stats.__main__", "ofc_stats._moved", "ofc_stats.cli")),
)


@dataclass(frozen=True)
class Import:
    """One import statement's edge: ``module`` imports ``target`` at ``line``."""

    module: str
    line: int
    target: str  # a module; a name imported from a module counts as that module

    def __str__(self) -> str:
        return f"{self.module} (line {self.line}) imports {self.target}"


@cache
def modules() -> dict[str, Path]:
    """Every module of the package by dotted name."""
    found = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _is_ours(name: str) -> bool:
    return name == PACKAGE or name.startswith(f"{PACKAGE}.")


def imports_in(module: str, path: Path) -> list[Import]:
    """The package's modules that ``module`` imports, wherever in it."""
    known = modules()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    edges = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            edges.extend(Import(module, node.lineno, alias.name) for alias in node.names
                         if _is_ours(alias.name))
        elif isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:
                parts = package.split(".")
                base = parts[:len(parts) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            if not _is_ours(source):
                continue
            for alias in node.names:
                child = f"{source}.{alias.name}"
                edges.append(Import(module, node.lineno, child if child in known else source))
    return edges


@cache
def all_imports() -> tuple[Import, ...]:
    edges = (edge for module, path in modules().items() for edge in imports_in(module, path))
    return tuple(dict.fromkeys(edges))  # two names from one module: one edge


def layer_of(module: str) -> int | None:
    """The rank of ``module``'s layer in :data:`LAYERS`, or None if it has none."""
    best: tuple[int, int] | None = None  # (length of the name matched, rank)
    for rank, (_, names) in enumerate(LAYERS):
        for name in names:
            inside = name != PACKAGE and module.startswith(f"{name}.")
            if (module == name or inside) and (best is None or len(name) > best[0]):
                best = (len(name), rank)
    return None if best is None else best[1]


def _ancestors(module: str) -> list[str]:
    """The packages above ``module``, the package itself left out."""
    parts = module.split(".")
    return [".".join(parts[:end]) for end in range(2, len(parts))]


def import_graph() -> dict[str, dict[str, Import]]:
    """Who imports whom. Importing a module runs the ``__init__`` of each package above
    it first, so an import from outside a package is also an edge to that package."""
    graph: dict[str, dict[str, Import]] = {module: {} for module in modules()}
    for edge in all_imports():
        if edge.target not in graph:
            continue
        if edge.target != edge.module:
            graph[edge.module].setdefault(edge.target, edge)
        # A package the importer is in has already started (it was imported first).
        for package in set(_ancestors(edge.target)) - set(_ancestors(edge.module)):
            if package != edge.module:
                graph[edge.module].setdefault(package, edge)
    return graph


def cycles(graph: dict[str, dict[str, Import]]) -> list[list[Import]]:
    """One cycle of imports through each strongly connected group of modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    found: list[list[Import]] = []
    seen: set[frozenset[Import]] = set()
    for group in groups:
        # Every import inside the group closes a cycle: the shortest, for each.
        for source in sorted(group):
            for target, edge in sorted(graph[source].items()):
                if target not in group:
                    continue
                cycle = [edge, *_shortest_path(graph, group, target, source)]
                if frozenset(cycle) not in seen:
                    seen.add(frozenset(cycle))
                    found.append(cycle)
    return found


def _shortest_path(graph: dict[str, dict[str, Import]], group: set[str], start: str,
                   end: str) -> list[Import]:
    """The imports of a shortest way from ``start`` to ``end`` inside ``group``."""
    previous: dict[str, str] = {start: start}
    frontier = [start]
    while end not in previous:
        following = []
        for node in frontier:
            for target in sorted(graph[node]):
                if target in group and target not in previous:
                    previous[target] = node
                    following.append(target)
        frontier = following
    path = [end]
    while path[-1] != start:
        path.append(previous[path[-1]])
    path.reverse()
    return [graph[a][b] for a, b in itertools.pairwise(path)]


def test_every_module_has_a_layer() -> None:
    homeless = [module for module in modules() if layer_of(module) is None]
    assert not homeless, f"modules in no layer of LAYERS: {', '.join(homeless)}"


def test_every_import_names_a_module_of_the_package() -> None:
    """No import of a path that moved (ofc_stats._moved keeps those for users only)."""
    unknown = [str(edge) for edge in all_imports() if edge.target not in modules()]
    assert not unknown, "imports of no module of the package:\n" + "\n".join(unknown)


def test_imports_go_down_the_layers() -> None:
    upward = []
    for edge in all_imports():
        mine, theirs = layer_of(edge.module), layer_of(edge.target)
        if mine is not None and theirs is not None and theirs > mine:
            upward.append(f"{edge}: layer {LAYERS[theirs][0]!r} is above "
                          f"{LAYERS[mine][0]!r}")
    assert not upward, "imports against the layer order:\n" + "\n".join(upward)


def test_no_import_cycles() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(
        " -> ".join(str(edge) for edge in cycle) for cycle in found)


def test_no_module_is_over_700_lines() -> None:
    long = {module: lines for module, path in modules().items()
            if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_the_architecture_page_names_every_layer() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| *(\d+) *\| *([a-z ]+?) *\|(.*)$", page, flags=re.MULTILINE)
    documented = {int(rank): (layer, text) for rank, layer, text in rows}
    for rank, (layer, names) in enumerate(LAYERS):
        assert rank in documented, f"docs/architecture.md lacks layer {rank} ({layer})"
        assert documented[rank][0] == layer, (rank, documented[rank][0], layer)
        for name in names:
            assert f"`{name.removeprefix(PACKAGE + '.')}" in documented[rank][1] or (
                f"`{name}" in documented[rank][1]), f"layer {layer} row lacks {name}"


def test_the_checks_see_a_cycle_and_an_upward_import() -> None:
    """The graph code itself: a made-up back edge is caught, named by its line."""
    edge = Import("ofc_stats.engine.cards", 7, "ofc_stats.db")
    graph: dict[str, dict[str, Import]] = {
        "ofc_stats.engine.cards": {"ofc_stats.db": edge},
        "ofc_stats.db": {"ofc_stats.engine.cards": Import("ofc_stats.db", 3,
                                                         "ofc_stats.engine.cards")},
    }
    [cycle] = cycles(graph)
    assert {str(step) for step in cycle} == {
        "ofc_stats.engine.cards (line 7) imports ofc_stats.db",
        "ofc_stats.db (line 3) imports ofc_stats.engine.cards"}
    assert layer_of("ofc_stats.db") > layer_of("ofc_stats.engine.cards")
    assert layer_of("ofc_stats.warehouse.schemas") < layer_of("ofc_stats.formats.csv")
    assert layer_of("ofc_stats.nowhere") is None
