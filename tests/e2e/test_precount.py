"""Counts of one side of a join, counted per join key before the join
(``planner.optimizer.rules.precount``), give DuckDB's answer: unmatched rows of a left join count 0,
NULL keys meet nothing, NULL values are not counted, a left key held twice counts twice."""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire.coordinator import Session
from tests.e2e.conftest import canonical

rng = np.random.default_rng(13)
KEYS = 60  # b holds keys 0..49, so a's keys 50..59 meet nothing
A = pa.table({
    "k": pa.array([None if i % 17 == 0 else int(i % KEYS) for i in range(300)], pa.int64()),
    "g": pa.array(rng.integers(0, 7, 300), pa.int64()),
})
B_ROWS = 5000
B = pa.table({
    "k": pa.array([None if i % 101 == 0 else int(v) for i, v in enumerate(rng.integers(0, 50, B_ROWS))], pa.int64()),
    "w": pa.array([None if i % 7 == 0 else int(v) for i, v in enumerate(rng.integers(0, 9, B_ROWS))], pa.int64()),
})
COUNTED = "sum(_count"  # the sum of the counts made before the join


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """``a`` and ``b`` as Parquet files (the rule needs the footers' key ranges)."""
    root = tmp_path_factory.mktemp("precount")
    with Session(workers=2) as instance:
        for name, table, parts in (("a", A, 2), ("b", B, 3)):
            (root / name).mkdir()
            bounds = [table.num_rows * part // parts for part in range(parts + 1)]
            for part in range(parts):
                pq.write_table(table.slice(bounds[part], bounds[part + 1] - bounds[part]),
                               root / name / f"{part}.parquet")
            instance.read.parquet(str(root / name)).createOrReplaceTempView(name)
        yield instance


def duckdb_answer(query: str) -> list[tuple]:
    con = duckdb.connect()
    con.register("a", A)
    con.register("b", B)
    return canonical(con.sql(query).to_arrow_table())


@pytest.mark.parametrize("how", ["left", "inner"])
@pytest.mark.parametrize("select", [
    "a.g, count(b.w) AS n",
    "a.g, count(b.w) AS n, count(b.k) AS m",
    "a.k, count(b.w) AS n",
])
def test_counts_made_before_the_join_match_duckdb(session, how, select) -> None:
    group = select.split(",")[0]
    query = f"SELECT {select} FROM a {how} JOIN b ON a.k = b.k GROUP BY {group}"
    df = session.sql(query)
    assert COUNTED in df.explain_string()  # the rule fired
    got = df.toArrow()
    assert got.schema.field("n").type == pa.int64()  # Spark's count type
    assert canonical(got) == duckdb_answer(query)


@pytest.mark.parametrize("select", [
    "a.g, count(*) AS n",  # counts the padded row of an unmatched key: not a count of b
    "a.g, count(b.w) AS n, sum(a.k) AS s",  # a's rows repeat once per partner
    "b.w, count(b.k) AS n",  # grouped by the counted side
])
def test_other_aggregates_over_a_join_are_left_alone(session, select) -> None:
    group = select.split(",")[0]
    query = f"SELECT {select} FROM a LEFT JOIN b ON a.k = b.k GROUP BY {group}"
    df = session.sql(query)
    assert COUNTED not in df.explain_string()
    assert canonical(df.toArrow()) == duckdb_answer(query)
