"""TPC-H helpers shared by the SQL end-to-end tests (in-process, ZeroMQ, Spark-hosted):
DuckDB's answers on the same files, comparison to 1e-6 relative, and one run of all 22
queries on a session."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import duckdb
import pyarrow as pa

from benchmarks.queries import QUERY_NAMES, sql_query
from sparkwire.coordinator import Session
from sparkwire.coordinator.tpch import TPCH_TABLES
from tests.e2e.conftest import rows_close


def expected_answers(tpch: Path, names: tuple[str, ...] = QUERY_NAMES,
                     tables: tuple[str, ...] = TPCH_TABLES) -> dict[str, pa.Table]:
    """DuckDB's result of each query (all 22 by default) over views on the same Parquet
    files of ``tables``."""
    con = duckdb.connect()
    for table in tables:
        con.execute(f"create view {table} as select * from read_parquet('{tpch / table}/*.parquet')")
    return {name: con.sql(sql_query(name)).to_arrow_table() for name in names}


def same(got: pa.Table, want: pa.Table) -> bool:
    """Same column names and rows (any order), numbers within 1e-6 (``rows_close``)."""
    return got.column_names == want.column_names and rows_close(got, want)


def run_all(session: Session, tpch: Path, expected: dict[str, pa.Table],
            bytes_in: Counter[str] | None = None) -> tuple[list, list]:
    """Every query on ``session``: (queries with a wrong answer, queries that left a
    worker idle that one of its stages had a task for: a stage of ``k`` tasks runs on
    ``k`` workers, or all of them when fewer); ``bytes_in`` sums what tasks read, by route."""
    for table in TPCH_TABLES:
        session.read.parquet(str(tpch / table)).createOrReplaceTempView(table)
    workers = {session.cluster.names[a] for a in session.cluster.addresses}
    wrong, idle = [], []
    for name in QUERY_NAMES:
        got = session.sql(sql_query(name)).toArrow()
        if not same(got, expected[name]):
            wrong.append(name)
        used = set(session.last_metrics.tasks_per_worker)
        if bytes_in is not None:
            bytes_in.update(session.last_metrics.bytes_in)
        widest = max(stage.tasks for stage in session.last_metrics.stages.values())
        if len(used & workers) < min(len(workers), widest):
            idle.append((name, sorted(used)))
    return wrong, idle
