"""``explain(analyze=True)`` runs the query and shows, beside each stage's estimate, the
rows it actually produced; the join's note says which strategy was chosen and why."""

from __future__ import annotations

import re

import duckdb
import pyarrow as pa

from sparkwire.coordinator import Session
from sparkwire.planner.api import functions as F


def test_explain_analyze_reports_actual_rows_and_the_join_strategy() -> None:
    facts = pa.table({"k": list(range(1000)), "v": [i % 7 for i in range(1000)]})
    dims = pa.table({"k": list(range(0, 1000, 10)), "name": [f"n{i}" for i in range(100)]})
    expected = duckdb.sql(
        "select count(*) from facts f join dims d on f.k = d.k where f.v > 2"
    ).fetchall()[0][0]
    with Session(workers=2) as session:
        f, d = session.createDataFrame(facts), session.createDataFrame(dims)
        text = f.filter(F.col("v") > 2).join(d, "k").explain_string(analyze=True)
    final = [line for line in text.splitlines() if "output=result" in line][0]
    assert int(re.search(r"actual=(\d+)", final).group(1)) == expected
    assert "-- inner join: broadcast right (left ≈" in text
    assert all("actual=" in line for line in text.splitlines() if line.startswith("Stage "))
