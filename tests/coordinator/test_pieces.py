"""A task's output gathered before it is cut into partitions (``worker.pieces``): a shuffle of
many small batches writes fewer, larger pieces with the same answers; what is gathered counts
in the store's budget, and a cancel or a failure leaves none of it behind."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.worker.compile import PARTITION_COLUMN
from sparkwire.coordinator.worker.pieces import Pieces, PieceTarget
from sparkwire.coordinator.worker.store import PARTITION_BYTES, PartitionStore
from sparkwire.planner.api import functions as F
from sparkwire.transport.base import PartitionKey
from sparkwire.transport.errors import QueryCancelled
from tests.e2e.conftest import canonical, oracle

ROWS = 200_000
GROUPS = 1 << 15
BATCH_ROWS = 1024


def table() -> pa.Table:
    i = pa.array(range(ROWS), pa.int64())
    return pa.table({"k": pc.bit_wise_and(i, GROUPS - 1), "v": pc.multiply(i, 3)})


def shuffled(piece_bytes: int) -> tuple[pa.Table, int, int]:
    """A grouped sum whose partial aggregates (up to ``GROUPS`` rows a task, in batches of
    ``BATCH_ROWS``) are shuffled into a partition per core: the answer, the shuffle's
    batches and rows."""
    with Session(workers=2, worker={"piece_bytes": piece_bytes,
                                    "engine": {"batch_rows": BATCH_ROWS}}) as session:
        df = session.createDataFrame(table()).groupBy("k").agg(
            F.sum("v").alias("s"), F.count("*").alias("n"))
        got = df.toArrow()
        shuffles = [s for s in session.last_metrics.stages.values() if s.boundary == "shuffle"]
    assert len(shuffles) == 1
    return got, shuffles[0].batches, shuffles[0].rows


def test_a_shuffle_of_many_small_batches_writes_fewer_larger_pieces_with_the_same_answer() -> None:
    expected = oracle(table(), "SELECT k, sum(v) AS s, count(*) AS n FROM t GROUP BY k")
    cut, cut_pieces, cut_rows = shuffled(piece_bytes=0)
    gathered, pieces, rows = shuffled(piece_bytes=1 << 20)
    assert canonical(cut) == canonical(expected) == canonical(gathered)
    assert rows == cut_rows
    # Cut at once, each batch of BATCH_ROWS made a piece per partition (4 partitions: 2
    # workers of 2 cores); gathered, a piece is about BATCH_ROWS rows.
    assert cut_rows / cut_pieces < BATCH_ROWS / 2
    assert rows / pieces > BATCH_ROWS / 2 and pieces * 3 < cut_pieces


def test_a_shuffle_into_one_partition_runs_as_a_coalesce_with_the_same_answer() -> None:
    expected = oracle(table(), "SELECT k, sum(v) AS s FROM t GROUP BY k")
    with Session(workers=2) as session:
        df = session.createDataFrame(table()).repartition(1, "k").groupBy("k").agg(
            F.sum("v").alias("s"))
        got = df.toArrow()
        boundaries = [s.boundary for s in session.last_metrics.stages.values()]
    assert canonical(got) == canonical(expected)
    assert "shuffle" not in boundaries and boundaries.count("coalesce") == 2  # chunks, the one


def partitioned(start: int, rows: int, partitions: int) -> pa.RecordBatch:
    """A batch as a shuffle task's query hands it over: its partition column included."""
    values = pa.array(range(start, start + rows), pa.int64())
    return pa.record_batch({"a": values, PARTITION_COLUMN: pc.bit_wise_and(values, partitions - 1)})


