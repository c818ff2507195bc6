"""Layering, read from the source so a lazy import inside a function, or one under
``TYPE_CHECKING``, counts like any other:

- no import cycle between any two of the project's modules;
- the planner's layers import downward only (``LAYERS``, bottom first): the PySpark surface
  (``api``) builds on ``sql``, which builds logical plans; the optimizer and the stage cutter
  read the logical plan; the worker reads the plan models and Spark's rules, never the API,
  the SQL front end, the optimizer or the cutter;
- the Spark Connect server (``coordinator/connect/``) reads the planner only through its
  public surface (``planner.api``, and ``planner.errors``): a protocol relation becomes
  DataFrame API calls, never a third path into the logical plan;
- the live UI (``coordinator/ui/``) observes queries: it reads what the worker may of the
  planner (the plan models it draws), and only the session and the CLI start it, so no
  part of a query's path depends on it;
- ``transport`` imports neither other package, and the planner imports neither;
- nothing imports the folders by their bare names (installed, they exist only as
  ``sparkwire.*``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("transport", "coordinator", "planner")
FORBIDDEN = {"transport": {"planner", "coordinator"}, "planner": {"transport", "coordinator"}}
SOURCES = [
    p for p in ROOT.rglob("*.py") if not any(part.startswith(".") for part in p.relative_to(ROOT).parts)
    and "build" not in p.relative_to(ROOT).parts
]

#: The planner's layers, bottom first; a module may import its own layer and those below.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("planner.errors", "planner.garbage", "planner.limits"),
    ("planner.spark",),
    ("planner.logical",),
    ("planner.optimizer",),
    ("planner.physical",),
    ("planner.pipeline",),
    ("planner.sql",),
    ("planner.api",),
)
#: What the worker may read of the planner: the plan models and Spark's rules.
WORKER_READS = LAYERS[0] + LAYERS[1] + LAYERS[2]
#: What the Spark Connect server may read of the planner: the API a program uses.
CONNECT_READS = ("planner.api", "planner.errors")
#: What the live UI may read of the planner: the plan models it draws, as the worker.
UI_READS = WORKER_READS
#: The modules outside ``coordinator.ui`` that may import it: those that start it.
UI_STARTERS = ("coordinator.session", "coordinator.cli")


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """``planner.logical.plan`` -> its file, for the three folders (``sparkwire.`` dropped)."""
    files = {}
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            files[".".join(parts)] = path
    return files


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def import_graph(files: Mapping[str, Path]) -> dict[str, set[str]]:
    """Module -> the project modules it imports. ``from sparkwire.planner.api import
    functions`` imports the package ``planner.api`` and its module ``functions``; a module
    importing its own parent package is not an edge (the parent is loaded first anyway)."""
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        targets = set()
        for name in imported_modules(path):
            parts = name.split(".")
            if parts[0] != "sparkwire" or len(parts) < 2:
                continue
            target = ".".join(parts[1:])
            if target in files and target != module and not module.startswith(target + "."):
                targets.add(target)
        graph[module] = targets
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
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
    return found


def layer_of(module: str) -> int | None:
    for rank, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    return None


def upward_imports(graph: Mapping[str, set[str]]) -> dict[str, list[str]]:
    """Each planner module's imports of a higher layer, and each worker module's imports of
    any planner module it may not read, and each Spark Connect module's imports of the
    planner below its API."""
    found: dict[str, list[str]] = {}
    for module, targets in graph.items():
        rank = layer_of(module)
        if rank is not None:
            bad = [t for t in targets if (r := layer_of(t)) is not None and r > rank]
        elif module.startswith("coordinator.worker"):
            bad = [t for t in targets if t.startswith("planner") and not any(
                t == p or t.startswith(p + ".") for p in WORKER_READS)]
        elif module.startswith("coordinator.connect"):
            bad = [t for t in targets if t.startswith("planner") and not any(
                t == p or t.startswith(p + ".") for p in CONNECT_READS)]
        elif module.startswith("coordinator.ui"):
            bad = [t for t in targets if t.startswith("planner") and not any(
                t == p or t.startswith(p + ".") for p in UI_READS)]
        else:
            bad = []
        if bad:
            found[module] = sorted(bad)
    return found


def test_no_import_cycles() -> None:
    assert cycles(import_graph(module_files())) == []


def test_planner_layers_import_downward_and_the_worker_reads_only_models_and_rules() -> None:
    assert upward_imports(import_graph(module_files())) == {}


def test_only_the_session_and_the_cli_start_the_ui() -> None:
    """The coordinator tells the UI through ``metrics.QueryObserver``, never by importing it."""
    graph = import_graph(module_files())
    importers = {m for m, targets in graph.items() if not m.startswith("coordinator.ui")
                 and any(t.startswith("coordinator.ui") for t in targets)}
    assert importers <= set(UI_STARTERS)


def test_every_planner_module_is_in_a_layer() -> None:
    """A new folder (or root module) must take its place in ``LAYERS``."""
    assert sorted(m for m in module_files() if m.startswith("planner.") and layer_of(m) is None) == []


def test_the_checks_catch_a_cycle_and_an_upward_import(tmp_path: Path) -> None:
    """The checks above on a small tree with one lazy cycle, one ``TYPE_CHECKING`` import of
    a higher layer, one worker module reading the optimizer and one Spark Connect module
    reading the logical plan: each is found."""
    sources = {
        "planner/__init__.py": "",
        "planner/logical/__init__.py": "",
        "planner/logical/a.py": "def f():\n    from sparkwire.planner.logical import b\n",
        "planner/logical/b.py": "from sparkwire.planner.logical.a import f\n",
        "planner/logical/c.py": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from sparkwire.planner.api.frame import Frame\n"
        ),
        "planner/api/__init__.py": "",
        "planner/api/frame.py": "from sparkwire.planner.logical import a\n",
        "planner/optimizer/__init__.py": "",
        "planner/optimizer/rules.py": "",
        "coordinator/__init__.py": "",
        "coordinator/worker/__init__.py": "",
        "coordinator/worker/engine.py": (
            "from sparkwire.planner.logical.a import f\nfrom sparkwire.planner.optimizer import rules\n"
        ),
        "coordinator/connect/__init__.py": "",
        "coordinator/connect/relations.py": (
            "from sparkwire.planner.api.frame import Frame\nfrom sparkwire.planner.logical import a\n"
        ),
        "coordinator/ui/__init__.py": "",
        "coordinator/ui/pages.py": "from sparkwire.planner.api.frame import Frame\n",
    }
    for name, text in sources.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "transport").mkdir()
    graph = import_graph(module_files(tmp_path))
    assert cycles(graph) == [["planner.logical.a", "planner.logical.b"]]
    assert upward_imports(graph) == {
        "planner.logical.c": ["planner.api.frame"],
        "coordinator.worker.engine": ["planner.optimizer", "planner.optimizer.rules"],
        "coordinator.connect.relations": ["planner.logical", "planner.logical.a"],
        "coordinator.ui.pages": ["planner.api.frame"],
    }


def sparkwire_packages(path: Path) -> set[str]:
    """``planner`` for ``sparkwire.planner.logical.plan`` and so on."""
    return {
        parts[1] for m in imported_modules(path) if (parts := m.split("."))[0] == "sparkwire"
        and len(parts) > 1
    }


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_respects_layering(package: str) -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(sparkwire_packages(path) & FORBIDDEN[package])
        for path in (ROOT / package).rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_nothing_imports_the_bare_folder_names() -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(
            m for m in imported_modules(path) if m.split(".")[0] in PACKAGES
        )
        for path in SOURCES
    }
    assert {k: v for k, v in offenders.items() if v} == {}
