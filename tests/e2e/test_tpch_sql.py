"""All 22 TPC-H queries in their standard text (validation parameters) through
``session.sql``, on in-process and ZeroMQ clusters, against DuckDB on the same files.

Scale factor 0.1 (tpchgen-cli, four files per table). Results are compared as sorted rows
with numbers equal to 1e-6 relative (DuckDB keeps decimals where sparkwire's ``/`` is a
double, as Spark's is); column names must match. Every multi-worker run must have placed
tasks on every worker.
"""

from __future__ import annotations

import decimal
import math
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from benchmarks.tpch import QUERY_NAMES as NAMES
from benchmarks.tpch import sql_query
from sparkwire.coordinator import Session
from sparkwire.coordinator.tpch import TPCH_TABLES as TABLES
from sparkwire.coordinator.tpch import ensure_tpch


@pytest.fixture(scope="module")
def tpch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ensure_tpch(0.1, tables=TABLES, parts=4, root=tmp_path_factory.mktemp("tpch"))


@pytest.fixture(scope="module")
def expected(tpch: Path) -> dict[str, pa.Table]:
    con = duckdb.connect()
    for table in TABLES:
        con.execute(f"create view {table} as select * from read_parquet('{tpch / table}/*.parquet')")
    return {name: con.sql(sql_query(name)).to_arrow_table() for name in NAMES}


def rows(table: pa.Table) -> list[tuple]:
    columns = [c.to_pylist() for c in table.columns]
    return sorted(zip(*columns, strict=True), key=lambda r: tuple((v is None, str(v)) for v in r))


def same(got: pa.Table, want: pa.Table) -> bool:
    if got.column_names != want.column_names or got.num_rows != want.num_rows:
        return False
    for a, b in zip(rows(got), rows(want), strict=True):
        for x, y in zip(a, b, strict=True):
            if isinstance(x, float | decimal.Decimal) or isinstance(y, float | decimal.Decimal):
                if x is None or y is None or not math.isclose(float(x), float(y), rel_tol=1e-6, abs_tol=1e-9):
                    if x != y:
                        return False
            elif x != y:
                return False
    return True


CLUSTERS = [("memory", 1), ("memory", 4), ("zmq", 2)]


@pytest.mark.slow
@pytest.mark.parametrize(("transport", "workers"), CLUSTERS, ids=[f"{t}-{w}" for t, w in CLUSTERS])
def test_every_tpch_query_matches_duckdb(tpch: Path, expected: dict[str, pa.Table],
                                         transport: str, workers: int) -> None:
    assert len(NAMES) == 22
    wrong, idle = [], []
    with Session(workers=workers, transport=transport) as session:
        for table in TABLES:
            session.read.parquet(str(tpch / table)).createOrReplaceTempView(table)
        for name in NAMES:
            got = session.sql(sql_query(name)).toArrow()
            if not same(got, expected[name]):
                wrong.append(name)
            used = session.last_metrics.tasks_per_worker
            if workers > 1 and len(used) != workers:
                idle.append((name, dict(used)))
    assert wrong == []
    assert idle == []
