"""The child processes of the transport measurements: the other end of every transport pipe.

``python -m benchmarks.producer --role ROLE`` is started by ``benchmarks.transports``; it
talks to its parent in JSON lines (stdout out, stdin in, see ``benchmarks.children``) and
exits when its stdin closes.

- ``serve`` (default): serve a ``BenchService`` over ``--transport NAME``; announce
  ``{"address", "pid"}``. Partitions are filled on command through ``deliver()``.
- ``consume``: connect to every address of the first line ``{"addresses": [...]}`` (so it can
  start while its producers do); then for each ``{"query_id": ...}`` line on stdin,
  read partition ``--partition`` of task ``i`` from producer ``i``, all producers at once
  (one thread each), touch every batch and answer bytes, rows and monotonic start/end (the
  parent computes the shuffle's aggregate rate on that shared clock).

The children of the physical references live with them, in ``benchmarks.references``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
from pathlib import Path

from benchmarks.children import LINE_TIMEOUT, as_child, commands, say, wait_for_eof
from benchmarks.common import as_worker_process
from benchmarks.data import read_partition
from benchmarks.service import BenchService


def serve(transport_name: str, scratch: str | None) -> None:
    """Serve until the parent closes our stdin."""
    from sparkwire.coordinator.config import load_settings
    from sparkwire.transport.registry import create_transport

    security = load_settings().transport.security  # the parent's (benchmarks.common)
    with tempfile.TemporaryDirectory(prefix="sparkwire-bench-", dir=scratch) as spill, \
            create_transport(transport_name, security=security) as transport:
        service = BenchService(Path(spill))
        server = transport.serve(service)
        try:
            say({"address": server.address, "pid": os.getpid()})
            wait_for_eof()
        finally:
            server.close()
            service.close()


def consume(transport_name: str, partition: int, timeout: float) -> None:
    """Read one consumer's share of each shuffle round the parent names."""
    from sparkwire.coordinator.config import load_settings
    from sparkwire.transport.base import PartitionKey
    from sparkwire.transport.registry import create_transport

    lines = commands()
    with create_transport(transport_name, security=load_settings().transport.security) as transport:
        first = next(lines, None)
        if first is None:
            return
        addresses = first.get("addresses")
        if (set(first) != {"addresses"} or not isinstance(addresses, list)
                or not 1 <= len(addresses) <= 64 or not all(isinstance(a, str) for a in addresses)):
            raise ValueError(f"bad connect command {first!r}")
        clients = [transport.connect(address) for address in addresses]
        say({"ready": True})
        for command in lines:
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
            say({"bytes": sum(r[0] for r in done), "rows": sum(r[1] for r in done),
                 "start": start, "end": end, "error": "; ".join(errors) or None})
        for client in clients:
            client.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.producer", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--role", choices=("serve", "consume"), default="serve")
    parser.add_argument("--transport", required=True, help="transport name")
    parser.add_argument("--partition", type=int, default=0, help="partition to read (consume)")
    parser.add_argument("--timeout", type=float, default=60.0, help="read timeout, s (consume)")
    parser.add_argument("--dir", help="directory for spill files (serve)")
    args = parser.parse_args(argv)
    as_child()
    as_worker_process()
    if args.role == "serve":
        serve(args.transport, args.dir)
    else:
        consume(args.transport, args.partition, args.timeout)


if __name__ == "__main__":
    main()
