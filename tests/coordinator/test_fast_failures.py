"""A query that fails on its data fails at once: the worker reports a ``QueryError``, the
coordinator raises it without waiting for news of a lost worker (it used to wait out a
liveness and a failure grace, 1.5 s), cancels the query's other tasks, and nothing of the
query stays behind: no running task, partition, status thread or shared-memory segment."""

from __future__ import annotations

import statistics
import threading
import time
from pathlib import Path

import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.execution import QueryResult
from sparkwire.planner import functions as F
from sparkwire.transport.base import PartitionKey
from sparkwire.transport.errors import QueryCancelled, QueryError, TaskFailed
from tests.transport.conftest import wait_until

ROWS = 3_000_000
# Three chunks, one task each; tiny batches make the two chunks without a zero divisor take
# about two seconds each, so a query that waits for them, or fails only after a grace,
# cannot pass the bound below.
SETTINGS = {"workers": 3, "local_chunk_rows": ROWS // 3, "worker": {"engine": {"batch_rows": 128}}}
# Today's failures take 5-30 ms; before, 1.5 s (the liveness and failure graces). The
# median of three is well clear of both, on a loaded machine too.
BOUND = 0.5


def _table() -> pa.Table:
    """Row 0 divides by zero; the other chunks' rows divide by -1, 1 or NULL (in ANSI mode a
    NULL divisor gives NULL, not an error)."""
    b = pa.array([0] + [None if i % 97 == 0 else (1 if i % 2 else -1) for i in range(1, ROWS)],
                 pa.int64())
    return pa.table({"a": pa.array(range(ROWS), pa.int64()), "b": b})


def _segments() -> set[Path]:
    return set(Path("/dev/shm").glob("sparkwire-*"))


def _threads() -> set[str]:
    """This process's threads but a zmq server's pool, which grows on demand up to its
    ``max_streams`` and reuses its threads."""
    return {t.name for t in threading.enumerate() if not t.name.startswith("sparkwire-zmq-work_")}


def _status_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("sparkwire-status-")]


@pytest.mark.parametrize("transport", ["memory", "shm", "zmq"])
def test_a_failing_query_raises_at_once_and_leaves_nothing_behind(
        transport: str, monkeypatch: pytest.MonkeyPatch) -> None:
    queries: list[str] = []
    start = QueryResult.start

    def started(result: QueryResult) -> None:
        queries.append(result.query_id)
        start(result)

    monkeypatch.setattr(QueryResult, "start", started)
    with Session(transport=transport, **SETTINGS) as session:
        df = session.createDataFrame(_table()).withColumn("c", F.col("a") / F.col("b"))
        assert session.createDataFrame(_table()).filter(~F.col("b").eqNullSafe(0)).count() == ROWS - 1  # warm
        threads = _threads()
        segments = _segments()
        took = []
        for _ in range(3):
            started = time.perf_counter()
            with pytest.raises(QueryError) as caught:
                df.toArrow()
            took.append(time.perf_counter() - started)
            assert not _status_threads()
        assert statistics.median(took) < BOUND, took
        error = caught.value
        assert error.error_class == error.getCondition() == "DIVIDE_BY_ZERO"
        assert "[DIVIDE_BY_ZERO] Division by zero. Use `try_divide`" in str(error)
        # Nothing grows with the failed queries: threads, segments (arenas are reused).
        assert wait_until(lambda: _threads() <= threads, 5), _threads() - threads
        assert wait_until(lambda: _segments() <= segments, 5), _segments() - segments
        # Every worker dropped the failed queries: no task of theirs runs, no partition stays.
        failed = queries[1:]
        assert len(failed) == 3
        for address in session.cluster.addresses:
            for query_id in failed:
                with pytest.raises(QueryCancelled):
                    session.cluster.client(address).read(PartitionKey(query_id, 1, 1, 0), 5.0)
        for worker in getattr(session.cluster, "workers", []):  # in-process: look inside
            assert not worker._running and worker.store.partitions_held() == 0
            # the other two tasks were stopped, not run to their end
            assert not [c for c in worker.completed if c["query_id"] in failed and c["stage"] == 1]
        assert session.cluster.driver.store.partitions_held() == 0


def test_a_producer_s_error_reaches_the_caller_unchanged_through_a_shuffle() -> None:
    """The consumer of a failed producer passes its ``QueryError`` on as it is, naming the
    producer's stage and task; a consumer that merely lost its input is a plain
    ``TaskFailed`` (a lost worker may be why; the coordinator looks)."""
    table = pa.table({"k": pa.array([1, 2, None, 2] * 50, pa.int64()),
                      "s": pa.array(["1", "2", "x", None] * 50)})
    with Session(workers=3) as session:
        df = session.createDataFrame(table).withColumn("i", F.col("s").cast("int")) \
            .groupBy("k").agg(F.sum("i").alias("t"))
        started = time.perf_counter()
        with pytest.raises(QueryError, match=r"stage 1, task \d+: \[CAST_INVALID_INPUT\] The value 'x'") as caught:
            df.toArrow()
        assert time.perf_counter() - started < BOUND * 2
        assert caught.value.error_class == "CAST_INVALID_INPUT"
        assert not issubclass(TaskFailed, QueryError)