def test_the_gathered_bytes_count_in_the_store_and_go_with_the_task(tmp_path) -> None:
    one = partitioned(0, 1000, 4).nbytes
    store = PartitionStore(memory_budget=5 * one // 2 + 4 * PARTITION_BYTES, spill_dir=tmp_path,
                           idle_timeout=5)
    output = store.create("q", 0, 0, [0, 1, 2, 3])
    base = store.memory_bytes  # the four partitions' bookkeeping
    assert base == 4 * PARTITION_BYTES
    output.start(pa.schema([("a", pa.int64())]))
    target = PieceTarget(piece_bytes=1 << 20, piece_rows=1 << 20, most=1 << 30)
    with Pieces(output, 4, target) as pieces:
        pieces.write(partitioned(0, 1000, 4))
        pieces.write(partitioned(1000, 1000, 4))
        assert store.memory_bytes - base == 2 * one and pieces.batches == 0  # gathered, counted
        pieces.write(partitioned(2000, 1000, 4))  # no room left: the three cut and written
        assert pieces.batches == 4 and pieces.rows == 3000
        assert store.memory_bytes - base == pieces.bytes
        pieces.write(partitioned(3000, 1000, 4))  # gathered again
        assert store.memory_bytes - base == pieces.bytes + one
    # Left without a flush (the task failed): what it had gathered is let go, not written.
    assert store.memory_bytes - base == pieces.bytes and pieces.rows == 3000
    output.finish()
    for p in range(4):
        got = store.open(PartitionKey("q", 0, 0, p), 1).read_all()
        assert got.column("a").to_pylist() == [v for v in range(3000) if v % 4 == p]
    store.drop_query("q")
    assert store.memory_bytes == 0 and not any(tmp_path.iterdir())


def test_a_task_gathers_at_most_its_share(tmp_path) -> None:
    one = partitioned(0, 1000, 4).nbytes
    store = PartitionStore(memory_budget=1 << 30, spill_dir=tmp_path, idle_timeout=5)
    output = store.create("q", 0, 0, [0, 1, 2, 3])
    output.start(pa.schema([("a", pa.int64())]))
    target = PieceTarget(piece_bytes=1 << 20, piece_rows=1 << 20, most=5 * one // 2)
    with Pieces(output, 4, target) as pieces:
        for start in range(0, 6000, 1000):
            pieces.write(partitioned(start, 1000, 4))
            assert store.memory_bytes - pieces.bytes <= 5 * one // 2
        assert pieces.batches == 8  # two gathers of three batches each
    store.drop_query("q")


def test_a_query_dropped_while_its_task_gathers_frees_what_it_gathered(tmp_path) -> None:
    store = PartitionStore(memory_budget=1 << 30, spill_dir=tmp_path, idle_timeout=5)
    output = store.create("q", 0, 0, [0, 1])
    output.start(pa.schema([("a", pa.int64())]))
    target = PieceTarget(piece_bytes=1 << 20, piece_rows=1 << 20, most=1 << 30)
    with Pieces(output, 2, target) as pieces:
        pieces.write(partitioned(0, 1000, 2))
        assert store.memory_bytes > 0
        store.drop_query("q")  # a cancel
        assert store.memory_bytes == 0
        with pytest.raises(QueryCancelled):
            pieces.write(partitioned(1000, 1000, 2))
    assert store.memory_bytes == 0 and store.partitions_held() == 0


def batches_of(df: object) -> Iterator[pa.RecordBatch]:
    return df.toBatches()  # type: ignore[attr-defined, no-any-return]


def test_cancelling_a_shuffle_mid_task_leaves_nothing_in_any_store() -> None:
    """The consumers of a shuffle stream its pieces while the producers still gather; closing
    the result after its first batch cancels producers holding gathered batches."""
    rows = 4_000_000
    i = pa.array(range(rows), pa.int64())
    data = pa.table({"k": i, "v": pc.multiply(i, 3)})
    with Session(workers=2, local_chunk_rows=rows // 4,
                 worker={"engine": {"batch_rows": 2048}}) as session:
        df = session.createDataFrame(data).repartition(4, "k").withColumn("w", F.col("v") + 1)
        assert any(s.output.kind == "shuffle" for s in df.staged_plan().stages)
        batches = batches_of(df)
        assert next(batches).num_rows > 0
        batches.close()  # type: ignore[attr-defined]
        workers = [*session.cluster.workers, session.cluster.driver]
        deadline = time.monotonic() + 10
        while any(w._running for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        for worker in workers:
            assert not worker._running
            assert worker.store.partitions_held() == 0
            assert worker.store.memory_bytes == 0
            assert not any(worker.store.spill_dir.iterdir())
