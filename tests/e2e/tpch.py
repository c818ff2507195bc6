"""TPC-H helpers shared by the SQL end-to-end tests (in-process, ZeroMQ, Spark-hosted):
DuckDB's answers on the same files, comparison to 1e-6 relative, and one run of all 22
queries on a session."""

from __future__ import annotations

import decimal
import math
from pathlib import Path

import duckdb
import pyarrow as pa

from benchmarks.tpch import QUERY_NAMES, sql_query
from sparkwire.coordinator import Session
from sparkwire.coordinator.tpch import TPCH_TABLES


def expected_answers(tpch: Path) -> dict[str, pa.Table]:
    """DuckDB's result of every query over views on the same Parquet files."""
    con = duckdb.connect()
    for table in TPCH_TABLES:
        con.execute(f"create view {table} as select * from read_parquet('{tpch / table}/*.parquet')")
    return {name: con.sql(sql_query(name)).to_arrow_table() for name in QUERY_NAMES}


def rows(table: pa.Table) -> list[tuple]:
    columns = [c.to_pylist() for c in table.columns]
    return sorted(zip(*columns, strict=True), key=lambda r: tuple((v is None, str(v)) for v in r))


def same(got: pa.Table, want: pa.Table) -> bool:
    """Same column names and rows (any order); numbers equal to 1e-6 relative, since
    DuckDB keeps decimals where sparkwire's ``/`` is a double, as Spark's is, or within one
    unit of the last place of a decimal result: Spark's ``avg`` of a decimal(15,2) is a
    decimal(19,6), rounded where DuckDB's is a double (Q1's ``avg_disc``)."""
    if got.column_names != want.column_names or got.num_rows != want.num_rows:
        return False
    for a, b in zip(rows(got), rows(want), strict=True):
        for x, y in zip(a, b, strict=True):
            numeric = isinstance(x, float | decimal.Decimal) or isinstance(y, float | decimal.Decimal)
            if numeric and x is not None and y is not None:
                unit = 10.0 ** x.as_tuple().exponent if isinstance(x, decimal.Decimal) else 1e-9
                if not math.isclose(float(x), float(y), rel_tol=1e-6, abs_tol=unit):
                    return False
            elif x != y:
                return False
    return True


def run_all(session: Session, tpch: Path, expected: dict[str, pa.Table]) -> tuple[list, list]:
    """Every query on ``session``: (queries with a wrong answer, queries that left a
    worker idle on a multi-worker cluster)."""
    for table in TPCH_TABLES:
        session.read.parquet(str(tpch / table)).createOrReplaceTempView(table)
    workers = {session.cluster.names[a] for a in session.cluster.addresses}
    wrong, idle = [], []
    for name in QUERY_NAMES:
        got = session.sql(sql_query(name)).toArrow()
        if not same(got, expected[name]):
            wrong.append(name)
        used = set(session.last_metrics.tasks_per_worker)
        if len(workers) > 1 and not workers <= used:
            idle.append((name, sorted(used)))
    return wrong, idle
