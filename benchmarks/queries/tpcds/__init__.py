"""TPC-DS for sparkwire: the 99 queries as Spark SQL text (``qNN.sql`` in this package).

Source: DuckDB's ``tpcds`` extension (``tpcds_queries()``, MIT licensed; the texts derive from
the TPC-DS specification's query templates, © Transaction Processing Performance Council,
with its qualification parameters), as printed by ``duckdb-extension-tpcds`` 1.5.5 and
written here by ``python -m benchmarks.tpcds_data --queries``. DuckDB's texts are ANSI SQL
but for their quoted column aliases (``AS "order count"``): in Spark a double-quoted token is
a string, so they are written here with backticks, and ``duckdb_text`` turns them back for
the oracle. Queries 14, 23, 24 and 39 are the first of each pair (14a, 23a, ...), as DuckDB
prints them.

    from benchmarks.queries.tpcds import TPCDS_QUERY_NAMES, tpcds_query

    tpcds_query("q01")  # the Spark SQL text of query 1
"""

from __future__ import annotations

import re
from pathlib import Path

QUERY_DIR = Path(__file__).resolve().parent

#: ``q01`` ... ``q99``, in order.
TPCDS_QUERY_NAMES: tuple[str, ...] = tuple(f"q{n:02d}" for n in range(1, 100))

_DOUBLE_QUOTED = re.compile(r'"([^"`]*)"')
_BACKTICKED = re.compile(r"`([^`\"]*)`")


def tpcds_query(name: str) -> str:
    """The Spark SQL text of TPC-DS query ``name`` (``"q01"`` ... ``"q99"``)."""
    if name not in TPCDS_QUERY_NAMES:
        raise ValueError(f"unknown TPC-DS query {name!r}; expected one of q01 ... q99")
    return (QUERY_DIR / f"{name}.sql").read_text()


def spark_text(duckdb_sql: str) -> str:
    """DuckDB's text in Spark's dialect: quoted identifiers in backticks, no final ``;``
    (none of the 99 has a string literal in double quotes)."""
    return _DOUBLE_QUOTED.sub(r"`\1`", duckdb_sql.strip().rstrip(";").rstrip()) + "\n"


def duckdb_text(spark_sql: str) -> str:
    """The inverse of ``spark_text``, for DuckDB as the oracle."""
    return _BACKTICKED.sub(r'"\1"', spark_sql)


__all__ = ["QUERY_DIR", "TPCDS_QUERY_NAMES", "duckdb_text", "spark_text", "tpcds_query"]
