"""``PartitionReader.close`` from another thread than the one reading: CPython 3.11 can
crash closing a generator another thread is running, so the reading thread closes it."""

from __future__ import annotations

import threading

import pyarrow as pa

from sparkwire.transport.stream import PartitionReader

SCHEMA = pa.schema([("a", pa.int64())])


class _Blocking:
    """Batches whose ``next`` waits for ``go``; records the threads that close it."""

    def __init__(self) -> None:
        self.entered, self.go = threading.Event(), threading.Event()
        self.closed_on: list[threading.Thread] = []

    def __iter__(self) -> _Blocking:
        return self

    def __next__(self) -> pa.RecordBatch:
        self.entered.set()
        assert self.go.wait(10)
        return pa.record_batch({"a": [1]}, schema=SCHEMA)

    def close(self) -> None:
        self.closed_on.append(threading.current_thread())


def test_a_close_during_a_read_leaves_the_iterator_to_the_reading_thread() -> None:
    batches, released = _Blocking(), threading.Event()
    reader = PartitionReader(SCHEMA, batches, released.set)
    got: list[pa.RecordBatch | None] = []
    reading = threading.Thread(target=lambda: got.append(reader.read_next_batch()))
    reading.start()
    assert batches.entered.wait(10)
    reader.close()
    assert released.is_set()  # the producer side is told at once
    assert batches.closed_on == []  # not closed under the running next()
    batches.go.set()
    reading.join(10)
    assert batches.closed_on == [reading]  # closed by the reader once its next() returned
    assert reader.read_next_batch() is None
    reader.close()
    assert batches.closed_on == [reading]


def test_a_close_between_reads_closes_the_iterator_at_once() -> None:
    batches = _Blocking()
    batches.go.set()
    reader = PartitionReader(SCHEMA, batches)
    assert reader.read_next_batch() is not None
    reader.close()
    assert batches.closed_on == [threading.current_thread()]
    assert reader.read_next_batch() is None
