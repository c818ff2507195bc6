"""Failures reach the caller as the library's errors naming the worker, stage and task."""

from __future__ import annotations

import os
import signal
import threading
import time

import pyarrow as pa
import pytest

from coordinator import Session
from planner import functions as F
from transport.errors import SparkwireError, TaskFailed
from transport.registry import available_transports, transport_class

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
    # Each task's output (rows/2 x 2 int64) must exceed what a transport keeps in flight
    # (tens of MiB), so the kill lands while the victim still has data to send.
    rows = 12_000_000
    table = pa.table({"a": pa.array(range(rows), pa.int64())})
    with Session(workers=2, transport=transport, local_chunk_rows=rows // 2,
                 worker={"engine": {"batch_rows": 4096}}) as session:
        victim = session.cluster.announcements[1]
        df = session.createDataFrame(table).withColumn("b", F.col("a") * 2).filter(F.col("b") >= 0)
        killer = threading.Timer(1.0, os.kill, args=(victim.pid, signal.SIGKILL))
        killer.start()
        started = time.monotonic()
        try:
            with pytest.raises(SparkwireError) as caught:
                for _ in df.toBatches():
                    time.sleep(0.01)  # a slow consumer, so the kill lands mid-query
        finally:
            killer.cancel()
        assert time.monotonic() - started < 60
        message = str(caught.value)
        assert "stage" in message and "task" in message
        assert session.cluster.alive() == [True, False]
    assert all(not alive for alive in session.cluster.alive())
