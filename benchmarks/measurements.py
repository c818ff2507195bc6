"""The five measurements taken of every transport, each returning its part of the result.

The reader is this process; the producer is a ``benchmarks.producer`` process serving a
``BenchService`` when ``capabilities.crosses_processes`` (``RemoteProducer``), else a service
in this process (``LocalProducer``). Partitions are filled by a validated JSON command sent
through ``deliver()`` (``fill``), so the transport under test carries the plan as well.

1. **one stream** (``single_stream``): one partition of ``SIZE`` (1 GiB, ``--quick`` 128 MiB)
   of 4 int64 columns in 8 MiB batches, opened and iterated; every batch is *touched* (see
   ``benchmarks.data.touch``). Best and median of ``REPEATS`` after a small warm-up; then,
   in one more read, the reader's peak RSS growth (``benchmarks.measure.PeakRss``).
2. **several streams** (``multi_stream``): ``STREAMS`` partitions read at once by as many
   threads, each with its own client.
3. **latency** (``latency``): ``deliver()`` of a tiny plan, and open + read of a 1-row
   partition; median and p99 in microseconds.
4. **per-batch overhead** (``per_batch``): a partition of many 1-row batches, iterated
   without touching; seconds / batches.
5. **shuffle** (``shuffle``): M producer processes x N consumer processes (4 x 4 on >= 4
   cores, 2 x 2 below: see ``Config.make``). Consumer j reads partition j from every
   producer at once (a thread per producer); ``SIZE`` bytes move in all. Aggregate GB/s =
   bytes / (last consumer end - first consumer start), on the shared monotonic clock. For
   transports that stay in one process: M services and N x M reader threads.
"""

from __future__ import annotations

import itertools
import json
import os
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.children import Child
from benchmarks.data import read_partition
from benchmarks.measure import (BATCH_BYTES, BATCH_ROWS, COLUMNS, READ_TIMEOUT, START_TIMEOUT,
                                STREAMS, Config, PeakRss, expect_rows, gbps, micros, run_threads,
                                summary)
from benchmarks.service import BenchService
from sparkwire.transport.base import PartitionKey, TransportClient, WorkerTransport

# -- producers and their partitions ---------------------------------------------------------

@dataclass(frozen=True)
class RemoteProducer:
    """A ``benchmarks.producer --role serve`` process, known by the address it announced."""

    address: str


class LocalProducer:
    """A ``BenchService`` in this process, served on the reader's own transport instance."""

    def __init__(self, transport: WorkerTransport, stack: ExitStack) -> None:
        self.service = BenchService(Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="sparkwire-bench-"))))
        stack.callback(self.service.close)
        server = transport.serve(self.service)
        stack.callback(server.close)
        self.address = server.address


_query_ids = itertools.count()


def query_id() -> str:
    """A fresh query id per round: a round never reads a partition another one left behind."""
    return f"bench{os.getpid()}-{next(_query_ids)}"


def fill(client: TransportClient, query: str, partitions: int, batches: int, *,
         rows: int = BATCH_ROWS, columns: int = COLUMNS, task: int = 0) -> None:
    """Have the producer behind ``client`` create ``partitions`` partitions of ``batches``."""
    client.deliver(json.dumps({"op": "fill", "query_id": query, "stage": 0, "task": task,
                               "partitions": partitions, "batches": batches, "rows": rows,
                               "columns": columns}).encode())


# -- the measurements -----------------------------------------------------------------------

def single_stream(cfg: Config, client: TransportClient, memory: bool = True) -> dict[str, Any]:
    """The timed reads, then (if ``memory``) one more for the reader's peak RSS: measuring
    it first gives freed memory back to the system (``PeakRss``), which a worker keeps for
    its next batches, and took 4.5 % off the timed rate of ``zmq`` (median of 12 pairs)."""
    count = cfg.size // BATCH_BYTES
    warm = query_id()
    fill(client, warm, 1, min(8, count))
    read_partition(client, PartitionKey(warm, 0, 0, 0), READ_TIMEOUT)
    client.cancel(warm)

    def read() -> float:
        query = query_id()
        fill(client, query, 1, count)
        started = time.perf_counter()
        nbytes, rows = read_partition(client, PartitionKey(query, 0, 0, 0), READ_TIMEOUT)
        elapsed = time.perf_counter() - started
        client.cancel(query)
        expect_rows(rows, count * BATCH_ROWS, "one stream")
        return gbps(nbytes, elapsed)

    rates = [read() for _ in range(cfg.repeats)]
    result: dict[str, Any] = {"single": {**summary(rates), "bytes": count * BATCH_BYTES}}
    if memory:
        with PeakRss() as rss:
            read()
        result.update(reader_peak_rss_mib=rss.delta_mib, rss_exact=rss.exact)
    return result


