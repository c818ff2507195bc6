"""Values a call makes for each row are bounded by the worker's memory, since DuckDB makes
them a vector of 2,048 rows at a time on each thread (``worker.compile.sizes``): on a real
worker process, a vector of values each within the per-value bound but together 16x the
worker's memory is refused at once, naming the setting that raises it; values at the worker's
bound run, correct, within its memory; and a task of them past its deadline frees the worker
at once. Before, lpad to 1 MiB over 4,096 rows grew a 512 MiB worker by 1.3 GiB and kept it
busy 14 s after its deadline."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator

import duckdb
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.worker.compile.sizes import VECTOR_ROWS
from sparkwire.planner.api import functions as F
from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.transport.errors import QueryError

MEMORY = 128 << 20
ROWS = 4096  # two vectors
#: Seconds the next query may take once a task was refused or stopped (the goal is 1 s;
#: a loaded CI machine gets a little slack, and before it took 14 s).
ANSWERS_WITHIN = 1.5
DEADLINE = 1.5


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with Session(workers=1, transport="zmq", worker={"memory": MEMORY},
                 timeouts={"task": DEADLINE}) as s:
        s.range(10).count()  # database open, threads up: the baseline
        yield s


def _rss(session: Session, field: str) -> int:
    pid = session.cluster.announcements[0].pid
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith(field + ":"))


def _padded(session: Session, rows: int, length: int) -> DataFrame:
    return (session.range(rows).select(F.length(F.lpad(F.col("id").cast("string"), length, "y"))
                                       .alias("n")).agg(F.sum("n").alias("total")))


def _bound_in(error: pytest.ExceptionInfo[QueryError]) -> int:
    return int(re.search(r"more than the (\d+) one value", str(error.value)).group(1))


def _answers(session: Session) -> None:
    started = time.monotonic()
    assert session.range(5).count() == 5
    assert time.monotonic() - started < ANSWERS_WITHIN


def test_values_made_per_row_stay_within_the_workers_memory(session: Session) -> None:
    idle = _rss(session, "VmRSS")
    started = time.monotonic()
    with pytest.raises(QueryError, match=r"COLLECTION_SIZE_LIMIT_EXCEEDED.*raise worker\.memory") as refused:
        _padded(session, ROWS, 1 << 20).collect()  # 2 GiB a vector
    assert time.monotonic() - started < 10  # refused, never built
    _answers(session)
    bound = _bound_in(refused)
    # a vector of such values (4 bytes a character at most) on each thread fits the memory
    # (a worker runs as many threads as its cores, at least its 2 slots when all are busy)
    assert bound * 4 * VECTOR_ROWS * max(2, os.cpu_count() or 1) <= MEMORY
    got = _padded(session, ROWS, bound).collect()[0]["total"]
    expected = duckdb.sql(f"SELECT sum(length(lpad(range::VARCHAR, {bound}, 'y'))) "
                          f"FROM range({ROWS})").fetchall()[0][0]
    assert got == expected
    # constants are made once: the idiom that makes rows keeps the 1 Mi of one value
    made = session.range(ROWS).select(F.size(F.sequence(F.lit(1), F.lit(1_000_000))).alias("n")) \
        .agg(F.sum("n").alias("total")).collect()[0]["total"]
    assert made == duckdb.sql(f"SELECT sum(n) FROM (SELECT len(range(1, 1000001)) AS n), "
                              f"range({ROWS})").fetchall()[0][0]
    assert _rss(session, "VmHWM") <= idle + MEMORY
    # two calls' values of a row are in memory at once: they share the bound
    text = F.col("id").cast("string")
    with pytest.raises(QueryError, match="COLLECTION_SIZE_LIMIT_EXCEEDED") as shared:
        session.range(ROWS).select(F.lpad(text, bound, "y"), F.rpad(text, bound, "z")).collect()
    assert _bound_in(shared) <= bound // 2


def test_a_task_of_values_past_its_deadline_frees_the_worker_at_once(session: Session) -> None:
    started = time.monotonic()
    with pytest.raises(QueryError, match="timeouts.task"):
        _padded(session, 10**9, 1000).collect()
    assert time.monotonic() - started < DEADLINE + ANSWERS_WITHIN
    _answers(session)
