"""The systems ``benchmarks.interleave`` compares, each opened over the same Parquet folders
and answering one query as an Arrow table. Used inside the driver process of one system
(``benchmarks.tpch_serve``), so the heavy imports (PySpark, sparkwire) happen only there.

Tables are passed in, not imported from sparkwire, so the DuckDB and Spark SQL drivers do
not carry sparkwire's modules in the memory they are measured by. Every system gets the
same parallelism ``workers``: sparkwire that many workers, Spark ``local[workers]``, DuckDB
that many threads. The timed call always returns the whole result as Arrow, so each system
pays for getting its answer into the caller's hands.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa

#: Process transports of sparkwire's local worker processes; ``memory`` runs workers in process.
SPARKWIRE_TRANSPORTS = ("memory", "shm", "zmq", "flight")
SYSTEMS: tuple[str, ...] = (*(f"sparkwire-{t}" for t in SPARKWIRE_TRANSPORTS), "sparkwire-spark",
                            "spark-sql", "duckdb")


class System(Protocol):
    def run(self, sql: str) -> pa.Table:
        """The whole result of ``sql``: the call that is timed."""

    def metrics(self) -> dict[str, Any] | None:
        """What the last query did (sparkwire only), JSON-ready."""


class Sparkwire:
    """A sparkwire ``Session``; ``session.last_metrics`` tells what each query moved."""

    def __init__(self, session: Any, data: Path, tables: list[str]) -> None:
        self.session = session
        for table in tables:
            session.read.parquet(str(data / table)).createOrReplaceTempView(table)

    def run(self, sql: str) -> pa.Table:
        return self.session.sql(sql).toArrow()

    def metrics(self) -> dict[str, Any] | None:
        """Stages and tasks; bytes written across each kind of stage boundary (``shuffle``,
        ``broadcast``, ... once per producer) and read by tasks per route (``memory``,
        ``zmq``, ``local`` ...: a broadcast once per reading task); the pieces (batches)
        written across the boundaries but the result; seconds per phase."""
        m = self.session.last_metrics
        if m is None:
            return None
        phases = dict(getattr(m, "phases", {}) or {})  # seconds per phase, where recorded
        written: Counter[str] = Counter()
        for stage in m.stages.values():
            written[stage.boundary] += stage.bytes
        return {"boundary_bytes": sum(b for kind, b in written.items() if kind != "result"),
                "stages": len(m.stages), "tasks": sum(s.tasks for s in m.stages.values()),
                "pieces": sum(s.batches for s in m.stages.values() if s.boundary != "result"),
                "bytes_by_boundary": dict(sorted(written.items())),
                "bytes_in": dict(sorted(m.bytes_in.items())),
                "phases": {str(k): float(v) for k, v in phases.items()}}


class SparkSql:
    """Spark SQL itself, over one temporary view per table."""

    def __init__(self, spark: Any, data: Path, tables: list[str]) -> None:
        self.spark = spark
        for table in tables:
            spark.read.parquet(str(data / table)).createOrReplaceTempView(table)

    def run(self, sql: str) -> pa.Table:
        return self.spark.sql(sql).toArrow()

    def metrics(self) -> dict[str, Any] | None:
        return None


class DuckDb:
    """One DuckDB connection with ``workers`` threads, one view per table. NULLs sort as
    Spark sorts them (first ascending, last descending), so where a ``LIMIT`` cuts a sorted
    result (TPC-DS) it keeps the rows Spark keeps: DuckDB is the oracle, and a contender."""

    def __init__(self, workers: int, data: Path, tables: list[str]) -> None:
        import duckdb

        self.con = duckdb.connect(config={"threads": workers,
                                          "default_null_order": "nulls_first_on_asc_last_on_desc"})
        for table in tables:
            self.con.execute(f"create view {table} as select * from "
                             f"read_parquet('{data / table}/*.parquet')")

    def run(self, sql: str) -> pa.Table:
        return self.con.sql(sql).to_arrow_table()

    def metrics(self) -> dict[str, Any] | None:
        return None


def local_spark(workers: int, app: str, **conf: str) -> Any:
    """A ``local[workers]`` SparkSession on loopback with the UI off; otherwise Spark's
    defaults (adaptive execution on) plus ``conf``."""
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master(f"local[{workers}]").appName(app)
               .config("spark.ui.enabled", "false")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.bindAddress", "127.0.0.1"))
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def open_system(name: str, data: Path, tables: list[str], workers: int, stack: ExitStack) -> System:
    """System ``name`` over ``data/<table>/*.parquet``; ``stack`` closes it (and its cluster)."""
    if name == "duckdb":
        system = DuckDb(workers, data, tables)
        stack.callback(system.con.close)
        return system
    if name == "spark-sql":
        spark = local_spark(workers, "tpch-spark-sql", **{"spark.driver.memory": "4g"})
        stack.callback(spark.stop)
        return SparkSql(spark, data, tables)
    from sparkwire.coordinator import Session

    if name == "sparkwire-spark":
        spark = local_spark(workers, "tpch-sparkwire", **{"spark.python.worker.reuse": "false"})
        stack.callback(spark.stop)
        session = stack.enter_context(Session(workers=workers, cluster="spark", spark=spark,
                                              transport="flight"))
        return Sparkwire(session, data, tables)
    transport = name.removeprefix("sparkwire-")
    if transport not in SPARKWIRE_TRANSPORTS:
        raise ValueError(f"unknown system {name!r}; expected one of {', '.join(SYSTEMS)}")
    session = Session(workers=workers) if transport == "memory" else Session(workers=workers,
                                                                               transport=transport)
    return Sparkwire(stack.enter_context(session), data, tables)
