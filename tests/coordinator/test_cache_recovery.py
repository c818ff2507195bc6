"""A cache survives losing a worker that held a chunk of it: as Spark recomputes lost cached
partitions from lineage, the next query on it runs the cached plan again on the live workers,
gives the oracle's answer (DuckDB on the same files), and the queries after it read the new
cache instead of recomputing it."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire.coordinator import Session
from sparkwire.planner.api import functions as F
from sparkwire.planner.logical.plan import operators
from sparkwire.planner.logical.sources import CachedSource
from tests.transport.conftest import wait_until

ROWS = 30_000


def _write(directory: Path) -> Path:
    """Keys with NULLs and duplicates, values with NULLs and extremes, in three files."""
    for part in range(3):
        k = [None if i % 101 == 0 else (i * 7) % 53 for i in range(part, ROWS, 3)]
        v = [None if i % 13 == 0 else (2**62 if i % 997 == 0 else i - ROWS // 2)
             for i in range(part, ROWS, 3)]
        pq.write_table(pa.table({"k": pa.array(k, pa.int64()), "v": pa.array(v, pa.int64())}),
                       directory / f"part-{part}.parquet")
    return directory


_CACHED = ("SELECT k, count(v) AS n, sum(v) AS s, max(v) AS m FROM '{d}/*.parquet' "
           "WHERE v IS NULL OR v <> 0 GROUP BY k")


def _oracle(directory: Path, query: str) -> list[tuple[Any, ...]]:
    return sorted(duckdb.sql(query.format(cached=_CACHED.format(d=directory))).fetchall(), key=repr)


def _rows(df: Any) -> list[tuple[Any, ...]]:
    return sorted((tuple(row) for row in df.collect()), key=repr)


def _cache_of(df: Any) -> CachedSource:
    return next(op for stage in df.staged_plan().stages for op in operators(stage.fragment)
                if isinstance(op, CachedSource))


@pytest.mark.slow
def test_a_lost_cached_chunk_is_recomputed_once_then_read_from_the_cache(
        tmp_path: Path, started_queries: list[str]) -> None:
    directory = _write(tmp_path)
    totals = "SELECT k, n, s FROM ({cached}) WHERE n > 100"
    extremes = "SELECT count(*), sum(n), max(m) FROM ({cached})"
    want_totals, want_extremes = _oracle(directory, totals), _oracle(directory, extremes)
    queries = started_queries
    with Session(workers=3, transport="zmq") as session:
        v = F.col("v")
        kept = (session.read.parquet(str(directory)).filter(v.isNull() | (v != 0)).groupBy("k")
                .agg(F.count("v").alias("n"), F.sum("v").alias("s"), F.max("v").alias("m"))
                .cache())
        by_total = kept.filter(F.col("n") > 100).select("k", "n", "s")
        by_extreme = kept.agg(F.count("*"), F.sum("n"), F.max("m"))
        assert _rows(by_total) == want_totals
        assert len(queries) == 2  # the cache materialized, then the query on it
        before = _cache_of(by_total)
        holders = [a for a in session.cluster.announcements if a.address in before.addresses]
        assert holders, f"no worker holds a chunk: {before.addresses}"
        victim = holders[0]
        os.kill(victim.pid, signal.SIGKILL)
        assert wait_until(lambda: victim.address in session.cluster.dead(), 10)

        del queries[:]
        assert _rows(by_total) == want_totals  # recomputed from lineage, not an error
        assert len(queries) == 2, "the lost cache was not recomputed once"
        after = _cache_of(by_total)
        assert after.cache_id != before.cache_id
        assert victim.address not in after.addresses
        assert set(after.addresses) <= {*session.cluster.addresses, session.cluster.driver_address}

        for path in directory.iterdir():  # from here on, only the cache has the data
            path.unlink()
        del queries[:]
        assert _rows(by_extreme) == want_extremes
        assert _rows(by_total) == want_totals
        assert len(queries) == 2, "a query recomputed the cache instead of reading it"
        assert _cache_of(by_total) == after
        kept.unpersist()
    assert not any(session.cluster.alive())
