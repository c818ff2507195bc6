"""Golden plans: a DataFrame query in, its logical and staged plans out, one file a case.

Each ``golden/*.txt`` holds the query (a Python expression over the DataFrames ``t`` and
``u``, small tables the session holds, ``fact`` and ``dim``, a fixed layout of Parquet
files (``layout``), ``F``, ``Window`` and ``sql``, SQL text over those tables) under ``# query``, optional ``# broadcast_threshold``
and ``# task_bytes`` lines, and the expected ``explain(extended=True)`` text under
``# explain``. A change to the planner that changes a plan shows up here as a readable diff.
``SPARKWIRE_UPDATE_GOLDEN=1`` rewrites the files from the current planner (review the diff
before committing it).

A case with a ``# workers`` line (say ``2 4 16``) is planned by a session of in-process
workers of each of those counts on a machine of ``CPUS`` CPUs, and must give the one plan
its file holds at every count: plans follow the data and the cores, not how many workers
share the cores (issue 33). Such a case reads only the layout, and its ``# task_bytes``
rests on the sizes pyarrow writes the layout's files at. Without it, a case is planned by a
fake executor of four cores.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.clusters import base as clusters_base
from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.planner.api.executor import Executor
from sparkwire.planner.api.sources import DataFrameReader, create_dataframe, sql_dataframe
from sparkwire.planner.api.window import Window
from sparkwire.planner.api import functions as F
from tests.planner.conftest import FakeExecutor

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(GOLDEN.glob("*.txt"))
SETTINGS = ("broadcast_threshold", "task_bytes", "workers")
#: The machine the ``# workers`` cases' sessions run on.
CPUS = 4

T = pa.table({"k": pa.array([1, 2], pa.int64()), "v": ["a", "b"], "x": [1.0, 2.0]})
U = pa.table({"k": pa.array([1, 3], pa.int32()), "w": pa.array([1, 2], pa.decimal128(12, 2))})


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``fact``: 2 files of 8 row groups of 500 rows, sorted by ``k`` (0 to 7999), with a
    group ``g`` (``k % 10``) and a value; ``dim``: 3 files sorted by ``dk``, overlapping
    ``fact``'s files and reaching past both ends. Fewer files than the cores: scans cut
    files into runs of row groups."""
    root = tmp_path_factory.mktemp("layout")
    for name, files in (("fact", [range(0, 4000), range(4000, 8000)]),
                        ("dim", [range(-100, 3000), range(3000, 5500), range(5500, 8100)])):
        (root / name).mkdir()
        for i, keys in enumerate(files):
            if name == "fact":
                table = pa.table({"k": pa.array(keys, pa.int64()), "g": pa.array([k % 10 for k in keys], pa.int64()),
                                  "v": pa.array([k / 8 for k in keys], pa.float64())})
            else:
                table = pa.table({"dk": pa.array(keys, pa.int64()), "name": [f"n{k % 13}" for k in keys]})
            pq.write_table(table, root / name / f"{name}.{i + 1}.parquet", row_group_size=500)
    return {name: root / name for name in ("fact", "dim")}
def parse(text: str) -> dict[str, str]:
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("# ") and line[2:].strip() in ("query", "explain", *SETTINGS):
            current = line[2:].strip()
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    return {k: "\n".join(v).strip() for k, v in sections.items()}


def explain(case: dict[str, str], executor: Executor, layout: dict[str, Path],
            **frames: DataFrame) -> str:
    reader = DataFrameReader(executor)
    views = {**frames, **{name: reader.parquet(str(path)) for name, path in layout.items()}}
    names = {"F": F, "Window": Window, **views,
             "sql": lambda text: sql_dataframe(executor, text, views)}
    df = eval(case["query"], names)  # the test's own file, not input
    return df.explain_string(extended=True)


def render(case: dict[str, str], layout: dict[str, Path]) -> str:
    executor = FakeExecutor(workers=2, chunks=2)
    for setting in ("broadcast_threshold", "task_bytes"):
        if setting in case:
            setattr(executor, setting, int(case[setting]))
    return explain(case, executor, layout, t=create_dataframe(executor, T), u=create_dataframe(executor, U))


def render_on_sessions(case: dict[str, str], layout: dict[str, Path]) -> Iterator[tuple[int, str]]:
    """The case's plan on a session of each of its worker counts, on ``CPUS`` CPUs; such a
    case reads only the layout (a session names the tables it holds at random)."""
    options = {setting: int(case[setting]) for setting in ("broadcast_threshold", "task_bytes") if setting in case}
    for workers in map(int, case["workers"].split()):
        with Session(workers=workers, **options) as session:
            assert session.cores == CPUS
            yield workers, explain(case, session, layout)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_plan_matches_golden(path: Path, layout: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    case = parse(path.read_text())
    if "workers" in case:
        monkeypatch.setenv("SPARKWIRE_TASK_BYTES", "0")
        monkeypatch.delenv("SPARKWIRE_WORKER__CORES", raising=False)  # the machine's CPUs
        monkeypatch.setattr(clusters_base, "_machine_cpus", lambda: CPUS)
        plans = dict(render_on_sessions(case, layout))
    else:
        plans = {0: render(case, layout)}
    expected = case["explain"]
    if os.environ.get("SPARKWIRE_UPDATE_GOLDEN"):
        expected = plans[min(plans)]
        head = path.read_text().split("# explain", 1)[0]
        path.write_text(f"{head}# explain\n{expected}\n")
    for workers, actual in plans.items():
        assert actual == expected, f"at {workers} workers" if workers else ""


def test_there_are_golden_cases() -> None:
    assert len(CASES) >= 8
