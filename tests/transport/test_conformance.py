"""The transport contract (``transport/base.py``), checked on every registered transport.

These tests serve a ``StoreService`` in this process and write its store directly, for the
cases that need exact control of the producer's timing. ``test_conformance_streams.py`` and
``test_conformance_failures.py`` check the rest through the client API alone, with the
worker here and in another process.
"""

from __future__ import annotations

import threading
import time

import pyarrow as pa
import pytest

from tests.transport.remote_service import all_types_batch, large_flat_batch, large_plain_batch
from sparkwire.transport.base import PartitionKey
from sparkwire.transport.errors import (
    ConnectionLost,
    PartitionNotFound,
    PlanRejected,
    QueryCancelled,
    TaskFailed,
)

Q = "q1"


def test_batches_arrive_in_order_and_unchanged(served, service):
    _, client = served
    batches = [all_types_batch(i * 10) for i in range(4)]
    output = service.store.create(Q, 0, 0, [0])
    output.start(batches[0].schema)
    for batch in batches:
        output.write(0, batch)
    output.finish()
    with client.read(PartitionKey(Q, 0, 0, 0), timeout=5) as reader:
        got = list(reader)
    assert reader.schema.equals(batches[0].schema)
    assert [b.equals(e) for b, e in zip(got, batches, strict=True)] == [True] * 4



@pytest.mark.parametrize("make", [large_plain_batch, large_flat_batch], ids=["plain", "flat"])
def test_large_batches_and_their_slices_arrive_unchanged(served, service, make):
    """Megabyte batches of every plain type, whole and sliced (a slice's buffers hold more
    than its rows), and a tiny slice of one; flat ones alone too (zmq sends their buffers)."""
    _, client = served
    big = make()
    batches = [big, big.slice(7, 60_000), big.slice(50_000, 3)]
    output = service.store.create(Q, 0, 0, [0])
    output.start(big.schema)
    for batch in batches:
        output.write(0, batch)
    output.finish()
    got = client.read(PartitionKey(Q, 0, 0, 0), timeout=5).read_all()
    assert got.equals(pa.Table.from_batches(batches))  # flight may cut batches to its messages

def test_empty_batches_and_empty_partition(served, service):
    _, client = served
    schema = pa.schema([("a", pa.int64())])
    output = service.store.create(Q, 0, 0, [0, 1])
    output.start(schema)
    output.write(0, pa.record_batch({"a": pa.array([], pa.int64())}))
    output.finish()
    assert [b.num_rows for b in client.read(PartitionKey(Q, 0, 0, 0), 5)] == [0]
    empty = client.read(PartitionKey(Q, 0, 0, 1), 5)
    assert empty.schema.equals(schema)
    assert empty.read_all().num_rows == 0


def test_plan_bytes_delivered_unchanged_and_invalid_plan_refused(served, service):
    _, client = served
    plan = b'{"version": 1, "x": "\xc3\xa9"}'
    client.deliver(plan)
    assert service.plans == [plan]
    with pytest.raises(PlanRejected, match="not valid JSON"):
        client.deliver(b"\x80garbage")


def test_partition_that_never_appears_times_out(served):
    _, client = served
    started = time.monotonic()
    with pytest.raises(PartitionNotFound):
        client.read(PartitionKey(Q, 9, 9, 0), timeout=0.3)
    assert time.monotonic() - started < 3


def test_partition_that_appears_later_is_waited_for(served, service):
    _, client = served

    def produce() -> None:
        time.sleep(0.2)
        output = service.store.create(Q, 1, 0, [0])
        output.start(pa.schema([("a", pa.int64())]))
        output.write(0, pa.record_batch({"a": [7]}))
        output.finish()

    threading.Thread(target=produce).start()
    table = client.read(PartitionKey(Q, 1, 0, 0), timeout=5).read_all()
    assert table.column("a").to_pylist() == [7]


def test_service_error_reaches_reader_with_message(served, service):
    _, client = served
    service.open_error = TaskFailed("worker w1, stage 2, task 3: division by zero")
    with pytest.raises(TaskFailed, match="division by zero"):
        client.read(PartitionKey(Q, 0, 0, 0), 5)
    service.open_error = KeyError("bug")
    with pytest.raises(TaskFailed, match="KeyError"):
        client.read(PartitionKey(Q, 0, 0, 0), 5)


def test_producer_failure_mid_stream_raises_not_truncates(served, service):
    _, client = served
    output = service.store.create(Q, 0, 0, [0])
    output.start(pa.schema([("a", pa.int64())]))
    output.write(0, pa.record_batch({"a": [1]}))
    reader = client.read(PartitionKey(Q, 0, 0, 0), 5)
    assert reader.read_next_batch() is not None
    output.fail(TaskFailed("disk on fire"))
    with pytest.raises(TaskFailed, match="disk on fire"):
        reader.read_next_batch()


def test_cancel_wakes_waiting_reader(served, service):
    _, client = served
    output = service.store.create(Q, 0, 0, [0])
    output.start(pa.schema([("a", pa.int64())]))
    reader = client.read(PartitionKey(Q, 0, 0, 0), 5)
    threading.Timer(0.2, client.cancel, args=(Q,)).start()
    started = time.monotonic()
    with pytest.raises(QueryCancelled):
        reader.read_next_batch()
    assert time.monotonic() - started < 3
    assert service.cancelled == [Q]


def test_early_close_and_double_close(served, service):
    server, client = served
    output = service.store.create(Q, 0, 0, [0])
    output.start(pa.schema([("a", pa.int64())]))
    for i in range(10):
        output.write(0, pa.record_batch({"a": [i]}))
    output.finish()
    reader = client.read(PartitionKey(Q, 0, 0, 0), 5)
    assert reader.read_next_batch() is not None
    reader.close()
    reader.close()
    assert reader.closed and reader.read_next_batch() is None
    client.close()
    client.close()
    server.close()
    server.close()


def test_closed_server_answers_connection_lost(transport, service):
    server = transport.serve(service)
    client = transport.connect(server.address)
    server.close()
    with pytest.raises(ConnectionLost):
        client.read(PartitionKey(Q, 0, 0, 0), 0.5)


def test_concurrent_readers(served, service):
    _, client = served
    output = service.store.create(Q, 0, 0, list(range(32)))
    output.start(pa.schema([("a", pa.int64())]))
    results: dict[int, list[int]] = {}

    def read(p: int) -> None:
        results[p] = client.read(PartitionKey(Q, 0, 0, p), 5).read_all().column("a").to_pylist()

    threads = [threading.Thread(target=read, args=(p,)) for p in range(32)]
    for t in threads:
        t.start()
    for i in range(100):
        output.write(i % 32, pa.record_batch({"a": [i]}))
    output.finish()
    for t in threads:
        t.join(10)
    assert results == {p: list(range(p, 100, 32)) for p in range(32)}


def test_zero_copy_transport_hands_over_producer_buffers(transport, served, service):
    if not transport.capabilities.zero_copy:
        pytest.skip(f"{transport.name} does not claim zero copy")
    _, client = served
    batch = pa.record_batch({"a": pa.array(range(1000), pa.int64()), "s": ["x"] * 1000})
    output = service.store.create(Q, 0, 0, [0])
    output.start(batch.schema)
    output.write(0, batch)
    output.finish()
    (got,) = list(client.read(PartitionKey(Q, 0, 0, 0), 5))
    addresses = lambda b: [buf.address for col in b.columns for buf in col.buffers() if buf]  # noqa: E731
    assert addresses(got) == addresses(batch)
