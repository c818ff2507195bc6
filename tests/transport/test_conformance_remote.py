"""The transport contract through a worker driven only by the client API, near and far.

Every test here talks to a ``CommandService`` (``remote_service.py``) through
``TransportClient`` alone: it delivers test commands as task plans and reads partitions, so
the same test runs with the worker in this process (``local``) and in a child process
(``remote``, for transports whose ``capabilities.crosses_processes``). What the producer side
did is observed through the service's ``report`` command, never by reaching into it.
"""

from __future__ import annotations

import gc
import itertools
import json
import resource
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest

from tests.transport.conftest import Worker, wait_until
from tests.transport.remote_service import (
    CommandService,
    Produce,
    all_types_batch,
    command,
    expected_batch,
)
from transport.base import PartitionKey
from transport.errors import (
    ConnectionLost,
    PartitionNotFound,
    PlanRejected,
    ProtocolError,
    QueryCancelled,
    SparkwireError,
    TaskFailed,
    Timeout,
)
from transport.registry import create_transport
from transport.stream import PartitionReader

MiB = 1 << 20
_ids = itertools.count()


def fresh_query() -> str:
    return f"q{next(_ids)}"


def produce(worker: Worker, **fields: Any) -> Produce:
    spec = Produce(**fields)
    worker.client.deliver(command(produce=spec.model_dump()))
    return spec


def key(spec: Produce, partition: int = 0) -> PartitionKey:
    return PartitionKey(spec.query, spec.stage, spec.task, partition)


def report(worker: Worker) -> dict[str, dict[str, int]]:
    """What every reader of the service did so far, by partition key."""
    query = fresh_query()
    worker.client.deliver(command(report={"query": query}))
    rows = worker.client.read(PartitionKey(query, 0, 0, 0), 10).read_all().to_pylist()
    return {row.pop("key"): row for row in rows}


def usage(worker: Worker, partition: PartitionKey) -> dict[str, int]:
    return report(worker).get(str(partition), {"opened": 0, "pulled": 0, "released": 0})


def check_batches(reader: PartitionReader, spec: Produce, partition: int = 0) -> int:
    """Read to the end, checking every batch against the producer's; the batch count."""
    assert reader.schema.equals(spec.schema)
    count = 0
    for count, batch in enumerate(reader, 1):
        assert batch.equals(expected_batch(spec, partition, count - 1)), f"batch {count - 1} differs"
    return count


