"""The driver process of one system in an interleaved benchmark (TPC-H, TPC-DS): open it
once, then time queries.

``python -m benchmarks.tpch_serve SYSTEM --data DIR --tables T,... --workers W`` (started by
``benchmarks.interleave``, one per system, so systems never share a heap, a JVM or an allocator).
It says ``{"ready": ...}`` once the tables are registered, then answers each request
``{"query": "q05", "sql": TEXT, "out": PATH}`` with one line: the seconds of the timed call, the result
written to ``PATH`` as an Arrow IPC file for the parent to check, sparkwire's metrics, the
peak RSS of every process of the system during the query, and the CPU seconds of all of
them during the call (``cpu_s``) and since the previous answer (``cpu_between_s``: what
the system spent idle or finishing the last query, while the others ran theirs). A failed query answers
``{"error": ...}`` and the process serves on. It exits when its stdin closes.

Stdout is the protocol and nothing else: file descriptor 1 is pointed at stderr before the
system is opened, so a chatty library, the JVM or a worker process it starts cannot write a
stray line into it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any

import pyarrow as pa

from benchmarks.children import as_child
from benchmarks.tpch_procs import cpu_seconds, peak_rss_mib, reset_peaks
from benchmarks.tpch_systems import System, open_system

MAX_ERROR_CHARS = 4000  # Spark's errors carry JVM stack traces; the head says what failed


def _protocol_channel() -> IO[str]:
    """The real stdout, kept for the protocol; fd 1 and ``sys.stdout`` become stderr."""
    channel = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel


def _say(channel: IO[str], message: dict[str, Any]) -> None:
    channel.write(json.dumps(message) + "\n")
    channel.flush()


def _describe(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS]


def _answer(system: System, request: dict[str, Any], since: float) -> dict[str, Any]:
    """Run one query (timed), write its result, measure the tree's memory and CPU during it;
    ``since`` is the tree's CPU seconds at the end of the previous answer."""
    sql = request["sql"]
    exact = reset_peaks(os.getpid())
    cpu = cpu_seconds(os.getpid())
    started = time.perf_counter()
    table = system.run(sql)
    seconds = time.perf_counter() - started
    cpu_s = cpu_seconds(os.getpid()) - cpu
    with pa.OSFile(request["out"], "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return {"seconds": seconds, "rows": table.num_rows, "metrics": system.metrics(),
            "rss_mib": peak_rss_mib(os.getpid()), "rss_per_query": exact,
            "cpu_s": round(cpu_s, 3), "cpu_between_s": round(cpu - since, 3)}


def main(argv: list[str] | None = None) -> int:
    channel = _protocol_channel()
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tpch_serve")
    parser.add_argument("system")
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--tables", required=True, help="comma-separated folder names in --data")
    parser.add_argument("--workers", type=int, required=True)
    args = parser.parse_args(argv)
    as_child()  # Ctrl-C is the parent's to handle: it closes us
    with ExitStack() as stack:
        started = time.perf_counter()
        try:
            system = open_system(args.system, args.data, args.tables.split(","), args.workers,
                                 stack)
        except Exception as exc:
            traceback.print_exc()
            _say(channel, {"error": f"starting {args.system}: {_describe(exc)}"})
            return 1
        _say(channel, {"ready": True, "pid": os.getpid(), "seconds": time.perf_counter() - started})
        # Block on the parent without a timeout: between two of our queries it runs every
        # other system's, which may take many timeouts' worth; EOF (it is done or gone) ends us.
        since = cpu_seconds(os.getpid())
        for line in sys.stdin:
            try:
                reply = _answer(system, json.loads(line), since)
            except Exception as exc:
                traceback.print_exc()
                reply = {"error": _describe(exc)}
            _say(channel, reply)
            since = cpu_seconds(os.getpid())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
