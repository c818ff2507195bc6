"""The transport contract, failure path: errors, cancellation, lost workers, close, malformed requests.

Every test here talks to a ``CommandService`` (``remote_service.py``) through
``TransportClient`` alone: it delivers test commands as task plans and reads partitions, so
the same test runs with the worker in this process (``local``) and in a child process
(``remote``, for transports whose ``capabilities.crosses_processes``). What the producer side
did is observed through the service's ``report`` command, never by reaching into it.
"""

from __future__ import annotations

import threading
import time

import pyarrow as pa
import pytest

from tests.transport.client_api import check_batches, drain, finished_within, fresh_query, key, produce, raised_within
from tests.transport.conftest import wait_until
from tests.transport.remote_service import CommandService, Produce, command, expected_batch
from sparkwire.transport.base import PartitionKey
from sparkwire.transport.errors import (
    ConnectionLost,
    PartitionNotFound,
    PlanRejected,
    ProtocolError,
    QueryCancelled,
    SparkwireError,
    TaskFailed,
    Timeout,
)
from sparkwire.transport.registry import create_transport
from tests.credentials import SECURITY


# -- waiting, errors, cancellation -------------------------------------------------------


def test_missing_partition_is_not_found_within_the_timeout(worker):
    started = time.monotonic()
    with pytest.raises(PartitionNotFound):
        worker.client.read(PartitionKey(fresh_query(), 9, 9, 0), timeout=0.5)
    assert 0.4 <= time.monotonic() - started < 5
    spec = produce(worker, query=fresh_query(), partitions=2, batches=1)
    started = time.monotonic()
    with pytest.raises(PartitionNotFound):  # the task exists and has no such partition
        worker.client.read(key(spec, 5), timeout=10)
    assert time.monotonic() - started < 5


def test_partition_delivered_later_is_waited_for(worker):
    spec = Produce(query=fresh_query(), batches=2, rows=3)
    timer = threading.Timer(0.3, worker.client.deliver, args=(command(produce=spec.model_dump()),))
    timer.start()
    try:
        with worker.client.read(key(spec), 10) as reader:
            assert check_batches(reader, spec) == 2
    finally:
        timer.cancel()
        timer.join(10)


@pytest.mark.parametrize(("code", "error"), [
    ("task_failed", TaskFailed),
    ("partition_not_found", PartitionNotFound),
    ("cancelled", QueryCancelled),
    ("plan_rejected", PlanRejected),
    ("timeout", Timeout),
    ("key_error", TaskFailed),  # a bug in the worker still reaches the reader as ours
])
def test_worker_error_reaches_reader_with_its_message(worker, code, error):
    query = fresh_query()
    message = f"worker w1, stage 2, task 3: division by zero ({code}, é)"
    worker.client.deliver(command(fail_open={"query": query, "error": code, "message": message}))
    with pytest.raises(error) as info:
        worker.client.read(PartitionKey(query, 0, 0, 0), 5)
    assert type(info.value) is error
    assert message in str(info.value)
    if code == "key_error":
        assert "KeyError" in str(info.value)


@pytest.mark.parametrize("lazy", [False, True], ids=["stored", "generated"])
def test_failure_mid_stream_raises_not_truncates(worker, lazy):
    spec = produce(worker, query=fresh_query(), batches=10, rows=10, delay=0.05, fail_after=3, lazy=lazy)
    reader = worker.client.read(key(spec), 10)
    got: list[pa.RecordBatch] = []

    def read_all() -> None:
        while (batch := reader.read_next_batch()) is not None:
            got.append(batch)

    exc = raised_within(15, read_all)
    assert type(exc) is TaskFailed and spec.failure_message in str(exc)
    assert len(got) <= 3 and all(b.equals(expected_batch(spec, 0, i)) for i, b in enumerate(got))
    if lazy:  # nothing stands between the producer and the reader: all 3 arrive first
        assert len(got) == 3


def test_cancel_wakes_a_waiting_reader(worker):
    spec = produce(worker, query=fresh_query(), batches=1000, rows=10, delay=0.05)
    reader = worker.client.read(key(spec), 10)
    assert reader.read_next_batch() is not None
    timer = threading.Timer(0.2, worker.client.cancel, args=(spec.query,))
    timer.start()
    try:
        exc = raised_within(10, lambda: drain(reader))
    finally:
        timer.join(10)
    assert type(exc) is QueryCancelled
    with pytest.raises(QueryCancelled):  # a cancelled query's partitions are gone for good
        worker.client.read(key(spec), 5)


