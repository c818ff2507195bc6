"""Failures reach the caller as the library's errors naming the worker, stage and task."""

from __future__ import annotations

import os
import signal
import time

import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from sparkwire.planner.api import functions as F
from tests.e2e.conftest import KILL_SETTINGS, kill_mid_stream, kill_table
from sparkwire.transport.errors import TaskFailed
from sparkwire.transport.registry import available_transports, transport_class

CROSSING = sorted(n for n in available_transports() if transport_class(n).capabilities.crosses_processes)


def test_a_failing_task_names_worker_stage_and_task(sparkwire_session):
    table = pa.table({"a": pa.array(range(1000), pa.int64()), "b": pa.array([0] * 1000, pa.int64())})
    df = sparkwire_session.createDataFrame(table).withColumn("c", F.col("a") % F.col("b"))
    started = time.monotonic()
    with pytest.raises(TaskFailed, match=r"worker worker-\d, stage \d+, task \d+: \[REMAINDER_BY_ZERO\] Remainder by zero"):
        df.toArrow()
    assert time.monotonic() - started < 10
    for worker in sparkwire_session.cluster.workers:
        assert worker.store.partitions_held() == 0


@pytest.mark.slow
@pytest.mark.parametrize("transport", CROSSING)
def test_killed_worker_process_fails_the_query_within_the_timeout(transport):
    table = kill_table()
    with Session(workers=2, transport=transport, **KILL_SETTINGS) as session:
        victim = session.cluster.announcements[1]
        df = session.createDataFrame(table).withColumn("b", F.col("a") * 2).filter(F.col("b") >= 0)
        message = kill_mid_stream(df, victim.pid)
        assert "stage" in message and "task" in message
        assert "not run again" in message  # rows had been returned: no duplicates
        assert session.cluster.alive() == [True, False]
    assert all(not alive for alive in session.cluster.alive())


def test_the_session_survives_a_dead_worker_process():
    """After a worker process dies between queries, the next query runs on a replacement
    under the same worker id and gives the oracle's answer; the Session stays usable."""
    table = pa.table({"k": pa.array([i % 10 for i in range(10_000)], pa.int64())})
    expected = sorted(pa.TableGroupBy(table, "k").aggregate([("k", "count")]).to_pylist(),
                      key=lambda r: r["k"])
    with Session(workers=2, transport="zmq") as session:
        df = session.createDataFrame(table).groupBy("k").count()
        assert sorted((r[0], r[1]) for r in df.collect()) == [(r["k"], r["k_count"]) for r in expected]
        victim = session.cluster.announcements[1]
        os.kill(victim.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while session.cluster.alive()[1] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert session.cluster.alive() == [True, False]
        for _ in range(2):
            got = sorted((r[0], r[1]) for r in session.createDataFrame(table).groupBy("k").count().collect())
            assert got == [(r["k"], r["k_count"]) for r in expected]
        assert session.cluster.alive() == [True, True]
        replacement = session.cluster.announcements[1]
        assert replacement.pid != victim.pid and replacement.worker_id == victim.worker_id
    assert not any(session.cluster.alive())
