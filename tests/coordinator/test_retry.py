"""A worker lost mid-query: the query runs again on a full (or the surviving) cluster and
gives the oracle's answer; rows already returned are never returned twice."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.execution import QueryMetrics
from sparkwire.planner import functions as F
from sparkwire.transport.errors import TaskFailed

ROWS = 2_000_000


def retry_data(directory: Path) -> Path:
    """A Parquet file of ``ROWS`` rows whose aggregation takes long enough to kill amid."""
    path = directory / "t.parquet"
    k = pa.array([(i * 7919) % 200_003 for i in range(ROWS)], pa.int64())
    pq.write_table(pa.table({"k": k, "v": pa.array(range(ROWS), pa.int64())}), path,
                   row_group_size=ROWS // 8)
    return path


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return retry_data(tmp_path_factory.mktemp("retry"))


def oracle(path: Path) -> list[tuple[int, int]]:
    return sorted(duckdb.sql(f"SELECT k, sum(v) FROM '{path}' GROUP BY k").fetchall())


class KillOnFirstTask:
    """A progress callback that SIGKILLs ``pid`` when the query's first task finishes, so
    the worker dies mid-query, before the result (an aggregate) has any row."""

    def __init__(self) -> None:
        self.pid: int | None = None
        self.fired = threading.Event()

    def __call__(self, metrics: QueryMetrics) -> None:
        if self.pid is not None and not self.fired.is_set():
            self.fired.set()
            os.kill(self.pid, signal.SIGKILL)


def run_with_a_kill(session: Session, killer: KillOnFirstTask, victim_pid: int, path: Path):
    killer.pid = victim_pid
    df = session.read.parquet(str(path)).groupBy("k").sum("v")
    got = sorted(tuple(row) for row in df.collect())
    killer.pid = None
    return got


@pytest.mark.slow
def test_a_worker_process_killed_mid_query_means_another_attempt(data: Path) -> None:
    killer = KillOnFirstTask()
    with Session(workers=2, transport="zmq", task_bytes=0, progress=killer) as session:
        victim = session.cluster.announcements[1]
        assert run_with_a_kill(session, killer, victim.pid, data) == oracle(data)
        assert killer.fired.is_set()
        assert session.last_metrics is not None and session.last_metrics.attempts == 2
        assert session.cluster.alive() == [True, True]  # replaced under its worker id
        assert session.cluster.announcements[1].pid != victim.pid
        # and the session goes on: the next query is a first attempt again
        assert sorted(tuple(r) for r in session.read.parquet(str(data)).groupBy("k").sum("v")
                      .collect()) == oracle(data)
        assert session.last_metrics.attempts == 1


def test_a_query_failing_on_its_own_is_not_run_again(sparkwire_session) -> None:
    coordinator = sparkwire_session._coordinator
    attempts: list[str] = []
    run_attempt = coordinator._attempt

    def counted(query_id, plan, progress):
        attempts.append(query_id)
        return run_attempt(query_id, plan, progress)

    coordinator._attempt = counted
    try:
        df = sparkwire_session.createDataFrame(pa.table({"a": [1, 2], "b": [0, 0]}))
        with pytest.raises(TaskFailed, match="[Dd]ivision by zero"):
            df.withColumn("c", F.col("a") % F.col("b")).toArrow()
    finally:
        del coordinator._attempt
    assert len(attempts) == 1 and attempts[0].endswith("-1")
