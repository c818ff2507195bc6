"""Helpers shared by the engine tests: run a compiled fragment, and the DuckDB oracle."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal

import duckdb
import pyarrow as pa

from sparkwire.coordinator.config import EngineSettings
from sparkwire.coordinator.worker.engine import Databases, TaskEngine
from sparkwire.coordinator.worker.compile import ExchangeTable, RowGroupTable, compile_fragment
from sparkwire.planner.logical.plan import Exchange, Operator
from sparkwire.planner.logical.staged import Boundary


def make_table() -> pa.Table:
    """Small mixed-type data with nulls in every column but the id."""
    n = 40
    return pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "i": pa.array([None if k % 7 == 3 else (k % 11) - 5 for k in range(n)], pa.int32()),
            "g": pa.array([None if k % 9 == 4 else "abc"[k % 3] * (k % 4 + 1) for k in range(n)]),
            "x": pa.array([None if k % 8 == 5 else k / 3 - 4 for k in range(n)], pa.float64()),
            "b": pa.array([None if k % 10 == 0 else k % 2 == 0 for k in range(n)], pa.bool_()),
            "d": pa.array(
                [None if k % 6 == 1 else dt.date(2020, 1, 1) + dt.timedelta(days=17 * k) for k in range(n)],
                pa.date32(),
            ),
            "ts": pa.array(
                [None if k % 5 == 2 else dt.datetime(2021, 3, 4, 5, 6, 7) + dt.timedelta(hours=31 * k) for k in range(n)],
                pa.timestamp("us"),
            ),
            "dec": pa.array(
                [None if k % 7 == 6 else Decimal(k * 37 % 1000 - 500) / 100 for k in range(n)],
                pa.decimal128(10, 2),
            ),
            "s": pa.array([None if k % 4 == 3 else f"Str{k}É" for k in range(n)]),
            "bin": pa.array([None if k % 6 == 5 else bytes([k % 5, 255 - k % 3]) for k in range(n)], pa.binary()),
        }
    )


def exchange(t: pa.Table, stage: int = 0) -> Exchange:
    return Exchange(stage=stage, columns=tuple(t.column_names))


def run_fragment(
    engine: TaskEngine,
    fragment: Operator,
    inputs: dict[int, pa.Table] | None = None,
    output: Boundary | None = None,
    local: pa.Table | None = None,
    chunk: int = 7,
    ansi: bool = True,
) -> pa.Table:
    """Compile ``fragment`` (in Spark's ANSI mode or not), open its files and register what it reads (each
    exchange input as a stream of small batches, ``local`` as every local source's chunk),
    run it and collect."""
    compiled = compile_fragment(fragment, output or Boundary(kind="result"), ansi)
    engine.open_files(compiled.files, compiled.file_lists)
    for table in compiled.tables:
        if isinstance(table, ExchangeTable):
            t = (inputs or {})[table.stage]
            batches = t.to_batches(max_chunksize=chunk)
            engine.register(table.name, pa.RecordBatchReader.from_batches(t.schema, batches))
        elif isinstance(table, RowGroupTable):
            engine.register_row_groups(table.name, table.splits)
        else:
            engine.register(table.name, local)
    stream = engine.run(compiled.sql)
    return pa.Table.from_batches(list(stream), schema=stream.schema)


#: DuckDB's memory limit in these tests: the default worker's share (``MemoryPlan``).
ENGINE_MEMORY = 800 << 20


@contextmanager
def engine_for(settings: EngineSettings, memory_limit: int = ENGINE_MEMORY) -> Iterator[TaskEngine]:
    """A task's engine on a database of its own, closed with it."""
    assert settings.temp_directory is not None
    with Databases(settings, settings.temp_directory, memory_limit) as databases, \
            databases.task() as engine:
        yield engine


def oracle(t: pa.Table, sql: str) -> pa.Table:
    """Hand-written SQL over ``t`` (table name ``t``) on an unrestricted DuckDB."""
    con = duckdb.connect()
    con.register("t", t)
    try:
        return con.sql(sql).to_arrow_table()
    finally:
        con.close()


_ORACLE_CONNECTION: list[duckdb.DuckDBPyConnection] = []


def oracle_tables(tables: dict[str, pa.Table], sql: str) -> pa.Table:
    """Hand-written SQL over several tables (registered under the dict's names) on an
    unrestricted DuckDB. One connection is reused (opening one costs tens of milliseconds,
    too much for property tests); the tables are unregistered afterwards."""
    if not _ORACLE_CONNECTION:
        _ORACLE_CONNECTION.append(duckdb.connect())
    con = _ORACLE_CONNECTION[0]
    for name, t in tables.items():
        con.register(name, t)
    try:
        return con.sql(sql).to_arrow_table()
    finally:
        for name in tables:
            con.unregister(name)