def test_killed_worker_mid_stream_is_an_error_not_a_hang(remote_worker):
    client, process = remote_worker
    spec = produce(remote_worker, query=fresh_query(), batches=100_000, rows=10, delay=0.02)
    reader = client.read(key(spec), 10)
    read: list[int] = []
    outcome: dict[str, BaseException | None] = {}

    def consume() -> None:
        try:
            while (batch := reader.read_next_batch()) is not None:
                read.append(batch.num_rows)
            outcome["error"] = None  # an end of stream: the stream was truncated silently
        except BaseException as exc:  # noqa: BLE001 - checked below
            outcome["error"] = exc

    thread = threading.Thread(target=consume, daemon=True)
    thread.start()
    assert wait_until(lambda: len(read) >= 3, 10), "no batches before the kill"
    process.kill()
    killed = time.monotonic()
    thread.join(30)
    elapsed = time.monotonic() - killed
    assert not thread.is_alive(), "reader still waiting 30s after its worker was killed"
    assert isinstance(outcome["error"], ConnectionLost | Timeout), \
        f"reader got {outcome['error']!r} after {elapsed:.1f}s"
    # New calls fail too, promptly.
    exc = raised_within(30, lambda: client.read(PartitionKey(fresh_query(), 0, 0, 0), 5))
    assert isinstance(exc, ConnectionLost | Timeout), repr(exc)
    exc = raised_within(30, lambda: client.deliver(command(report={"query": fresh_query()})))
    assert isinstance(exc, ConnectionLost | Timeout), repr(exc)


def test_closed_worker_process_answers_connection_lost(remote_worker):
    client, process = remote_worker
    spec = produce(remote_worker, query=fresh_query(), batches=1)
    assert check_batches(client.read(key(spec), 10), spec) == 1
    process.stdin.close()  # the lifeline: the service closes its server and exits
    assert process.wait(15) == 0
    exc = raised_within(15, lambda: client.read(key(spec), 1))
    assert type(exc) is ConnectionLost, repr(exc)
    exc = raised_within(15, lambda: client.deliver(command(report={"query": fresh_query()})))
    assert type(exc) is ConnectionLost, repr(exc)


# -- close, malformed requests -----------------------------------------------------------


def test_double_close_of_readers_and_clients(worker):
    spec = produce(worker, query=fresh_query(), batches=5, rows=10)
    reader = worker.client.read(key(spec), 10)
    assert reader.read_next_batch() is not None
    reader.close()
    reader.close()
    assert reader.closed and reader.read_next_batch() is None
    finished = worker.client.read(key(spec), 10)
    assert check_batches(finished, spec) == 5
    finished.close()  # already closed at the end of the stream
    worker.client.close()
    worker.client.close()
    with pytest.raises(ConnectionLost):
        worker.client.read(key(spec), 1)


def test_double_close_of_servers_and_transports(transport, tmp_path):
    service = CommandService(tmp_path)
    try:
        own = create_transport(transport.name, security=SECURITY)
        server = own.serve(service)
        client = own.connect(server.address)
        client.deliver(command(produce={"query": "q", "batches": 2}))
        reader = client.read(PartitionKey("q", 0, 0, 0), 10)
        assert reader.read_next_batch() is not None
        server.close()
        server.close()
        own.close()  # stops its servers and clients, the open reader's stream included
        own.close()
        with pytest.raises(ConnectionLost):
            client.read(PartitionKey("q", 0, 0, 0), 1)
        # The open stream either ends with an error or, if its data was still reachable,
        # delivers all of it; it never ends short and never hangs.
        outcome = finished_within(15, lambda: drain(reader))
        assert isinstance(outcome, SparkwireError) or outcome == 1, repr(outcome)
        reader.close()
        reader.close()
        client.close()
    finally:
        service.close()


def _forged_key(query_id: str) -> PartitionKey:
    """A key that skipped validation, as a peer that does not use ``PartitionKey`` sends."""
    forged = object.__new__(PartitionKey)
    for name, value in (("query_id", query_id), ("stage", 0), ("task", 0), ("partition", 0),
                        ("attempt", 0)):
        object.__setattr__(forged, name, value)
    return forged


def test_malformed_requests_are_answered_and_the_worker_keeps_serving(worker):
    client = worker.client
    for plan in (b"\x80 not json", b"", b"{", b'{"produce": {"query": "q", "batches": "many"}}',
                 b'{"rm": "-rf /"}', b'{"produce": {"query": "../etc", "batches": 1}}',
                 b"[" * 10_000 + b"]" * 10_000):
        with pytest.raises(PlanRejected):
            client.deliver(plan)
    # Keys no valid PartitionKey can name, and numbers out of any sane range: a library
    # error within a bounded time, whichever side notices.
    for bad in (_forged_key("a/b"), _forged_key(""), _forged_key("x" * 100_000),
                _forged_key("é\n\x00"), PartitionKey("q", 2**70, 0, 0), PartitionKey("q", -1, -1, -1)):
        exc = raised_within(10, lambda bad=bad: client.read(bad, 0.2))
        assert isinstance(exc, ProtocolError | PartitionNotFound), repr(exc)
    exc = raised_within(10, lambda: client.read(PartitionKey(fresh_query(), 0, 0, 0), -1.0))
    assert isinstance(exc, ProtocolError | PartitionNotFound), repr(exc)
    # Cancelling an id nobody could have is a no-op or a protocol error, never anything else.
    try:
        client.cancel("../../etc/passwd")
    except ProtocolError:
        pass
    spec = produce(worker, query=fresh_query(), batches=3, rows=4)
    assert check_batches(client.read(key(spec), 10), spec) == 3
    if worker.process is not None:
        assert worker.process.poll() is None
