"""Helpers for end-to-end tests: random tables and a single-node DuckDB oracle."""

from __future__ import annotations

import decimal
import math
import os
import signal
import threading
import time

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from sparkwire.transport.errors import SparkwireError


def oracle(table: pa.Table, sql: str) -> pa.Table:
    """The same query on the whole input in one DuckDB: the reference for every result."""
    con = duckdb.connect()
    con.register("t", table)
    return con.sql(sql).to_arrow_table()


def rows_close(got: pa.Table, expected: pa.Table) -> bool:
    """Same rows in any order, numbers within 1e-6 (relative, or absolute near zero):
    sparkwire's results carry Spark's types (``avg`` of a decimal(12,2) is a decimal(16,6),
    rounded; ``sum`` of integers a bigint; ``/`` a double) where DuckDB, the oracle, gives
    a double, a HUGEINT or an exact decimal."""
    mine, theirs = canonical(got), canonical(expected)
    if len(mine) != len(theirs):
        return False
    for a, b in zip(mine, theirs, strict=True):
        for x, y in zip(a, b, strict=True):
            if isinstance(x, int | float) and isinstance(y, int | float) and not isinstance(x, bool):
                if not math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-6):
                    return False
            elif x != y:
                return False
    return True


def canonical(table: pa.Table) -> list[tuple]:
    """Rows as a sorted list with floats rounded, for order-insensitive comparison."""
    def norm(value: object) -> object:
        if isinstance(value, decimal.Decimal):
            value = float(value)
        if isinstance(value, float):
            return round(value, 6)
        return value
    rows = [tuple(norm(v) for v in row.values()) for row in table.to_pylist()]
    return sorted(rows, key=lambda row: tuple((v is None, str(type(v)), v if v is not None else 0) for v in row))


# Each task's output (KILL_ROWS/2 x 2 int64) must exceed what a transport keeps in flight
# (tens of MiB), so a kill lands while the victim still has data to send.
KILL_ROWS = 12_000_000
KILL_SETTINGS = {"local_chunk_rows": KILL_ROWS // 2, "worker": {"engine": {"batch_rows": 4096}}}


def kill_table() -> pa.Table:
    """``a``: 0 .. KILL_ROWS-1 (built from NumPy: ``pa.array(range(...))`` of 12M Python ints
    takes seconds)."""
    return pa.table({"a": np.arange(KILL_ROWS, dtype=np.int64)})


def kill_mid_stream(df: object, pid: int, within: float = 60.0) -> str:
    """Kill ``pid`` a second after the first batch of ``df`` arrived, while it is streamed
    slowly; the error message the caller got.

    The clock starts at the first batch, not at the call: under load the query may take over
    a second to start streaming, and a worker killed before any row reached the caller is
    recovered from (its task runs again), which is another test's point, not this one's.
    Fails the test if the stream ends without an error or the error takes over ``within`` s.
    """
    killer = threading.Timer(1.0, os.kill, args=(pid, signal.SIGKILL))
    started = time.monotonic()
    try:
        with pytest.raises(SparkwireError) as caught:
            for _ in df.toBatches():  # type: ignore[attr-defined]
                if killer.ident is None:  # the first batch: the clock starts
                    killer.start()
                time.sleep(0.002)  # a slow consumer (32 MB/s at most), so the kill lands mid-query
    finally:
        killer.cancel()
    assert time.monotonic() - started < within
    return str(caught.value)
