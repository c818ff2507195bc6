"""Every registered transport against the physical references, in one run.

``python -m benchmarks.transports [--quick] [--transport NAME ...]`` (also run by ``make bench``)
measures each transport of ``available_transports()`` (one that fails to import is skipped
with its reason) and, in the same run, the references it is judged against:

Transports (the reader is this process; the producer is a ``benchmarks.producer`` process
serving a ``PartitionStore``-backed service when ``capabilities.crosses_processes``, else a
service in this process; partitions are filled by a validated JSON command sent through
``deliver()``):

1. **one stream**: one partition of ``SIZE`` (1 GiB, ``--quick`` 128 MiB) of 4 int64 columns
   in 8 MiB batches, opened and iterated; every batch is *touched* (one int64 per 4 KiB page
   of every column, checked against the values written, see ``producer.touch``). Best and
   median of ``REPEATS`` after a small warm-up. Also with ``STREAMS`` (4) partitions read at
   once by 4 threads, each with its own client.
2. **shuffle**: M producer processes x N consumer processes (4 x 4 on >= 4 cores, 2 x 2 below:
   with 2 cores 16 busy processes would measure the scheduler). Consumer j reads partition j
   from every producer at once (a thread per producer); ``SIZE`` bytes move in all. Aggregate
   GB/s = bytes / (last consumer end - first consumer start), on the shared monotonic clock.
   For transports that stay in one process: M services and N x M reader threads.
3. **latency**: ``deliver()`` of a tiny plan, and open + read of a 1-row partition; median and
   p99 in microseconds.
4. **reader peak RSS** during (1): ``VmHWM`` after resetting it through
   ``/proc/self/clear_refs`` (or a 1 ms ``VmRSS`` sampler where that is refused), minus
   ``VmRSS`` at the start. For a zero-copy transport it includes the mapped shared pages.
5. **per-batch overhead**: a partition of many 1-row batches, iterated without touching;
   seconds / batches. The project's target (< 20 us) is about the memory transport; the
   others are shown for scale.

References: ``memcpy`` (numpy copy of a SIZE array into a pre-faulted one, the ceiling the
ratios use; and into freshly allocated pages, to show what page faults cost), Arrow IPC
stream written to a ``BufferOutputStream`` and read back (zero-copy) + touched, raw loopback
TCP and Unix sockets (a sender process ``sendall``s from a 64 MiB buffer, this process ``recv_into``s 8
MiB buffers; 1 and 4 streams), and an Arrow IPC file written to /dev/shm by another process
and memory-mapped zero-copy + touched here (end-to-end = bytes / (write + map-and-touch)).

GB/s are 10^9 bytes per second of Arrow buffer bytes (``RecordBatch.nbytes``). Results go to
``benchmarks/results/transports.json`` and ``transports.png``; a markdown table is printed.
Every child process has a stdin lifeline and is terminated, then killed, on the way out;
every wait is bounded, and a watchdog kills a transport's children if it runs over, which
turns a stuck read into an error. Loopback only; ports are the OS's choice.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import gc
import itertools
import json
import os
import select
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from benchmarks.common import write
from benchmarks.producer import BenchService, pool, read_partition, touch
from transport.base import PartitionKey, TransportClient, WorkerTransport
from transport.errors import ConfigError
from transport.registry import available_transports, create_transport, transport_class

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = 4
BATCH_ROWS = 1 << 18                      # 4 x 2^18 x 8 B = 8 MiB batches
BATCH_BYTES = COLUMNS * BATCH_ROWS * 8
STREAMS = 4
READ_TIMEOUT = 60.0
START_TIMEOUT = 90.0                      # a child importing pyarrow on a busy 2-core box
RECV_BUFFER = 8 << 20
MEMCPY_TARGET, TCP_TARGET, PER_BATCH_TARGET_US = 0.5, 0.7, 20.0


@dataclass(frozen=True)
class Config:
    quick: bool
    size: int                 # bytes of the one-stream partition, the shuffle and references
    repeats: int
    shuffle_width: int        # M = N
    latency_calls: int
    read_calls: int
    tiny_batches_local: int   # per-batch overhead, in-process transports
    tiny_batches_remote: int
    deadline: float           # watchdog per transport, seconds

    @classmethod
    def make(cls, quick: bool) -> Config:
        width = 4 if (os.cpu_count() or 1) >= 4 else 2
        if quick:
            return cls(True, 128 << 20, 2, width, 300, 100, 20_000, 2_000, 90.0)
        return cls(False, 1 << 30, 3, width, 2_000, 500, 100_000, 10_000, 240.0)


# -- child processes ------------------------------------------------------------------------

class Child:
    """A ``python -m benchmarks.producer`` process spoken to in JSON lines, bounded waits."""

    def __init__(self, label: str, args: list[str]) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
        self.label = label
        self.proc = subprocess.Popen([sys.executable, "-m", "benchmarks.producer", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT, env=env)
        self._pending = b""

    def recv(self, timeout: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"{self.label} (pid {self.proc.pid}) said nothing in {timeout:g}s")
            ready, _, _ = select.select([fd], [], [], remaining)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    try:
                        code: int | None = self.proc.wait(2.0)
                    except subprocess.TimeoutExpired:
                        code = None
                    raise RuntimeError(f"{self.label} (pid {self.proc.pid}) exited"
                                       f"{'' if code is None else f' with code {code}'}; see its stderr")
                self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        message = json.loads(line)
        if message.get("error"):
            raise RuntimeError(f"{self.label}: {message['error']}")
        return message

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()

    def close(self, timeout: float = 10.0) -> None:
        """Close the lifeline, then terminate, then kill; always reaps the process."""
        if self.proc.stdin is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                self.proc.wait(3.0)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(3.0)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


class Children:
    """The children of one measurement scope, closed together, killed by the watchdog."""

    def __init__(self, stack: ExitStack, deadline: float, label: str) -> None:
        self._children: list[Child] = []
        self._lock = threading.Lock()
        self.expired = False
        # Scratch space of the children (spill dirs) is ours to remove, even if they were killed.
        self.scratch = tempfile.mkdtemp(prefix="sparkwire-bench-")
        stack.callback(shutil.rmtree, self.scratch, True)
        stack.callback(self._close_all)
        self._timer = threading.Timer(deadline, self._expire, args=(label, deadline))
        self._timer.daemon = True
        self._timer.start()
        stack.callback(self._timer.cancel)

    def start(self, label: str, args: list[str]) -> Child:
        child = Child(label, args)
        with self._lock:
            self._children.append(child)
            if self.expired:
                child.kill()
        return child

    def _expire(self, label: str, deadline: float) -> None:
        print(f"  !! {label} ran over {deadline:g}s: killing its processes", flush=True)
        with self._lock:
            self.expired = True
            for child in self._children:
                child.kill()

    def _close_all(self) -> None:
        with self._lock:
            children, self._children = self._children, []
        for child in children:
            child.close()


# -- measuring helpers ----------------------------------------------------------------------

def _status_kib(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


try:
    _libc: Any = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    _libc.malloc_trim  # glibc only
except (OSError, AttributeError):
    _libc = None


class PeakRss:
    """Peak resident set growth of this process inside the ``with`` block, in MiB."""

    def __enter__(self) -> PeakRss:
        # Return freed memory to the OS first, or pages the allocators kept from the warm-up
        # are reused and hide the reader's peak.
        gc.collect()
        pa.default_memory_pool().release_unused()
        if _libc is not None:
            _libc.malloc_trim(0)
        try:
            with open("/proc/self/clear_refs", "w") as refs:
                refs.write("5")  # reset VmHWM to the current RSS
            self.exact = True
        except OSError:
            self.exact = False
        self.base = _status_kib("VmRSS")
        self._peak = self.base
        self._stop = threading.Event()
        if not self.exact:
            self._sampler = threading.Thread(target=self._sample, daemon=True)
            self._sampler.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.001):
            self._peak = max(self._peak, _status_kib("VmRSS"))

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self.exact:
            self._peak = _status_kib("VmHWM")
        else:
            self._sampler.join(1.0)
        self.delta_mib = max(0, self._peak - self.base) / 1024


def gbps(nbytes: int, seconds: float) -> float:
    return nbytes / seconds / 1e9


def summary(rates: list[float]) -> dict[str, float]:
    return {"gbps": max(rates), "median_gbps": statistics.median(rates)}


def micros(samples_ns: list[int]) -> dict[str, float]:
    ordered = sorted(samples_ns)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return {"p50_us": statistics.median(ordered) / 1e3, "p99_us": p99 / 1e3, "calls": len(ordered)}


def run_threads(fns: list[Callable[[], Any]], timeout: float) -> tuple[list[Any], float]:
    """Run ``fns`` at once; (their results, wall seconds). Re-raises the first failure."""
    results: list[Any] = [None] * len(fns)
    failures: list[BaseException] = []

    def run(i: int) -> None:
        try:
            results[i] = fns[i]()
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(fns))]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    elapsed = time.perf_counter() - started
    if failures:
        raise failures[0]
    if any(thread.is_alive() for thread in threads):
        raise TimeoutError(f"reader threads still running after {timeout:g}s")
    return results, elapsed


_query_ids = itertools.count()


def query_id() -> str:
    return f"bench{os.getpid()}-{next(_query_ids)}"


def fill(client: TransportClient, query: str, partitions: int, batches: int, *,
         rows: int = BATCH_ROWS, columns: int = COLUMNS, task: int = 0) -> None:
    client.deliver(json.dumps({"op": "fill", "query_id": query, "stage": 0, "task": task,
                               "partitions": partitions, "batches": batches, "rows": rows,
                               "columns": columns}).encode())


def expect_rows(got: int, want: int, what: str) -> None:
    if got != want:
        raise RuntimeError(f"{what}: read {got} rows, {want} were written")


# -- references -----------------------------------------------------------------------------

def ref_memcpy(cfg: Config) -> dict[str, Any]:
    src = np.arange(cfg.size // 8, dtype=np.int64)
    dst = np.empty_like(src)
    rates = []
    for _ in range(cfg.repeats + 1):
        started = time.perf_counter()
        np.copyto(dst, src)
        rates.append(gbps(src.nbytes, time.perf_counter() - started))
    return {"name": "memcpy", "label": "memcpy (numpy copy)", **summary(rates[1:])}


def ref_memcpy_fresh(cfg: Config) -> dict[str, Any]:
    """memcpy into newly allocated pages: what a writer into a fresh segment pays for the
    page faults (on small VMs several times the copy itself)."""
    src = np.arange(cfg.size // 8, dtype=np.int64)
    rates = []
    for _ in range(cfg.repeats + 1):
        started = time.perf_counter()
        dst = np.empty_like(src)
        np.copyto(dst, src)
        rates.append(gbps(src.nbytes, time.perf_counter() - started))
        del dst
    return {"name": "memcpy_fresh", "label": "memcpy into fresh pages", **summary(rates[1:])}


def ref_ipc_memory(cfg: Config) -> dict[str, Any]:
    count = cfg.size // BATCH_BYTES
    pooled = pool(BATCH_ROWS, COLUMNS, count)
    rates, writes, reads = [], [], []
    for _ in range(cfg.repeats + 1):
        started = time.perf_counter()
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, pooled[0].schema) as writer:
            for i in range(count):
                writer.write_batch(pooled[i % len(pooled)])
        buffer = sink.getvalue()
        written = time.perf_counter()
        rows = 0
        for batch in pa.ipc.open_stream(buffer):
            touch(batch)
            rows += batch.num_rows
        done = time.perf_counter()
        expect_rows(rows, count * BATCH_ROWS, "IPC in memory")
        del buffer, sink, batch
        rates.append(gbps(count * BATCH_BYTES, done - started))
        writes.append(gbps(count * BATCH_BYTES, written - started))
        reads.append(gbps(count * BATCH_BYTES, done - written))
    return {"name": "ipc_memory", "label": "Arrow IPC write+read in memory", **summary(rates[1:]),
            "write_gbps": max(writes[1:]), "read_gbps": max(reads[1:])}


def ref_socket(cfg: Config, family: str, streams: int) -> dict[str, Any]:
    per_stream = cfg.size // streams
    rounds = cfg.repeats + 1
    with ExitStack() as stack:
        children = Children(stack, 120.0, f"{family} reference")
        if family == "unix":
            directory = tempfile.mkdtemp(prefix="sparkwire-bench-")
            stack.callback(shutil.rmtree, directory, True)
            address = os.path.join(directory, "s.sock")
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(address)
        else:
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.bind(("127.0.0.1", 0))
            address = "127.0.0.1:%d" % listener.getsockname()[1]
        stack.callback(listener.close)
        listener.listen(streams)
        listener.settimeout(START_TIMEOUT)
        children.start(f"{family} sender", ["--role", "send", "--family", family, "--address",
                                            address, "--streams", str(streams), "--bytes",
                                            str(per_stream), "--rounds", str(rounds)])
        conns = []
        for _ in range(streams):
            conn = listener.accept()[0]
            stack.callback(conn.close)
            conn.settimeout(READ_TIMEOUT)
            conns.append(conn)

        def receive(conn: socket.socket) -> Callable[[], int]:
            def run() -> int:
                view = memoryview(bytearray(RECV_BUFFER))
                left = per_stream
                while left > 0:
                    got = conn.recv_into(view, min(left, RECV_BUFFER))
                    if not got:
                        raise ConnectionError("the sender closed early")
                    left -= got
                return per_stream
            return run

        rates = []
        for _ in range(rounds):
            started = time.perf_counter()
            for conn in conns:
                conn.sendall(b"g")
            _, _ = run_threads([receive(c) for c in conns], READ_TIMEOUT)
            rates.append(gbps(per_stream * streams, time.perf_counter() - started))
    name = f"{family}_{streams}"
    label = f"raw {'TCP' if family == 'tcp' else 'Unix'} socket, {streams} stream{'s' * (streams > 1)}"
    return {"name": name, "label": label, **summary(rates[1:])}


def ref_shm_ipc(cfg: Config) -> dict[str, Any]:
    if not os.path.isdir("/dev/shm"):
        raise FileNotFoundError("no /dev/shm on this machine")
    count = cfg.size // BATCH_BYTES
    with ExitStack() as stack:
        directory = tempfile.mkdtemp(prefix="sparkwire-bench-", dir="/dev/shm")
        stack.callback(shutil.rmtree, directory, True)
        children = Children(stack, 120.0, "/dev/shm reference")
        writer = children.start("shm writer", ["--role", "shm-write", "--dir", directory])
        writer.recv(START_TIMEOUT)
        rates, writes, reads = [], [], []
        for i in range(cfg.repeats + 1):
            name = f"r{i}.arrow"
            writer.send({"name": name, "batches": count, "rows": BATCH_ROWS, "columns": COLUMNS})
            wrote = writer.recv(READ_TIMEOUT)["seconds"]
            path = os.path.join(directory, name)
            started = time.perf_counter()
            with pa.memory_map(path) as mapped:
                reader = pa.ipc.open_file(mapped)
                rows = 0
                for b in range(reader.num_record_batches):
                    batch = reader.get_batch(b)
                    touch(batch)
                    rows += batch.num_rows
                del reader, batch
            read = time.perf_counter() - started
            os.unlink(path)
            expect_rows(rows, count * BATCH_ROWS, "/dev/shm IPC")
            rates.append(gbps(count * BATCH_BYTES, wrote + read))
            writes.append(gbps(count * BATCH_BYTES, wrote))
            reads.append(gbps(count * BATCH_BYTES, read))
    return {"name": "shm_ipc", "label": "Arrow IPC via /dev/shm, mapped by another process",
            **summary(rates[1:]), "write_gbps": max(writes[1:]), "map_read_gbps": max(reads[1:])}


# -- transports -----------------------------------------------------------------------------

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


def single_stream(cfg: Config, client: TransportClient) -> dict[str, Any]:
    count = cfg.size // BATCH_BYTES
    warm = query_id()
    fill(client, warm, 1, min(8, count))
    read_partition(client, PartitionKey(warm, 0, 0, 0), READ_TIMEOUT)
    client.cancel(warm)
    rates, peaks = [], []
    for _ in range(cfg.repeats):
        query = query_id()
        fill(client, query, 1, count)
        with PeakRss() as rss:
            started = time.perf_counter()
            nbytes, rows = read_partition(client, PartitionKey(query, 0, 0, 0), READ_TIMEOUT)
            elapsed = time.perf_counter() - started
        client.cancel(query)
        expect_rows(rows, count * BATCH_ROWS, "one stream")
        rates.append(gbps(nbytes, elapsed))
        peaks.append(rss.delta_mib)
    return {"single": {**summary(rates), "bytes": count * BATCH_BYTES},
            "reader_peak_rss_mib": max(peaks), "rss_exact": rss.exact}


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


def bench_transport(cfg: Config, name: str) -> dict[str, Any]:
    cls = transport_class(name)  # ConfigError (e.g. an import failure) -> skipped by the caller
    caps = cls.capabilities
    result: dict[str, Any] = {"transport": name, "capabilities": asdict(caps), "errors": {}}
    remote = caps.crosses_processes
    print(f"\n== {name} ({'producer in its own process' if remote else 'in process'})", flush=True)
    began = time.perf_counter()
    try:
        _measure(cfg, name, remote, result, began)
    except Exception as exc:  # setting up failed: recorded, the other transports still run
        result["errors"]["setup"] = f"{type(exc).__name__}: {exc}"
        print(f"  setup: FAILED {result['errors']['setup']}", flush=True)
    return result


def _measure(cfg: Config, name: str, remote: bool, result: dict[str, Any], began: float) -> None:
    with ExitStack() as stack:
        transport = stack.enter_context(create_transport(name))
        children = Children(stack, cfg.deadline, name) if remote else None
        consumers: list[Child] | None = None
        if children is not None:
            # Producers and consumers start together: on a busy machine each takes seconds
            # to import pyarrow, and they need not wait for each other.
            spawned = [children.start(f"{name} producer {i}", ["--role", "serve", "--transport", name,
                                                                   "--dir", children.scratch])
                       for i in range(cfg.shuffle_width)]
            consumers = [children.start(f"{name} consumer {j}",
                                        ["--role", "consume", "--transport", name, "--partition",
                                         str(j), "--timeout", str(READ_TIMEOUT)])
                         for j in range(cfg.shuffle_width)]
            producers: list[Any] = [RemoteProducer(c.recv(START_TIMEOUT)["address"]) for c in spawned]
            for consumer in consumers:
                consumer.send({"addresses": [p.address for p in producers]})
        else:
            producers = [LocalProducer(transport, stack) for _ in range(cfg.shuffle_width)]
        client = transport.connect(producers[0].address)
        stack.callback(client.close)
        print(f"  producers up ({time.perf_counter() - began:.1f}s)", flush=True)
        steps: list[tuple[str, Callable[[], dict[str, Any]]]] = [
            ("one stream", lambda: single_stream(cfg, client)),
            (f"{STREAMS} streams", lambda: multi_stream(cfg, transport, client, producers[0].address)),
            ("latency", lambda: latency(cfg, client)),
            ("per batch", lambda: per_batch(cfg, client, not remote)),
            ("shuffle", lambda: shuffle(cfg, transport, producers, consumers)),
        ]
        for step, fn in steps:
            if children is not None and children.expired:
                result["errors"][step] = f"not run: the watchdog stopped {name} after {cfg.deadline:g}s"
                continue
            started = time.perf_counter()
            try:
                result.update(fn())
                print(f"  {step}: {describe(result, step)} ({time.perf_counter() - started:.1f}s)",
                      flush=True)
            except Exception as exc:  # recorded, and the run still reports the rest
                result["errors"][step] = f"{type(exc).__name__}: {exc}"
                print(f"  {step}: FAILED {result['errors'][step]}", flush=True)


def describe(result: dict[str, Any], step: str) -> str:
    if step == "one stream":
        return (f"{result['single']['gbps']:.2f} GB/s, "
                f"reader peak RSS +{result['reader_peak_rss_mib']:.0f} MiB")
    if step.endswith("streams"):
        return f"{result['streams']['gbps']:.2f} GB/s"
    if step == "latency":
        d, r = result["deliver"], result["read_1row"]
        return (f"deliver {d['p50_us']:.0f}/{d['p99_us']:.0f} us, "
                f"1-row read {r['p50_us']:.0f}/{r['p99_us']:.0f} us (p50/p99)")
    if step == "per batch":
        return f"{result['per_batch']['us']:.2f} us/batch"
    s = result["shuffle"]
    return f"{s['producers']}x{s['consumers']} {s['gbps']:.2f} GB/s"


# -- ratios, report, plot -------------------------------------------------------------------

def ratios(references: dict[str, dict[str, Any]], transports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The project's targets: zero-copy cross-process vs memcpy, socket transports vs raw TCP,
    in-process per-batch overhead. Chosen by capability, so a new transport is judged too."""
    rows = []

    def ratio(name: str, value: float | None, target: float, higher_is_better: bool = True) -> None:
        met = None if value is None else (value >= target if higher_is_better else value < target)
        rows.append({"section": "ratio", "name": name, "value": value,
                     "target": f"{'>=' if higher_is_better else '<'} {target:g}", "met": met})

    def ref(key: str) -> float | None:
        return references.get(key, {}).get("gbps")

    for t in transports:
        caps, name = t["capabilities"], t["transport"]
        one, several = t.get("single", {}).get("gbps"), t.get("streams", {}).get("gbps")
        if caps["zero_copy"] and caps["crosses_processes"]:
            ratio(f"{name} / memcpy", one / ref("memcpy") if one and ref("memcpy") else None,
                  MEMCPY_TARGET)
        if caps["crosses_hosts"]:
            ratio(f"{name} / raw TCP, 1 stream",
                  one / ref("tcp_1") if one and ref("tcp_1") else None, TCP_TARGET)
            ratio(f"{name} / raw TCP, {STREAMS} streams",
                  several / ref(f"tcp_{STREAMS}") if several and ref(f"tcp_{STREAMS}") else None,
                  TCP_TARGET)
        if not caps["crosses_processes"]:
            ratio(f"{name} per-batch overhead, us", t.get("per_batch", {}).get("us"),
                  PER_BATCH_TARGET_US, higher_is_better=False)
    return rows


