"""Closing a result stream early cancels every task of the query and frees its partitions."""

from __future__ import annotations

import time

import pyarrow as pa
import pyarrow.compute as pc

from sparkwire.coordinator import Session
from sparkwire.planner import functions as F

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
