"""Adaptive execution (``coordinator.adaptive``): a stage reading a shuffle is planned again
from the bytes its producers wrote. Partitions coalesce, a skewed join partition splits, a
join side that turned out small is read whole; answers equal DuckDB's, with adaptivity on
and off, and the task counts show what was done."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.adaptive import barriers
from sparkwire.planner.api import functions as F
from tests.coordinator.test_retry import KillOnFirstTask, oracle as retry_oracle, retry_data
from tests.e2e.conftest import oracle, rows_close

N = 200_000
#: 90% of the left rows on key 0: one hot partition.
SKEWED = pa.table({"k": [0 if i % 10 else i for i in range(N)], "a": list(range(N))})
RIGHT = pa.table({"k2": list(range(0, N, 3)), "b": list(range(0, N, 3))})


def run(adaptive: bool, query, **settings) -> tuple[pa.Table, dict[int, tuple[int, int, list[str]]]]:
    """``query(session, left, right)``'s result and, per stage, (tasks planned, tasks run,
    adaptive notes)."""
    with Session(workers=2, adaptive=adaptive, local_chunk_rows=N // 8, **settings) as session:
        df = query(session, session.createDataFrame(SKEWED), session.createDataFrame(RIGHT))
        planned = {s.id: s.tasks for s in df.staged_plan().stages}
        table = df.toArrow()
        metrics = session.last_metrics
        assert metrics is not None
        return table, {s: (planned[s], m.tasks, m.notes) for s, m in metrics.stages.items()}


def expected(sql: str) -> pa.Table:
    con = duckdb.connect()
    con.register("l", SKEWED)
    con.register("r", RIGHT)
    return con.sql(sql).to_arrow_table()


def adapted(stages: dict[int, tuple[int, int, list[str]]], word: str) -> list[tuple[int, int]]:
    return [(planned, ran) for planned, ran, notes in stages.values() if any(word in n for n in notes)]


def test_small_partitions_coalesce_into_fewer_tasks() -> None:
    def query(session, left, _):  # the filter keeps 1 row in 97, estimated to keep far more
        return left.filter(F.col("a") % 97 < 1).groupBy("a").agg(F.count("*").alias("n"))

    want = expected("SELECT a, count(*) AS n FROM l WHERE a % 97 < 1 GROUP BY a")
    got, stages = run(True, query, task_bytes=256 << 10)
    assert rows_close(got, want)
    [(planned, ran)] = adapted(stages, "coalesced")
    assert ran < planned, stages
    off, off_stages = run(False, query, task_bytes=256 << 10)
    assert rows_close(off, want) and not adapted(off_stages, "")
    assert all(planned == ran for planned, ran, _ in off_stages.values())


def test_a_skewed_join_partition_splits_into_tasks() -> None:
    def query(session, left, right):
        return left.join(right, left.k == right.k2).select("k", "a", "b")

    want = expected("SELECT k, a, b FROM l JOIN r ON k = k2")
    settings = {"task_bytes": 0, "broadcast_threshold": 0, "skew_bytes": 0}
    got, stages = run(True, query, **settings)
    assert rows_close(got, want)
    [(planned, ran)] = adapted(stages, "split partition")
    assert ran > planned, stages
    off, _ = run(False, query, **settings)
    assert rows_close(off, want)


def test_the_side_a_left_join_preserves_is_split_never_the_other() -> None:
    """The hot key on the right of a left join: splitting it would emit a left row
    unmatched by one task and matched by another, so it stays one task; on the left it
    splits."""
    settings = {"task_bytes": 0, "broadcast_threshold": 0, "skew_bytes": 0}

    def hot_right(session, left, right):
        return right.join(left, right.k2 == left.k, "left").select("k2", "b", "a")

    got, stages = run(True, hot_right, **settings)
    assert rows_close(got, expected("SELECT k2, b, a FROM r LEFT JOIN l ON k2 = k"))
    assert not adapted(stages, "split")

    def hot_left(session, left, right):
        return left.join(right, left.k == right.k2, "left").select("k", "a", "b")

    got, stages = run(True, hot_left, **settings)
    assert rows_close(got, expected("SELECT k, a, b FROM l LEFT JOIN r ON k = k2"))
    assert adapted(stages, "split partition")


def test_a_join_side_that_turned_out_small_is_read_whole() -> None:
    def query(session, left, right):  # the filter keeps 1 row in 97; estimated over 100 kB
        small = right.filter(F.col("b") % 97 == 0)
        return left.join(small, left.a == small.k2).select("a", "k2", "b")

    want = expected("SELECT a, k2, b FROM l JOIN r ON a = k2 WHERE b % 97 = 0")
    got, stages = run(True, query, task_bytes=0, broadcast_threshold=100_000)
    assert rows_close(got, want)
    assert adapted(stages, "broadcast right side")
    off, off_stages = run(False, query, task_bytes=0, broadcast_threshold=100_000)
    assert rows_close(off, want) and not adapted(off_stages, "broadcast")


def test_a_full_join_is_neither_split_nor_switched() -> None:
    def query(session, left, right):
        return left.join(right, left.k == right.k2, "full").select("k", "a", "k2", "b")

    got, stages = run(True, query, task_bytes=0, broadcast_threshold=10 << 20, skew_bytes=0)
    assert rows_close(got, expected("SELECT k, a, k2, b FROM l FULL JOIN r ON k = k2"))
    assert not adapted(stages, "")


@pytest.mark.slow
def test_a_worker_killed_during_an_adaptive_query_is_recovered(tmp_path: Path) -> None:
    """The aggregate's stage is held at its barrier when the first task finishes and the
    worker dies: the lost producers run again, and the stage is planned from their sizes."""
    path = retry_data(tmp_path)
    killer = KillOnFirstTask()
    with Session(workers=2, transport="zmq", task_bytes=4 << 20, progress=killer) as session:
        df = session.read.parquet(str(path)).groupBy("k").sum("v")
        plan = df.staged_plan()
        assert barriers(plan, session._coordinator.policy())  # the query has a barrier
        killer.pid = session.cluster.announcements[1].pid
        got = sorted(tuple(row) for row in df.collect())
        assert killer.fired.is_set()
        assert got == retry_oracle(path)
        metrics = session.last_metrics
        assert metrics is not None and metrics.reruns > 0
