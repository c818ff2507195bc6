"""Every package folder is in pyproject's ``packages`` (setuptools' package-dir mapping does
not discover subpackages: a folder left out is missing from the wheel, found only when an
installed sparkwire fails to import it)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_folder_is_listed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {
        "sparkwire." + ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("transport", "coordinator", "planner") for init in (ROOT / top).rglob("__init__.py")
    } | {"sparkwire"}
    assert sorted(folders) == sorted(config["packages"])