def _fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def markdown(cfg: Config, references: dict[str, dict[str, Any]], transports: list[dict[str, Any]],
             skipped: list[dict[str, Any]], targets: list[dict[str, Any]]) -> str:
    w = cfg.shuffle_width
    lines = [f"Transports, {cfg.size >> 20} MiB per measurement, 8 MiB batches, best of "
             f"{cfg.repeats}, {os.cpu_count()} CPUs (GB = 10^9 B):", "",
             f"| transport | 1 stream GB/s | {STREAMS} streams GB/s | shuffle {w}x{w} GB/s | "
             "deliver p50 / p99 us | 1-row read p50 / p99 us | per batch us | reader peak RSS MiB |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for t in transports:
        d, r = t.get("deliver", {}), t.get("read_1row", {})
        lines.append(
            f"| {t['transport']} | {_fmt(t.get('single', {}).get('gbps'))} | "
            f"{_fmt(t.get('streams', {}).get('gbps'))} | {_fmt(t.get('shuffle', {}).get('gbps'))} | "
            f"{_fmt(d.get('p50_us'), 0)} / {_fmt(d.get('p99_us'), 0)} | "
            f"{_fmt(r.get('p50_us'), 0)} / {_fmt(r.get('p99_us'), 0)} | "
            f"{_fmt(t.get('per_batch', {}).get('us'))} | {_fmt(t.get('reader_peak_rss_mib'), 0)} |")
    for s in skipped:
        lines.append(f"| {s['transport']} | skipped: {s['reason']} |||||||")
    for t in transports:
        lines += [f"\n**{t['transport']} {step} failed:** {error}" for step, error in t["errors"].items()]
    lines += ["", "| reference | GB/s (best) | median |", "|---|---:|---:|"]
    for r in references.values():
        extra = "".join(f", {k.removesuffix('_gbps')} {v:.2f}" for k, v in r.items()
                        if k.endswith("_gbps") and k not in ("median_gbps",))
        lines.append(f"| {r['label']}{' (' + extra[2:] + ')' if extra else ''} | "
                     f"{_fmt(r.get('gbps'))} | {_fmt(r.get('median_gbps'))} |")
    lines += ["", "| ratio | value | target | met |", "|---|---:|---:|:---:|"]
    for t in targets:
        met = {True: "yes", False: "**no**", None: "-"}[t["met"]]
        lines.append(f"| {t['name']} | {_fmt(t['value'], 3)} | {t['target']} | {met} |")
    return "\n".join(lines)


def plot(cfg: Config, references: dict[str, dict[str, Any]], transports: list[dict[str, Any]],
         path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5), gridspec_kw={"width_ratios": [3, 2]})
    w = cfg.shuffle_width
    series = [("single", "1 stream"), ("streams", f"{STREAMS} streams"), ("shuffle", f"shuffle {w}x{w}")]
    names = [t["transport"] for t in transports]
    width = 0.8 / len(series)
    for k, (key, label) in enumerate(series):
        values = [t.get(key, {}).get("gbps", 0.0) for t in transports]
        left.bar([i + (k - 1) * width for i in range(len(names))], values, width, label=label)
    styles = itertools.cycle(["-", "--", ":", "-."])
    colors = itertools.cycle(["black", "tab:red", "tab:purple", "tab:brown", "tab:gray", "tab:olive",
                              "tab:cyan", "tab:pink", "tab:orange"])
    for r in references.values():
        left.axhline(r["gbps"], linestyle=next(styles), color=next(colors), linewidth=1,
                     label=f"{r['label']}: {r['gbps']:.1f}")
    left.set_xticks(range(len(names)), names)
    left.set_yscale("log")
    left.set_ylabel("GB/s (best, log scale)")
    left.set_title(f"Partition throughput, {cfg.size >> 20} MiB, 8 MiB batches")
    left.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=2)
    for k, (key, label) in enumerate([("deliver", "deliver() tiny plan"), ("read_1row", "open+read 1 row")]):
        xs = [i + (k - 0.5) * 0.4 for i in range(len(names))]
        p50 = [t.get(key, {}).get("p50_us", 0.0) for t in transports]
        p99 = [t.get(key, {}).get("p99_us", 0.0) for t in transports]
        right.bar(xs, p50, 0.4, label=f"{label}, p50")
        right.scatter(xs, p99, marker="_", s=200, color="black", zorder=3,
                      label="p99" if k == 0 else None)
    right.set_xticks(range(len(names)), names)
    right.set_yscale("log")
    right.set_ylabel("microseconds (log scale)")
    right.set_title("Small-message round trip")
    right.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=2)
    fig.suptitle(f"sparkwire transports vs physical references ({os.cpu_count()} CPUs"
                 f"{', quick' if cfg.quick else ''})")
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)


