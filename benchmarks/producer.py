"""Helper processes for ``benchmarks.transports``: the other end of every measured pipe.

One module, four roles (``--role``), each a child of the benchmark process that talks to its
parent in JSON lines (stdout out, stdin in) and exits when its stdin closes, so it never
outlives the benchmark even when the benchmark is killed:

- ``serve`` (default): serve a ``BenchService`` (a ``PartitionStore`` plus a tiny command
  set) over ``--transport NAME``; announce ``{"address", "pid"}``. Partitions are filled on
  command through ``deliver()``: the command is JSON validated against a closed schema
  (``parse_command``), never unpickled or evaluated.
- ``consume``: connect to every address of the first line ``{"addresses": [...]}`` (so it can
  start while its producers do); then for each ``{"query_id": ...}`` line on stdin,
  read partition ``--partition`` of task ``i`` from producer ``i``, all producers at once
  (one thread each), touch every batch and answer bytes, rows and monotonic start/end.
- ``send``: raw socket reference; connect ``--streams`` TCP or Unix sockets to the parent
  and, per round, wait for a go byte on each, then ``sendall`` ``--bytes`` on each.
- ``shm-write``: Arrow IPC reference; per command, write an IPC file of synthetic batches
  into ``--dir`` (a directory under /dev/shm) and answer how long it took.

The synthetic data is shared with the reader side: column ``c`` of batch ``i`` holds
``arange(i * rows, (i + 1) * rows) + c`` as int64, built once per shape into a pool of at
most ``POOL_BYTES`` of distinct batches that partitions cycle through (so a 1 GiB partition
does not cost 1 GiB to produce, yet is not served from one cache-hot batch). ``touch`` reads
one int64 per 4 KiB page of every column and checks the cross-column invariant, which proves
every page arrived and holds the right values without scanning every byte.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Annotated, Any, Literal

POOL_BYTES = 256 << 20
POOL_MAX_BATCHES = 1024
STRIDE = 4096 // 8              # one int64 per 4 KiB page
MAX_COMMAND_BYTES = 4096
MAX_FILL_BATCHES = 1 << 22
SEND_BUFFER = 64 << 20
SEND_CHUNK = 8 << 20
LINE_TIMEOUT = 600.0            # a child waits at most this long for its next command
SOCKET_TIMEOUT = 120.0


# -- synthetic data and the touch that checks it --------------------------------------------

_pools: dict[tuple[int, int], list[Any]] = {}
_pools_lock = threading.Lock()


def make_batch(index: int, rows: int, columns: int) -> Any:
    import numpy as np
    import pyarrow as pa

    base = np.arange(index * rows, (index + 1) * rows, dtype=np.int64)
    return pa.record_batch([pa.array(base + c) for c in range(columns)],
                           names=[f"c{c}" for c in range(columns)])


def pool(rows: int, columns: int, wanted: int) -> list[Any]:
    """Up to ``wanted`` distinct batches of this shape, at most ``POOL_BYTES`` in all."""
    size = max(1, min(wanted, POOL_MAX_BATCHES, POOL_BYTES // (rows * columns * 8)))
    with _pools_lock:
        batches = _pools.get((rows, columns), [])
        if len(batches) < size:
            batches = batches + [make_batch(i, rows, columns) for i in range(len(batches), size)]
            _pools[(rows, columns)] = batches
        return batches


def touch(batch: Any) -> int:
    """Read one int64 per 4 KiB page of every column; check column c = column 0 + c."""
    arrays = [column.to_numpy(zero_copy_only=True) for column in batch.columns]
    first = arrays[0][::STRIDE]
    base = int(first.sum())
    total = base
    for c, array in enumerate(arrays[1:], 1):
        value = int(array[::STRIDE].sum())
        if value - base != c * len(first):
            raise ValueError(f"batch of {batch.num_rows} rows: column {c} does not hold the "
                             "values written; the transport corrupted or lost bytes")
        total += value
    return total


def read_partition(client: Any, key: Any, timeout: float) -> tuple[int, int]:
    """Open ``key``, touch every batch; (bytes, rows)."""
    nbytes = rows = 0
    for batch in client.read(key, timeout):
        touch(batch)
        nbytes += batch.nbytes
        rows += batch.num_rows
    return nbytes, rows


# -- the commands a BenchService accepts ----------------------------------------------------

def _command_adapter() -> Any:
    from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

    class Noop(BaseModel):
        model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
        op: Literal["noop"]

    class Fill(BaseModel):
        """Create task ``task`` of stage ``stage`` with ``partitions`` partitions, each
        ``batches`` batches of ``rows`` rows x ``columns`` int64 columns."""

        model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
        op: Literal["fill"]
        query_id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
        stage: int = Field(0, ge=0, le=1000)
        task: int = Field(0, ge=0, le=1_000_000)
        partitions: int = Field(ge=1, le=256)
        batches: int = Field(ge=1, le=1 << 22)
        rows: int = Field(ge=1, le=1 << 24)
        columns: int = Field(ge=1, le=16)

    return TypeAdapter(Annotated[Noop | Fill, Field(discriminator="op")])


_adapter: Any = None


def parse_command(plan: bytes) -> Any:
    """The validated command in ``plan`` or ``PlanRejected``."""
    from pydantic import ValidationError

    from transport.errors import PlanRejected

    global _adapter
    if len(plan) > MAX_COMMAND_BYTES:
        raise PlanRejected(f"benchmark command of {len(plan)} bytes exceeds {MAX_COMMAND_BYTES}")
    if _adapter is None:
        _adapter = _command_adapter()
    try:
        return _adapter.validate_json(plan)
    except ValidationError as exc:
        raise PlanRejected(f"invalid benchmark command: {exc.errors()[0]['msg']}") from None


class BenchService:
    """A ``WorkerService`` over a real ``PartitionStore``: ``noop`` plans return at once,
    ``fill`` plans create a task whose partitions cycle through the shared batch pool. The
    memory budget is bookkeeping only (pooled batches are shared), so nothing spills."""

    def __init__(self, spill_dir: Path) -> None:
        from coordinator.store import PartitionStore

        self.store = PartitionStore(1 << 50, spill_dir, idle_timeout=60.0)

    def submit(self, plan: bytes) -> None:
        command = parse_command(plan)
        if command.op == "fill":
            self._fill(command)

    def _fill(self, command: Any) -> None:
        from transport.errors import PlanRejected

        wanted = command.partitions * command.batches
        if wanted > MAX_FILL_BATCHES:
            raise PlanRejected(f"a fill of {wanted} batches exceeds {MAX_FILL_BATCHES}")
        batches = pool(command.rows, command.columns, wanted)
        output = self.store.create(command.query_id, command.stage, command.task,
                                   list(range(command.partitions)))
        output.start(batches[0].schema)
        index = 0
        for partition in range(command.partitions):
            for _ in range(command.batches):
                output.write(partition, batches[index % len(batches)])
                index += 1
        output.finish()

    def open(self, key: Any, timeout: float) -> Any:
        return self.store.open(key, timeout)

    def cancel(self, query_id: str) -> None:
        self.store.drop_query(query_id)

    def close(self) -> None:
        self.store.close()


# -- child plumbing -------------------------------------------------------------------------

def _say(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _commands() -> Any:
    """JSON objects from stdin, one per line, until EOF (the parent is done or gone)."""
    fd = sys.stdin.fileno()
    pending = b""
    while True:
        while b"\n" not in pending:
            if len(pending) > MAX_COMMAND_BYTES:
                raise ValueError("command line too long")
            ready, _, _ = select.select([fd], [], [], LINE_TIMEOUT)
            if not ready:
                raise TimeoutError(f"no command from the benchmark within {LINE_TIMEOUT:g}s")
            chunk = os.read(fd, 65536)
            if not chunk:
                return
            pending += chunk
        line, pending = pending.split(b"\n", 1)
        message = json.loads(line)
        if not isinstance(message, dict):
            raise ValueError("a command must be a JSON object")
        yield message


def _wait_for_eof() -> None:
    while os.read(sys.stdin.fileno(), 4096):
        pass


def serve(transport_name: str, scratch: str | None) -> None:
    import tempfile

    from transport.registry import create_transport

    with tempfile.TemporaryDirectory(prefix="sparkwire-bench-", dir=scratch) as spill, \
            create_transport(transport_name) as transport:
        service = BenchService(Path(spill))
        server = transport.serve(service)
        try:
            _say({"address": server.address, "pid": os.getpid()})
            _wait_for_eof()
        finally:
            server.close()
            service.close()


def consume(transport_name: str, partition: int, timeout: float) -> None:
    from transport.base import PartitionKey
    from transport.registry import create_transport

    commands = _commands()
    with create_transport(transport_name) as transport:
        first = next(commands, None)
        if first is None:
            return
        addresses = first.get("addresses")
        if (set(first) != {"addresses"} or not isinstance(addresses, list)
                or not 1 <= len(addresses) <= 64 or not all(isinstance(a, str) for a in addresses)):
            raise ValueError(f"bad connect command {first!r}")
        clients = [transport.connect(address) for address in addresses]
        _say({"ready": True})
        for command in commands:
            query_id = command.get("query_id")
            if not isinstance(query_id, str) or set(command) != {"query_id"}:
                raise ValueError(f"bad consume command {command!r}")
            results: list[tuple[int, int] | BaseException] = [(0, 0)] * len(clients)

            def read(i: int) -> None:
                try:
                    results[i] = read_partition(clients[i], PartitionKey(query_id, 0, i, partition),
                                                timeout)
                except BaseException as exc:  # reported to the parent below
                    results[i] = exc

            threads = [threading.Thread(target=read, args=(i,), daemon=True) for i in range(len(clients))]
            start = time.monotonic()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout + LINE_TIMEOUT)
            end = time.monotonic()
            errors = [repr(r) for r in results if isinstance(r, BaseException)]
            if any(thread.is_alive() for thread in threads):
                errors.append("a reader thread did not finish in time")
            done = [r for r in results if isinstance(r, tuple)]
            _say({"bytes": sum(r[0] for r in done), "rows": sum(r[1] for r in done),
                  "start": start, "end": end, "error": "; ".join(errors) or None})
        for client in clients:
            client.close()


def send(family: str, address: str, streams: int, nbytes: int, rounds: int) -> None:
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


def shm_write(directory: str) -> None:
    import re

    import pyarrow as pa

    root = Path(directory).resolve()
    if not str(root).startswith("/dev/shm/"):
        raise ValueError("--dir must be under /dev/shm")
    _say({"ready": True, "pid": os.getpid()})
    for command in _commands():
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
        _say({"seconds": time.perf_counter() - started})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.producer", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--role", choices=("serve", "consume", "send", "shm-write"), default="serve")
    parser.add_argument("--transport", help="transport name (serve, consume)")
    parser.add_argument("--address", action="append", default=[],
                        help="the receiver's address (send)")
    parser.add_argument("--partition", type=int, default=0, help="partition to read (consume)")
    parser.add_argument("--timeout", type=float, default=60.0, help="read timeout, s (consume)")
    parser.add_argument("--family", choices=("tcp", "unix"), default="tcp", help="socket family (send)")
    parser.add_argument("--streams", type=int, default=1, help="sockets (send)")
    parser.add_argument("--bytes", type=int, default=0, help="bytes per socket per round (send)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds (send)")
    parser.add_argument("--dir", help="directory under /dev/shm (shm-write) or for spill files (serve)")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent cleans up; Ctrl-C is its business
    if args.role in ("serve", "consume") and not args.transport:
        parser.error("--transport is required")
    if args.role == "serve":
        serve(args.transport, args.dir)
    elif args.role == "consume":
        consume(args.transport, args.partition, args.timeout)
    elif args.role == "send":
        if len(args.address) != 1 or not 1 <= args.streams <= 64 or args.bytes < 0:
            parser.error("send needs one --address, 1..64 --streams and --bytes >= 0")
        send(args.family, args.address[0], args.streams, args.bytes, args.rounds)
    else:
        if not args.dir:
            parser.error("--dir is required")
        shm_write(args.dir)


if __name__ == "__main__":
    main()
