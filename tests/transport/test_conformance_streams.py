"""The transport contract, data path: fidelity, volume, concurrency, flow control, waiting.

Every test here talks to a ``CommandService`` (``remote_service.py``) through
``TransportClient`` alone: it delivers test commands as task plans and reads partitions, so
the same test runs with the worker in this process (``local``) and in a child process
(``remote``, for transports whose ``capabilities.crosses_processes``). What the producer side
did is observed through the service's ``report`` command, never by reaching into it.
"""

from __future__ import annotations

import gc
import json
import resource
import sys
import threading
import time

import pyarrow as pa
import pytest

from tests.transport.client_api import MiB, check_batches, fresh_query, key, produce, usage
from tests.transport.conftest import wait_until
from tests.transport.remote_service import all_types_batch, command, expected_batch
from sparkwire.transport.base import PartitionKey


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


SINGLE_ROW_BATCHES = 25_000


@pytest.mark.slow
def test_many_single_row_batches_arrive_in_order(far_worker, record_property):
    # Written before the read starts, so that the time is the transport's: a producer thread
    # and a reader handing tiny batches over one by one measure the GIL. 25k batches span
    # many credit windows and wire frames as 100k did, at a quarter of the suite's time.
    spec = produce(far_worker, query=fresh_query(), batches=SINGLE_ROW_BATCHES, rows=1, wait=True)
    started = time.monotonic()
    with far_worker.client.read(key(spec), 30) as reader:
        batches = [(batch.num_rows, batch.column(0)[0].as_py()) for batch in reader]
    seconds = time.monotonic() - started
    record_property("seconds", round(seconds, 2))
    assert batches == [(1, i) for i in range(SINGLE_ROW_BATCHES)]
    assert seconds < 90, f"{SINGLE_ROW_BATCHES} single-row batches took {seconds:.1f}s"


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