def finished_within(seconds: float, call: Callable[[], object]) -> object:
    """What ``call`` returned or raised within ``seconds`` on a thread (fails if neither)."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert outcome, f"no answer within {seconds:g}s"
    return outcome[0]


def raised_within(seconds: float, call: Callable[[], object]) -> BaseException:
    """The exception ``call`` raised within ``seconds`` on a thread (fails if none)."""
    outcome = finished_within(seconds, call)
    assert isinstance(outcome, BaseException), f"expected an error, got {outcome!r}"
    return outcome


def drain(reader: PartitionReader) -> int:
    """Read until the end or an error; the number of batches read before it."""
    count = 0
    while reader.read_next_batch() is not None:
        count += 1
    return count


# -- fidelity ----------------------------------------------------------------------------


def test_all_types_arrive_unchanged(worker):
    query = fresh_query()
    worker.client.deliver(command(all_types={"query": query, "batches": 4}))
    with worker.client.read(PartitionKey(query, 0, 0, 0), 10) as reader:
        got = list(reader)
    assert reader.schema.equals(all_types_batch().schema)
    assert len(got) == 4
    for i, batch in enumerate(got):
        expected = all_types_batch(i)
        differing = [name for name in expected.schema.names
                     if not batch.column(name).equals(expected.column(name))]
        assert batch.schema.equals(expected.schema) and not differing, f"batch {i}: {differing}"


def test_plan_bytes_arrive_unchanged(worker):
    query = fresh_query()
    plan = json.dumps({"echo": {"query": query, "note": "é ☃ \u0000 \"quoted\" " + "x" * 5000}},
                      ensure_ascii=False).encode()
    worker.client.deliver(plan)
    table = worker.client.read(PartitionKey(query, 0, 0, 0), 10).read_all()
    assert table.column("plan").to_pylist() == [plan]


def test_empty_batches_and_empty_partitions(worker):
    empty_batches = produce(worker, query=fresh_query(), batches=3, rows=0, columns=2)
    no_batches = produce(worker, query=empty_batches.query, task=1, partitions=2, batches=0)
    with worker.client.read(key(empty_batches), 10) as reader:
        assert reader.schema.equals(empty_batches.schema)
        assert [b.num_rows for b in reader] == [0, 0, 0]
    for partition in (0, 1):
        reader = worker.client.read(key(no_batches, partition), 10)
        assert reader.schema.equals(no_batches.schema)
        assert reader.read_next_batch() is None
        assert reader.read_all().num_rows == 0


@pytest.mark.slow
def test_hundred_thousand_single_row_batches_arrive_in_order(far_worker, record_property):
    # Written before the read starts, so that the time is the transport's: a producer thread
    # and a reader handing 100k tiny batches over one by one measure the GIL.
    spec = produce(far_worker, query=fresh_query(), batches=100_000, rows=1, wait=True)
    started = time.monotonic()
    with far_worker.client.read(key(spec), 30) as reader:
        batches = [(batch.num_rows, batch.column(0)[0].as_py()) for batch in reader]
    seconds = time.monotonic() - started
    record_property("seconds", round(seconds, 2))
    assert batches == [(1, i) for i in range(100_000)]
    assert seconds < 90, f"100k single-row batches took {seconds:.1f}s"


def _resident_bytes() -> int:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * resource.getpagesize()
    except OSError:  # not Linux: the peak is the best we have
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


@pytest.mark.slow
def test_large_partition_streams_with_bounded_reader_memory(far_worker, record_property):
    # 512 batches of 1 MiB, generated as they are pulled: nothing anywhere need hold them all.
    spec = produce(far_worker, query=fresh_query(), batches=512, rows=MiB // 8, lazy=True)
    gc.collect()
    base_rss, base_arrow = _resident_bytes(), pa.total_allocated_bytes()
    peak_rss = peak_arrow = total = count = 0
    started = time.monotonic()
    with far_worker.client.read(key(spec), 30) as reader:
        while (batch := reader.read_next_batch()) is not None:
            first = (count * spec.rows) * spec.partitions
            assert batch.num_rows == spec.rows and batch.column(0)[0].as_py() == first
            if count % 64 == 0:
                assert batch.equals(expected_batch(spec, 0, count))
            total += batch.nbytes
            count += 1
            del batch
            time.sleep(0.003)  # a reader slower than its producer: only flow control bounds it
            peak_arrow = max(peak_arrow, pa.total_allocated_bytes() - base_arrow)
            peak_rss = max(peak_rss, _resident_bytes() - base_rss)
    seconds = time.monotonic() - started
    record_property("seconds", round(seconds, 2))
    record_property("peak_rss_growth_mib", peak_rss // MiB)
    assert (count, total) == (512, 512 * MiB)
    assert peak_arrow < 256 * MiB, f"Arrow allocations grew by {peak_arrow // MiB} MiB"
    assert peak_rss < 256 * MiB, f"reader RSS grew by {peak_rss // MiB} MiB"


# -- concurrency and flow control --------------------------------------------------------


def test_32_concurrent_readers(worker):
    spec = produce(worker, query=fresh_query(), partitions=32, batches=20, rows=100, delay=0.01)
    counts: dict[int, int] = {}
    errors: list[BaseException] = []

    def read(p: int) -> None:
        try:
            with worker.client.read(key(spec, p), 30) as reader:
                counts[p] = check_batches(reader, spec, p)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=read, args=(p,), daemon=True) for p in range(32)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 60
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in threads), "readers still running after 60s"
    assert not errors, errors[0]
    assert counts == {p: 20 for p in range(32)}


def test_early_close_releases_the_producer(worker):
    endless = produce(worker, query=fresh_query(), batches=10**6, rows=1024, lazy=True)
    reader = worker.client.read(key(endless), 10)
    for i in range(3):
        assert reader.read_next_batch().equals(expected_batch(endless, 0, i))
    reader.close()
    assert wait_until(lambda: usage(worker, key(endless))["released"] == 1, 10), \
        f"producer not released after close: {usage(worker, key(endless))}"
    pulled = usage(worker, key(endless))["pulled"]
    time.sleep(0.3)
    assert usage(worker, key(endless))["pulled"] == pulled, "producer still pulled after release"
    # The worker still serves, and the partition can be read again from the start.
    with worker.client.read(key(endless), 10) as again:
        assert again.read_next_batch().equals(expected_batch(endless, 0, 0))


def test_read_ahead_is_bounded(worker, transport, record_property):
    batch_bytes = MiB
    spec = produce(worker, query=fresh_query(), batches=4096, rows=batch_bytes // 8, lazy=True)
    with worker.client.read(key(spec), 10) as reader:
        for _ in range(2):
            assert reader.read_next_batch() is not None
        time.sleep(1.0)  # an unbounded transport pulls hundreds of MiB meanwhile
        pulled = usage(worker, key(spec))["pulled"]
    limit = transport.capabilities.max_inflight_bytes
    ahead = (pulled - 2) * batch_bytes
    record_property("read_ahead_mib", ahead // MiB)
    if limit is None:  # no pipelining: a batch is produced when the reader asks for it
        assert pulled <= 3, f"{pulled} batches pulled for 2 read, without a declared window"
    else:  # the declared window, plus one batch being encoded and one being decoded
        assert ahead <= limit + 2 * batch_bytes, \
            f"{ahead // MiB} MiB read ahead, declared max_inflight_bytes {limit // MiB} MiB"


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
        own = create_transport(transport.name)
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
    for name, value in (("query_id", query_id), ("stage", 0), ("task", 0), ("partition", 0)):
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
