"""Failures reach the caller as the library's errors naming the worker, stage and task."""

from __future__ import annotations

import time

import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from sparkwire.planner import functions as F
from tests.e2e.conftest import KILL_ROWS, KILL_SETTINGS, kill_mid_stream
from sparkwire.transport.errors import TaskFailed
from sparkwire.transport.registry import available_transports, transport_class

CROSSING = sorted(n for n in available_transports() if transport_class(n).capabilities.crosses_processes)


def test_a_failing_task_names_worker_stage_and_task(sparkwire_session):
    table = pa.table({"a": pa.array(range(1000), pa.int64()), "b": pa.array([0] * 1000, pa.int64())})
    df = sparkwire_session.createDataFrame(table).withColumn("c", F.col("a") % F.col("b"))
    started = time.monotonic()
    with pytest.raises(TaskFailed, match=r"worker worker-\d, stage \d+, task \d+: .*[Dd]ivision by zero"):
        df.toArrow()
    assert time.monotonic() - started < 10
    for worker in sparkwire_session.cluster.workers:
        assert worker.store.partitions_held() == 0


@pytest.mark.slow
@pytest.mark.parametrize("transport", CROSSING)
def test_killed_worker_process_fails_the_query_within_the_timeout(transport):
    table = pa.table({"a": pa.array(range(KILL_ROWS), pa.int64())})
    with Session(workers=2, transport=transport, **KILL_SETTINGS) as session:
        victim = session.cluster.announcements[1]
        df = session.createDataFrame(table).withColumn("b", F.col("a") * 2).filter(F.col("b") >= 0)
        message = kill_mid_stream(df, victim.pid)
        assert "stage" in message and "task" in message
        assert session.cluster.alive() == [True, False]
    assert all(not alive for alive in session.cluster.alive())