def run(cfg: Config, only: list[str] | None = None) -> tuple[list[dict[str, Any]], str, bool]:
    started = time.perf_counter()
    references: dict[str, dict[str, Any]] = {}
    failures: list[str] = []
    print(f"References ({cfg.size >> 20} MiB):", flush=True)
    for fn in (ref_memcpy, ref_memcpy_fresh, ref_ipc_memory, ref_shm_ipc,
               lambda c: ref_socket(c, "tcp", 1), lambda c: ref_socket(c, "tcp", STREAMS),
               lambda c: ref_socket(c, "unix", 1), lambda c: ref_socket(c, "unix", STREAMS)):
        try:
            began = time.perf_counter()
            r = fn(cfg)
            references[r["name"]] = r
            print(f"  {r['label']}: {r['gbps']:.2f} GB/s (median {r['median_gbps']:.2f}) "
                  f"({time.perf_counter() - began:.1f}s)", flush=True)
        except Exception as exc:
            failures.append(f"reference: {type(exc).__name__}: {exc}")
            print(f"  reference FAILED: {failures[-1]}", flush=True)
    transports, skipped = [], []
    for name in sorted(available_transports()):
        if only and name not in only:
            continue
        try:
            transport_class(name)
        except ConfigError as exc:
            skipped.append({"section": "skipped", "transport": name, "reason": str(exc)})
            print(f"\n== {name}: SKIPPED, it does not import: {exc}", flush=True)
            continue
        result = bench_transport(cfg, name)
        failures += [f"{name} {step}: {error}" for step, error in result["errors"].items()]
        transports.append(result)
    targets = ratios(references, transports)
    table = markdown(cfg, references, transports, skipped, targets)
    rows = ([{"section": "config", **asdict(cfg), "batch_bytes": BATCH_BYTES, "columns": COLUMNS,
              "streams": STREAMS, "seconds": time.perf_counter() - started}]
            + [{"section": "reference", **r} for r in references.values()]
            + [{"section": "transport", **t} for t in transports] + skipped + targets)
    return rows, table, not failures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.transports",
                                     description="Transports against memcpy and raw sockets.")
    parser.add_argument("--quick", action="store_true", help="128 MiB instead of 1 GiB, fewer calls")
    parser.add_argument("--transport", action="append", help="only this transport (repeatable)")
    args = parser.parse_args(argv)
    cfg = Config.make(args.quick)
    started = time.perf_counter()
    rows, table, ok = run(cfg, args.transport)
    references = {r["name"]: r for r in rows if r["section"] == "reference"}
    transports = [r for r in rows if r["section"] == "transport"]
    path = write("transports", rows, lambda p: plot(cfg, references, transports, p))
    print("\n" + table)
    print(f"\nwrote {path} and {path.with_suffix('.png')} in {time.perf_counter() - started:.0f}s")
    if not ok:
        print("some measurements FAILED (see above and the 'errors' in the JSON)", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
