"""The partition store: bounded memory, spill to Arrow IPC, streaming while written, drop."""

from __future__ import annotations

import threading
import time

import pyarrow as pa
import pytest

from sparkwire.coordinator.worker.store import PARTITION_BYTES, PartitionStore
from sparkwire.transport.base import PartitionKey
from sparkwire.transport.errors import ConnectionLost, PartitionNotFound, QueryCancelled, SparkwireError, TaskFailed


def batch(start: int, n: int = 1000) -> pa.RecordBatch:
    return pa.record_batch({"a": pa.array(range(start, start + n), pa.int64()),
                            "s": pa.array([str(i) for i in range(start, start + n)]).dictionary_encode()})


def test_spills_beyond_budget_and_reads_back_in_order(tmp_path):
    one = batch(0).nbytes
    store = PartitionStore(memory_budget=3 * one, spill_dir=tmp_path, idle_timeout=5)
    output = store.create("q", 0, 0, [0])
    output.start(batch(0).schema)
    written = [batch(i * 1000) for i in range(10)]
    for b in written:
        output.write(0, b)
    output.finish()
    assert store.memory_bytes <= 3 * one
    assert store.spilled_bytes > 0
    # the task's own count (its status's spill_bytes) is the size of its spill file
    (spill_file,) = tmp_path.iterdir()
    assert output.spilled_bytes == spill_file.stat().st_size == store.spilled_bytes
    got = store.open(PartitionKey("q", 0, 0, 0), 1).read_all()
    assert got.equals(pa.Table.from_batches(written))
    store.drop_query("q")
    assert list(tmp_path.iterdir()) == []
    assert store.memory_bytes == 0


def test_reader_streams_while_producer_writes(tmp_path):
    store = PartitionStore(1 << 30, tmp_path, idle_timeout=5)
    output = store.create("q", 0, 0, [0])
    output.start(batch(0).schema)
    reader = store.open(PartitionKey("q", 0, 0, 0), 1)
    output.write(0, batch(0))
    assert reader.read_next_batch().num_rows == 1000  # before the producer finished
    threading.Timer(0.1, output.finish).start()
    assert reader.read_next_batch() is None


def test_drop_frees_and_fails_late_readers_fast(tmp_path):
    store = PartitionStore(1 << 30, tmp_path, idle_timeout=5)
    output = store.create("q", 0, 0, [0])
    output.start(batch(0).schema)
    output.write(0, batch(0))
    store.drop_query("q")
    assert store.memory_bytes == 0 and store.partitions_held() == 0
    with pytest.raises(QueryCancelled):
        store.open(PartitionKey("q", 0, 0, 0), 5)
    with pytest.raises(QueryCancelled):
        output.write(0, batch(0))
    with pytest.raises(PartitionNotFound):
        store.open(PartitionKey("other", 0, 0, 0), 0.1)


def test_a_failure_after_every_partition_finished_does_not_reach_readers(tmp_path):
    """Bookkeeping that fails after a task finished its output cannot make the output wrong;
    a failure before the end still reaches every reader."""
    store = PartitionStore(1 << 30, tmp_path, idle_timeout=5)
    done = store.create("q", 0, 0, [0])
    done.start(batch(0).schema)
    done.write(0, batch(0))
    done.finish()
    reader = store.open(PartitionKey("q", 0, 0, 0), 1)
    done.fail(TaskFailed("after the end"))
    assert reader.read_all().equals(pa.Table.from_batches([batch(0)]))

    partial = store.create("q", 0, 1, [0, 1])
    partial.start(batch(0).schema)
    partial.write(0, batch(0))
    partial.finish([0])
    partial.fail(TaskFailed("before the end"))
    with pytest.raises(TaskFailed, match="before the end"):
        store.open(PartitionKey("q", 0, 1, 1), 1).read_all()
    store.drop_query("q")


def test_close_wakes_an_open_waiting_for_a_task_that_never_came(tmp_path):
    """A reader waiting for a task not delivered yet must not outlive the store: a server's
    shutdown waits for its calls, and one left blocked crashed the interpreter at exit."""
    store = PartitionStore(1 << 20, tmp_path, idle_timeout=5)
    errors: list[BaseException] = []

    def wait() -> None:
        try:
            store.open(PartitionKey("never", 0, 0, 0), 60)
        except BaseException as exc:  # noqa: BLE001 - recorded for the assertion
            errors.append(exc)

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.1)
    started = time.monotonic()
    store.close()
    waiter.join(5)
    assert not waiter.is_alive() and time.monotonic() - started < 1
    assert len(errors) == 1 and isinstance(errors[0], ConnectionLost)
    with pytest.raises(ConnectionLost):
        store.create("later", 0, 0, [0])


def test_output_partitions_count_against_the_budget_before_any_row(tmp_path):
    """A task's partitions hold memory from the start, with the batches; a plan asking for
    more of them than half the budget is refused, naming the task, and what was counted goes
    with the query. Batches filling the store do not stop a task's partitions (they spill)."""
    store = PartitionStore(2000 * PARTITION_BYTES, tmp_path, idle_timeout=5)
    store.create("q", 1, 0, list(range(600)))
    assert store.memory_bytes == store.partition_bytes == 600 * PARTITION_BYTES
    with pytest.raises(SparkwireError, match=r"task 1/1 of query q would hold 600 output partitions"):
        store.create("q", 1, 1, list(range(600)))
    assert store.memory_bytes == 600 * PARTITION_BYTES and store.partitions_held() == 600
    store.drop_query("q")
    assert store.memory_bytes == store.partition_bytes == 0
    full = store.create("r", 1, 0, [0])
    full.start(pa.schema([("a", pa.int64())]))
    full.write(0, pa.record_batch({"a": pa.array(range(2000 * PARTITION_BYTES // 8 - 64), pa.int64())}))
    store.create("r", 1, 1, list(range(600)))  # a full store still takes them
    store.close()
