"""What an interleaved benchmark run (``benchmarks.interleave``) runs: TPC-H or TPC-DS, each
its tables, its queries, how its data is made, and the text each system is given.

The harness, the drivers and the report are the same for both; only this differs. Query
texts travel to the drivers as text, so a driver process never imports a workload.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.queries import QUERY_NAMES, sql_query
from benchmarks.queries.tpcds import TPCDS_QUERY_NAMES, duckdb_text, tpcds_query
from benchmarks.tpcds_data import TPCDS_TABLES, ensure_tpcds
from sparkwire.coordinator.tpch import TPCH_TABLES, ensure_tpch


@dataclass(frozen=True)
class Workload:
    """One benchmark's queries over its tables."""

    title: str                           # "TPC-H", in reports
    slug: str                            # "tpch": results are ``<slug>-sf<N>.json``
    tables: tuple[str, ...]
    queries: tuple[str, ...]
    data: Callable[[float], Path]        # the Parquet folders at a scale, generated if absent
    spark_sql: Callable[[str], str]      # a query's text for sparkwire and Spark SQL
    duckdb_sql: Callable[[str], str]     # the same query in DuckDB's dialect
    #: Whether column names are checked against DuckDB's: not for TPC-DS, whose unaliased
    #: expressions DuckDB names its own way (``count_star()`` for Spark's ``count(1)``).
    names_checked: bool

    def sql(self, query: str, system: str) -> str:
        """The text of ``query`` that ``system`` runs."""
        return self.duckdb_sql(query) if system == "duckdb" else self.spark_sql(query)


TPCH = Workload("TPC-H", "tpch", TPCH_TABLES, QUERY_NAMES,
                lambda scale: ensure_tpch(scale, TPCH_TABLES), sql_query, sql_query, True)
TPCDS = Workload("TPC-DS", "tpcds", TPCDS_TABLES, TPCDS_QUERY_NAMES, ensure_tpcds, tpcds_query,
                 lambda name: duckdb_text(tpcds_query(name)), False)
