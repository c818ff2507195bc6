"""Layering: transport imports neither other package; planner does not import transport
or coordinator; nothing imports the folders by their bare names (installed, they exist only
as ``sparkwire.*``). Checked on the source, so a lazy import inside a function counts too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("transport", "coordinator", "planner")
FORBIDDEN = {"transport": {"planner", "coordinator"}, "planner": {"transport", "coordinator"}}
SOURCES = [
    p for p in ROOT.rglob("*.py") if not any(part.startswith(".") for part in p.relative_to(ROOT).parts)
    and "build" not in p.relative_to(ROOT).parts
]


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


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
