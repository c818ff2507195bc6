"""Helpers for end-to-end tests: random tables and a single-node DuckDB oracle."""

from __future__ import annotations

import duckdb
import pyarrow as pa


def oracle(table: pa.Table, sql: str) -> pa.Table:
    """The same query on the whole input in one DuckDB: the reference for every result."""
    con = duckdb.connect()
    con.register("t", table)
    return con.sql(sql).to_arrow_table()


def canonical(table: pa.Table) -> list[tuple]:
    """Rows as a sorted list with floats rounded, for order-insensitive comparison."""
    def norm(value: object) -> object:
        if isinstance(value, float):
            return round(value, 6)
        return value
    rows = [tuple(norm(v) for v in row.values()) for row in table.to_pylist()]
    return sorted(rows, key=lambda row: tuple((v is None, str(type(v)), v if v is not None else 0) for v in row))
