"""The built wheel works on its own: installed in a clean venv, run from outside the
checkout, it answers a query and serves the live UI's pages (package data), and it puts no
generic top-level package in site-packages.

The clean venv borrows the dependencies (pyarrow, duckdb, ...) from the test's own
environment through a path entry, which does not process that environment's ``.pth``
files, so the editable install of the checkout stays invisible to it.
"""

from __future__ import annotations

import json
import shutil
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import importlib.util, json, sys, urllib.request
import pyarrow as pa
import sparkwire
from sparkwire import Session, functions as F
with Session(workers=2, ui=True) as session:
    df = session.createDataFrame(pa.table({"k": ["a", "b", "a"], "v": [1, 2, 3]}))
    rows = df.groupBy("k").agg(F.sum("v").alias("s")).orderBy("k").toArrow().to_pylist()
    pages = {path: urllib.request.urlopen(session.ui_url + path, timeout=10).read().decode()
             for path in ("", "app.js", "style.css", "workers")}
print(json.dumps({
    "pages": {path: len(text) for path, text in pages.items()},
    "file": sparkwire.__file__,
    "rows": [[r["k"], int(r["s"])] for r in rows],
    "bare": [n for n in ("planner", "transport", "coordinator") if importlib.util.find_spec(n)],
}))
"""


@pytest.mark.slow
def test_wheel_installs_in_a_clean_venv_and_runs_a_query(tmp_path: Path) -> None:
    source = tmp_path / "source"  # setuptools builds in the source tree: not in the checkout
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".*", "build", "*.egg-info", "__pycache__", "results", "tests",
    ))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(tmp_path / "dist"), str(source)],
        check=True, cwd=tmp_path, timeout=300,
    )
    (wheel,) = (tmp_path / "dist").glob("sparkwire-*.whl")
    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert tops == {"sparkwire", wheel.name.split("-py")[0] + ".dist-info"}

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    (Path(purelib) / "borrowed-deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
         str(wheel)],
        check=True, timeout=300,
    )
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    out = subprocess.run(
        [python, "-c", SCRIPT], check=True, capture_output=True, text=True, cwd=outside,
        timeout=120,
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["file"].startswith(purelib), result["file"]
    assert result["rows"] == [["a", 4], ["b", 2]]
    assert result["bare"] == []
    # the UI's pages are package data, served from the installed wheel
    assert all(result["pages"].values()), result["pages"]
