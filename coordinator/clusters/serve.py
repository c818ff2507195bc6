"""A worker process's entry point: ``python -m sparkwire.coordinator.clusters.serve``, which
``ProcessCluster`` starts, and ``sparkwire worker`` on the command line.

It imports what serving a worker needs and nothing else: not the command line's rich output,
the session, or the planner's user surface, which ``coordinator.cli`` loads for its other
commands (11 MB of a worker's resident memory, ``benchmarks/fixed_costs.py``).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Sequence

from sparkwire.coordinator.clusters.hosting import HostedWorker
from sparkwire.coordinator.config import Settings, load_settings


def add_worker_arguments(parser: argparse.ArgumentParser) -> None:
    """Where the worker serves and its id: the options of ``sparkwire worker`` and of this
    module's ``main``."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--listen", help="address to serve at (default: the transport's choice)")
    where.add_argument("--host", help="interface to serve on, port chosen by the OS")
    parser.add_argument("--worker-id", default=f"worker-{os.getpid()}")


def serve_until_stopped(settings: Settings, worker_id: str, listen: str | None,
                        host: str | None) -> int:
    """Serve until the parent closes our stdin (the lifeline), SIGTERM or SIGINT."""
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    hosted = HostedWorker(settings, worker_id, listen, host)

    def lifeline() -> None:
        sys.stdin.buffer.read()  # returns once the parent closed our stdin (or died)
        stop.set()

    try:
        print(hosted.announcement.model_dump_json(), flush=True)
        threading.Thread(target=lifeline, daemon=True).start()
        stop.wait()
    finally:
        hosted.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m sparkwire.coordinator.clusters.serve",
        description="Serve one worker until stdin closes or SIGTERM (what clusters start).")
    parser.add_argument("--config", help="TOML config file (default: $SPARKWIRE_CONFIG)")
    parser.add_argument("--transport", help="transport name (default from config: memory)")
    add_worker_arguments(parser)
    args = parser.parse_args(argv)
    settings = load_settings(args.config, transport=args.transport)
    return serve_until_stopped(settings, args.worker_id, args.listen, args.host)


if __name__ == "__main__":
    sys.exit(main())
