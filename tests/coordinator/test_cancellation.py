"""Closing a result stream, early or at its end, cancels every task of the query on every
worker at once and frees its partitions."""

from __future__ import annotations

import threading
import time

import pyarrow as pa
import pyarrow.compute as pc

from sparkwire.coordinator import Session
from sparkwire.planner.api import functions as F
from sparkwire.transport.errors import ConnectionLost
from tests.transport.conftest import wait_until

ROWS = 4_000_000


def test_early_close_stops_running_tasks_and_frees_partitions():
    table = pa.table({"a": pa.array(range(ROWS), pa.int64())})
    table = table.append_column("b", pc.multiply(table["a"], 3))
    # Small batches make every task take long enough to be caught mid-input.
    with Session(workers=4, local_chunk_rows=ROWS // 4, worker={"engine": {"batch_rows": 2048}}) as session:
        df = session.createDataFrame(table).withColumn("c", F.col("a") + F.col("b"))
        batches = df.toBatches()
        first = next(batches)
        assert first.num_rows > 0
        started = time.monotonic()
        batches.close()
        closed_in = time.monotonic() - started
        workers = [*session.cluster.workers, session.cluster.driver]
        time.sleep(0.5)  # let interrupted tasks unwind
        stage_one_done = [t for w in session.cluster.workers for t in w.completed if t["stage"] == 1]
        assert len(stage_one_done) < 4, "every task read its whole input despite the close"
        assert closed_in < 5
        for worker in workers:
            assert worker.store.partitions_held() == 0
            assert worker.store.memory_bytes == 0
            assert not any(worker.store.spill_dir.iterdir())
            assert not worker._running


def test_closing_a_one_task_query_frees_its_worker_for_the_next():
    """A query's only task runs wide on its worker, holding back the worker's other tasks
    (``engine.Databases``); closing its result early interrupts it, and the next query's
    tasks run at once."""
    with Session(workers=1, task_bytes=16 << 20, worker={"task_slots": 2}) as session:
        worker = session.cluster.workers[0]
        right = session.range(200_000).withColumnRenamed("id", "j")
        slow = session.range(200_000).crossJoin(right)  # 4e10 rows
        assert len(slow.staged_plan().stages) == 1
        batches = slow.toBatches()
        assert next(batches).num_rows > 0
        assert worker._engines._running_wide  # it runs wide: the only task of its query, waiting on none
        batches.close()
        started = time.monotonic()
        got = session.range(1000).agg(F.sum("id").alias("s")).collect()
        assert got[0]["s"] == sum(range(1000))
        assert time.monotonic() - started < 5
        deadline = time.monotonic() + 5
        while worker._engines._running_wide and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not worker._engines._running_wide and not worker._running


def test_a_query_s_end_cancels_every_worker_at_once_and_waits_for_none_past_the_timeout():
    """Worker 0 answers its cancel only after 3 s and worker 1's fails: worker 2 and the
    driver are cancelled all the same, before worker 0 answers, and the query's end waits
    the cancel timeout (0.5 s) for worker 0, not its 3 s."""
    with Session(workers=3, timeouts={"cancel": 0.5}) as session:
        df = session.range(0, 3000, numPartitions=3).agg(F.sum("id").alias("s"))
        assert df.collect()[0]["s"] == sum(range(3000))  # warm
        answer = threading.Event()
        cancelled: dict[str, float] = {}
        services = {f"worker-{i}": w for i, w in enumerate(session.cluster.workers)}
        services["driver"] = session.cluster.driver
        for name, service in services.items():
            def cancel(query_id: str, name: str = name, real=service.cancel) -> None:
                if name == "worker-0":
                    answer.wait(3)
                cancelled[name] = time.monotonic()
                if name == "worker-1":
                    raise ConnectionLost("worker-1 is unreachable")
                real(query_id)
            service.cancel = cancel
        started = time.monotonic()
        assert df.collect()[0]["s"] == sum(range(3000))
        took = time.monotonic() - started
        assert took < 2.5, took  # the 0.5 s timeout and the query, far from the 3 s
        assert {"worker-1", "worker-2", "driver"} <= cancelled.keys()
        assert "worker-0" not in cancelled  # still waiting for its answer
        answer.set()
        assert wait_until(lambda: "worker-0" in cancelled, 5)
        assert max(cancelled[n] for n in ("worker-1", "worker-2", "driver")) < cancelled["worker-0"]
        for name in ("worker-2", "driver"):
            assert services[name].store.partitions_held() == 0
