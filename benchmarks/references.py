"""The physical references a transport is judged against, both ends of each.

Measured in the same run as the transports, on the same bytes (``benchmarks.measure``), so a
ratio compares like with like on a machine whose speed varies from run to run:

- ``memcpy``: numpy copy of a SIZE array into a pre-faulted one, the ceiling the ratios use;
  and into freshly allocated pages, to show what page faults cost.
- Arrow IPC stream written to a ``BufferOutputStream`` and read back (zero-copy) + touched.
- raw loopback TCP and Unix sockets: a sender child ``sendall``s from a 64 MiB buffer, this
  process ``recv_into``s 8 MiB buffers; 1 and ``STREAMS`` streams.
- raw ZeroMQ: a sender child sends the transports' own 8 MiB batches, each a message of its
  column buffers, with ``copy=False`` over a PAIR socket on loopback TCP, this process
  receives them with ``copy=False``, rebuilds each batch around its frames and touches it as
  the transports' readers do: what the zmq transport is built on, used bare. (Until
  session 19 it only summed the frames' lengths, which took about 7 % less time.)
- stock Arrow Flight: a child serving the synthetic batches with a plain
  ``FlightServerBase`` (no TLS, no auth, default options) and this process reading them with
  plain ``FlightClient.do_get``s, one client per stream; 1 and ``STREAMS`` streams: what the
  flight transport is built on, used bare.
- an Arrow IPC file written to /dev/shm by a writer child and memory-mapped zero-copy +
  touched here (end-to-end = bytes / (write + map-and-touch)).

``python -m benchmarks.references --role send|zmq-send|flight-serve|shm-write`` is the child
side (the senders, the Flight server and the writer); it talks JSON lines
(``benchmarks.children``) and is only started from here.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from benchmarks.children import Children, as_child, commands, say, wait_for_eof
from benchmarks.data import pool, touch
from benchmarks.measure import (BATCH_BYTES, BATCH_ROWS, COLUMNS, READ_TIMEOUT, START_TIMEOUT,
                                STREAMS, Config, expect_rows, gbps, run_threads, summary)

MODULE = "benchmarks.references"
RECV_BUFFER = 8 << 20
SEND_BUFFER = 64 << 20
SEND_CHUNK = 8 << 20
SOCKET_TIMEOUT = 120.0
REFERENCE_DEADLINE = 120.0


# -- in this process ------------------------------------------------------------------------

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


# -- with a child: receiving / mapping side -------------------------------------------------

def _receiver(conn: socket.socket, per_stream: int) -> Callable[[], int]:
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


def ref_socket(cfg: Config, family: str, streams: int) -> dict[str, Any]:
    per_stream = cfg.size // streams
    rounds = cfg.repeats + 1
    with ExitStack() as stack:
        children = Children(stack, MODULE, REFERENCE_DEADLINE, f"{family} reference")
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
        rates = []
        for _ in range(rounds):
            started = time.perf_counter()
            for conn in conns:
                conn.sendall(b"g")
            run_threads([_receiver(c, per_stream) for c in conns], READ_TIMEOUT)
            rates.append(gbps(per_stream * streams, time.perf_counter() - started))
    name = f"{family}_{streams}"
    label = f"raw {'TCP' if family == 'tcp' else 'Unix'} socket, {streams} stream{'s' * (streams > 1)}"
    return {"name": name, "label": label, **summary(rates[1:])}


def ref_zmq(cfg: Config) -> dict[str, Any]:
    """Raw ZeroMQ, zero-copy both ends: 8 MiB messages from a sender child over loopback TCP."""
    import zmq

    count = max(1, cfg.size // BATCH_BYTES)
    with ExitStack() as stack:
        context = zmq.Context()
        stack.callback(context.term)
        sock = context.socket(zmq.PAIR)
        stack.callback(sock.close, 0)
        sock.rcvtimeo = int(READ_TIMEOUT * 1000)
        sock.sndtimeo = int(START_TIMEOUT * 1000)  # a PAIR blocks until its peer connected
        port = sock.bind_to_random_port("tcp://127.0.0.1")
        children = Children(stack, MODULE, REFERENCE_DEADLINE, "zmq reference")
        children.start("zmq sender", ["--role", "zmq-send", "--address", f"tcp://127.0.0.1:{port}",
                                      "--bytes", str(count * BATCH_BYTES)])
        rates = []
        for _ in range(cfg.repeats + 1):
            started = time.perf_counter()
            sock.send(b"g")
            got = rows = 0
            while got < count * BATCH_BYTES:
                batch = _as_batch(sock.recv_multipart(copy=False))
                touch(batch)
                got, rows = got + batch.nbytes, rows + batch.num_rows
            rates.append(gbps(got, time.perf_counter() - started))
            expect_rows(rows, count * BATCH_ROWS, "raw ZeroMQ")
        sock.send(b"q")
    return {"name": "zmq_1", "label": "raw ZeroMQ, zero-copy frames, 1 stream", **summary(rates[1:])}


def _as_batch(frames: list[Any]) -> pa.RecordBatch:
    """The batch whose column buffers ``frames`` are, around their memory (no copy)."""
    if len(frames) != COLUMNS or any(len(f) != BATCH_ROWS * 8 for f in frames):
        raise ValueError(f"a raw ZeroMQ message of {len(frames)} frames is not one of our batches")
    columns = [pa.Array.from_buffers(pa.int64(), BATCH_ROWS, [None, pa.py_buffer(f.buffer)])
               for f in frames]
    return pa.record_batch(columns, names=[f"c{c}" for c in range(COLUMNS)])


def ref_flight(cfg: Config, streams: int) -> dict[str, Any]:
    """Stock Arrow Flight: plain ``do_get``s of the synthetic batches, one client per stream,
    every batch touched as the transports' readers do."""
    import pyarrow.flight as flight

    per_stream = max(1, cfg.size // BATCH_BYTES // streams)
    with ExitStack() as stack:
        children = Children(stack, MODULE, REFERENCE_DEADLINE, "Flight reference")
        port = children.start("stock Flight server", ["--role", "flight-serve"]).recv(START_TIMEOUT)["port"]
        clients = [flight.FlightClient(f"grpc://127.0.0.1:{port}") for _ in range(streams)]
        for client in clients:
            stack.callback(client.close)
        ticket = flight.Ticket(json.dumps({"batches": per_stream}).encode())
        call = flight.FlightCallOptions(timeout=READ_TIMEOUT)

        def read(client: Any) -> int:
            reader, rows = client.do_get(ticket, call), 0
            while True:
                try:
                    batch = reader.read_chunk().data
                except StopIteration:
                    return rows
                touch(batch)
                rows += batch.num_rows

        rates = []
        for _ in range(cfg.repeats + 1):
            results, elapsed = run_threads([lambda c=c: read(c) for c in clients], READ_TIMEOUT * 2)
            expect_rows(sum(results), streams * per_stream * BATCH_ROWS, "stock Flight")
            rates.append(gbps(streams * per_stream * BATCH_BYTES, elapsed))
    label = f"stock Arrow Flight do_get, {streams} stream{'s' * (streams > 1)}"
    return {"name": f"flight_{streams}", "label": label, **summary(rates[1:])}


def ref_shm_ipc(cfg: Config) -> dict[str, Any]:
    if not os.path.isdir("/dev/shm"):
        raise FileNotFoundError("no /dev/shm on this machine")
    count = cfg.size // BATCH_BYTES
    with ExitStack() as stack:
        directory = tempfile.mkdtemp(prefix="sparkwire-bench-", dir="/dev/shm")
        stack.callback(shutil.rmtree, directory, True)
        children = Children(stack, MODULE, REFERENCE_DEADLINE, "/dev/shm reference")
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


# -- all of them ----------------------------------------------------------------------------

#: Every reference by the name its result carries, in the order a run measures them.
REFERENCES: dict[str, Callable[[Config], dict[str, Any]]] = {
    "memcpy": ref_memcpy, "memcpy_fresh": ref_memcpy_fresh, "ipc_memory": ref_ipc_memory,
    "shm_ipc": ref_shm_ipc,
    "tcp_1": lambda c: ref_socket(c, "tcp", 1),
    f"tcp_{STREAMS}": lambda c: ref_socket(c, "tcp", STREAMS),
    "unix_1": lambda c: ref_socket(c, "unix", 1),
    f"unix_{STREAMS}": lambda c: ref_socket(c, "unix", STREAMS),
    "zmq_1": ref_zmq, "flight_1": lambda c: ref_flight(c, 1),
    f"flight_{STREAMS}": lambda c: ref_flight(c, STREAMS),
}


def run_references(cfg: Config) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Every reference by name, and the failures; one failing reference spares the others."""
    references: dict[str, dict[str, Any]] = {}
    failures: list[str] = []
    print(f"References ({cfg.size >> 20} MiB):", flush=True)
    for fn in REFERENCES.values():
        try:
            began = time.perf_counter()
            r = fn(cfg)
            references[r["name"]] = r
            print(f"  {r['label']}: {r['gbps']:.2f} GB/s (median {r['median_gbps']:.2f}) "
                  f"({time.perf_counter() - began:.1f}s)", flush=True)
        except Exception as exc:
            failures.append(f"reference: {type(exc).__name__}: {exc}")
            print(f"  reference FAILED: {failures[-1]}", flush=True)
    return references, failures


# -- the child side: sender and writer ------------------------------------------------------

def send(family: str, address: str, streams: int, nbytes: int, rounds: int) -> None:
    """Connect ``streams`` sockets; per round, wait for a go byte on each, then ``sendall``
    ``nbytes`` on each, so the receiver times the transfer and not our start-up."""
    payload = memoryview(b"\x5a" * SEND_BUFFER)  # touched, unlike a calloc'ed bytearray
    socks = []
    for _ in range(streams):
        if family == "unix":
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(SOCKET_TIMEOUT)
            sock.connect(address)
        else:
            host, _, port = address.rpartition(":")
            if host not in ("127.0.0.1", "localhost"):
                raise ValueError("the raw socket reference runs on loopback only")
            sock = socket.create_connection((host, int(port)), timeout=SOCKET_TIMEOUT)
        socks.append(sock)
    failures: list[BaseException] = []

    def pump(sock: socket.socket) -> None:
        try:
            for _ in range(rounds):
                if sock.recv(1) != b"g":
                    return  # the receiver closed: stop quietly
                left, offset = nbytes, 0
                while left > 0:
                    size = min(left, SEND_CHUNK, SEND_BUFFER - offset)
                    sock.sendall(payload[offset:offset + size])
                    left -= size
                    offset = (offset + size) % SEND_BUFFER
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=pump, args=(s,), daemon=True) for s in socks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(rounds * SOCKET_TIMEOUT)
    for sock in socks:
        sock.close()
    if failures:
        raise failures[0]


def zmq_send(address: str, nbytes: int) -> None:
    """Per go message, send ``nbytes`` of the transports' own batches (``benchmarks.data.pool``),
    each as one message of its column buffers, ``copy=False``; any other message ends it (only
    then may the socket close: closing drops what is still queued).

    Until session 10 this sent one 8 MiB buffer over and over, which stays in cache as no
    partition of distinct batches does: the zmq transport read a one-batch pool at 7.3 GB/s,
    more than that reference's 6.2-6.6, and the 256 MiB pool at 6.1."""
    import zmq

    if not re.fullmatch(r"tcp://127\.0\.0\.1:[0-9]{1,5}", address):
        raise ValueError("the raw ZeroMQ reference runs on loopback only")
    count = nbytes // BATCH_BYTES
    batches = pool(BATCH_ROWS, COLUMNS, count)
    messages = [[buffer for column in batch.columns for buffer in column.buffers() if buffer is not None]
                for batch in batches]
    context = zmq.Context()
    sock = context.socket(zmq.PAIR)
    try:
        sock.rcvtimeo = sock.sndtimeo = int(SOCKET_TIMEOUT * 1000)
        sock.connect(address)
        while sock.recv() == b"g":
            for i in range(count):
                sock.send_multipart(messages[i % len(messages)], copy=False)
    finally:
        sock.close(linger=0)
        context.term()


def flight_serve() -> None:
    """A stock Flight server of the synthetic batches until the parent closes our stdin; a
    ticket is ``{"batches": N}``."""
    import pyarrow.flight as flight

    class Server(flight.FlightServerBase):  # type: ignore[misc]
        def do_get(self, context: Any, ticket: Any) -> Any:
            count = json.loads(ticket.ticket)["batches"]
            if type(count) is not int or not 1 <= count <= 1 << 20:
                raise flight.FlightServerError("bad ticket")
            pooled = pool(BATCH_ROWS, COLUMNS, count)
            return flight.RecordBatchStream(
                pa.Table.from_batches([pooled[i % len(pooled)] for i in range(count)]))

    with Server("grpc://127.0.0.1:0") as server:
        say({"port": server.port})
        wait_for_eof()


def shm_write(directory: str) -> None:
    """Per command, write an IPC file of synthetic batches into ``directory`` (under
    /dev/shm) and answer how long it took: the write half of the end-to-end rate."""
    root = Path(directory).resolve()
    if not str(root).startswith("/dev/shm/"):
        raise ValueError("--dir must be under /dev/shm")
    say({"ready": True, "pid": os.getpid()})
    for command in commands():
        name = command.get("name")
        shape = [command.get(k) for k in ("batches", "rows", "columns")]
        if (set(command) != {"name", "batches", "rows", "columns"} or not isinstance(name, str)
                or not re.fullmatch(r"[a-z0-9_-]{1,32}\.arrow", name)
                or not all(type(v) is int and 1 <= v <= 1 << 24 for v in shape)):
            raise ValueError(f"bad shm-write command {command!r}")
        batches, rows, columns = shape
        pooled = pool(rows, columns, batches)
        started = time.perf_counter()
        with pa.OSFile(str(root / name), "wb") as sink, \
                pa.ipc.new_file(sink, pooled[0].schema) as writer:
            for i in range(batches):
                writer.write_batch(pooled[i % len(pooled)])
        say({"seconds": time.perf_counter() - started})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog=f"python -m {MODULE}", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--role", choices=("send", "zmq-send", "flight-serve", "shm-write"),
                        required=True)
    parser.add_argument("--address", action="append", default=[],
                        help="the receiver's address (send)")
    parser.add_argument("--family", choices=("tcp", "unix"), default="tcp", help="socket family (send)")
    parser.add_argument("--streams", type=int, default=1, help="sockets (send)")
    parser.add_argument("--bytes", type=int, default=0, help="bytes per socket per round (send)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds (send)")
    parser.add_argument("--dir", help="directory under /dev/shm (shm-write)")
    args = parser.parse_args(argv)
    as_child()
    if args.role == "send":
        if len(args.address) != 1 or not 1 <= args.streams <= 64 or args.bytes < 0:
            parser.error("send needs one --address, 1..64 --streams and --bytes >= 0")
        send(args.family, args.address[0], args.streams, args.bytes, args.rounds)
    elif args.role == "zmq-send":
        if len(args.address) != 1 or args.bytes < 0:
            parser.error("zmq-send needs one --address and --bytes >= 0")
        zmq_send(args.address[0], args.bytes)
    elif args.role == "flight-serve":
        flight_serve()
    else:
        if not args.dir:
            parser.error("--dir is required")
        shm_write(args.dir)


if __name__ == "__main__":
    main()
