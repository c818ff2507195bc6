"""Golden plans: a DataFrame query in, its logical and staged plans out, one file a case.

Each ``golden/*.txt`` holds the query (a Python expression over the DataFrames ``t`` and
``u``, ``F`` and ``Window``) under ``# query``, an optional ``# broadcast_threshold`` line, and the
expected ``explain(extended=True)`` text under ``# explain``. A change to the planner that
changes a plan shows up here as a readable diff. ``SPARKWIRE_UPDATE_GOLDEN=1`` rewrites the
files from the current planner (review the diff before committing it).
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pytest

from sparkwire.planner.api.sources import create_dataframe
from sparkwire.planner.api.window import Window
from sparkwire.planner.api import functions as F
from tests.planner.conftest import FakeExecutor

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(GOLDEN.glob("*.txt"))

T = pa.table({"k": pa.array([1, 2], pa.int64()), "v": ["a", "b"], "x": [1.0, 2.0]})
U = pa.table({"k": pa.array([1, 3], pa.int32()), "w": pa.array([1, 2], pa.decimal128(12, 2))})


def parse(text: str) -> dict[str, str]:
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("# ") and line[2:].strip() in ("query", "explain", "broadcast_threshold"):
            current = line[2:].strip()
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    return {k: "\n".join(v).strip() for k, v in sections.items()}


def render(case: dict[str, str]) -> str:
    executor = FakeExecutor(workers=2, chunks=2)
    if "broadcast_threshold" in case:
        executor.broadcast_threshold = int(case["broadcast_threshold"])
    t, u = create_dataframe(executor, T), create_dataframe(executor, U)
    df = eval(case["query"], {"t": t, "u": u, "F": F, "Window": Window})  # the test's own file, not input
    return df.explain_string(extended=True)


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_plan_matches_golden(path: Path) -> None:
    case = parse(path.read_text())
    actual = render(case)
    if os.environ.get("SPARKWIRE_UPDATE_GOLDEN"):
        head = path.read_text().split("# explain", 1)[0]
        path.write_text(f"{head}# explain\n{actual}\n")
        return
    assert actual == case["explain"]


def test_there_are_golden_cases() -> None:
    assert len(CASES) >= 8