def multi_stream(cfg: Config, transport: WorkerTransport, client: TransportClient,
                 address: str) -> dict[str, Any]:
    per_stream = max(1, cfg.size // BATCH_BYTES // STREAMS)
    readers = [transport.connect(address) for _ in range(STREAMS)]
    try:
        rates = []
        for round_ in range(cfg.repeats + 1):
            query = query_id()
            batches = 1 if round_ == 0 else per_stream  # round 0 warms up every connection
            fill(client, query, STREAMS, batches)
            results, elapsed = run_threads(
                [lambda k=k: read_partition(readers[k], PartitionKey(query, 0, 0, k), READ_TIMEOUT)
                 for k in range(STREAMS)], READ_TIMEOUT * 2)
            client.cancel(query)
            expect_rows(sum(r[1] for r in results), STREAMS * batches * BATCH_ROWS, "streams")
            if round_:
                rates.append(gbps(sum(r[0] for r in results), elapsed))
    finally:
        for reader in readers:
            reader.close()
    return {"streams": {**summary(rates), "streams": STREAMS,
                        "bytes": STREAMS * per_stream * BATCH_BYTES}}


def latency(cfg: Config, client: TransportClient) -> dict[str, Any]:
    plan = b'{"op": "noop"}'
    for _ in range(min(50, cfg.latency_calls)):
        client.deliver(plan)
    delivers = []
    for _ in range(cfg.latency_calls):
        started = time.perf_counter_ns()
        client.deliver(plan)
        delivers.append(time.perf_counter_ns() - started)
    query = query_id()
    fill(client, query, 1, 1, rows=1, columns=1)
    key = PartitionKey(query, 0, 0, 0)
    reads = []
    for i in range(cfg.read_calls + 20):
        started = time.perf_counter_ns()
        rows = sum(b.num_rows for b in client.read(key, READ_TIMEOUT))
        if i >= 20:
            reads.append(time.perf_counter_ns() - started)
        expect_rows(rows, 1, "1-row read")
    client.cancel(query)
    return {"deliver": micros(delivers), "read_1row": micros(reads)}


def per_batch(cfg: Config, client: TransportClient, local: bool) -> dict[str, Any]:
    count = cfg.tiny_batches_local if local else cfg.tiny_batches_remote
    best = float("inf")
    for _ in range(2):
        query = query_id()
        fill(client, query, 1, count, rows=1, columns=1)
        started = time.perf_counter()
        seen = sum(1 for _ in client.read(PartitionKey(query, 0, 0, 0), READ_TIMEOUT))
        best = min(best, time.perf_counter() - started)
        client.cancel(query)
        expect_rows(seen, count, "tiny batches")
    return {"per_batch": {"us": best / count * 1e6, "batches": count}}


def shuffle(cfg: Config, transport: WorkerTransport, producers: list[Any],
            consumers: list[Child] | None) -> dict[str, Any]:
    """M producers x N consumers; ``consumers`` are processes (already given the producers'
    addresses), or None to read with threads in this process."""
    width = cfg.shuffle_width
    batches = max(1, cfg.size // (width * width * BATCH_BYTES))
    clients = [transport.connect(p.address) for p in producers]
    readers: list[list[TransportClient]] = []
    try:
        if consumers:
            for consumer in consumers:
                consumer.recv(START_TIMEOUT)  # {"ready": true}: connected to every producer
        else:
            readers = [[transport.connect(p.address) for p in producers] for _ in range(width)]
        rates = []
        for round_ in range(cfg.repeats + 1):
            query = query_id()
            each = 1 if round_ == 0 else batches
            for i, client in enumerate(clients):
                fill(client, query, width, each, task=i)
            if consumers:
                for consumer in consumers:
                    consumer.send({"query_id": query})
                results = [c.recv(READ_TIMEOUT * 2) for c in consumers]
                moved = sum(r["bytes"] for r in results)
                rows = sum(r["rows"] for r in results)
                elapsed = max(r["end"] for r in results) - min(r["start"] for r in results)
            else:
                fns = [lambda i=i, j=j: read_partition(readers[j][i], PartitionKey(query, 0, i, j),
                                                       READ_TIMEOUT)
                       for j in range(width) for i in range(width)]
                parts, elapsed = run_threads(fns, READ_TIMEOUT * 2)
                moved, rows = sum(p[0] for p in parts), sum(p[1] for p in parts)
            for client in clients:
                client.cancel(query)
            expect_rows(rows, width * width * each * BATCH_ROWS, "shuffle")
            if round_:
                rates.append(gbps(moved, elapsed))
    finally:
        for client in clients:
            client.close()
        for row in readers:
            for reader in row:
                reader.close()
    return {"shuffle": {**summary(rates), "producers": width, "consumers": width,
                        "processes": bool(consumers),
                        "bytes": width * width * batches * BATCH_BYTES}}
