"""Partitions shared by a worker's tasks (``coordinator/worker/shared_inputs.py``), paired:
TPC-H joins on in-process workers with sharing on and off, alternating run by run in one
process, so that the machine's drift hits both alike (this project's 2 cores are shared and
a query's CPU seconds move by 15 % from one minute to the next).

    python -m benchmarks.shared_inputs [--scale 1] [--workers 2,8] [--queries q21,q05]
                                       [--transport zmq] [--task-bytes 0] [--rounds 5]

Per query and cluster size: the partitions producers served (opens), the bytes tasks read by
route (``shared``: from their worker's copy), the CPU seconds of the process (driver and
workers: they are in-process) on and off, and the median of the runs' paired ratios. Off is
each task reading every partition from its producer, as before sharing. Every answer is
checked against the first. ``--task-bytes 0`` gives two scan tasks per worker, the shape of
SF10 plans at SF1. Writes ``benchmarks/results/shared_inputs.json`` and ``.png``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pyarrow as pa  # noqa: E402

from benchmarks.common import write  # noqa: E402
from benchmarks.queries import sql_query  # noqa: E402
from sparkwire.coordinator import Session  # noqa: E402
from sparkwire.coordinator.tpch import TPCH_TABLES, ensure_tpch  # noqa: E402
from sparkwire.coordinator.worker.service import Worker  # noqa: E402
from sparkwire.coordinator.worker.shared_inputs import SharedInputs  # noqa: E402
from sparkwire.transport.base import PartitionKey, TransportClient  # noqa: E402
from sparkwire.transport.registry import create_transport  # noqa: E402
from sparkwire.transport.security import Security  # noqa: E402


@contextmanager
def sharing(on: bool) -> Iterator[None]:
    """Sharing on (as shipped), or off: every task reads from the producer itself."""
    if on:
        yield
        return
    shared_read = SharedInputs.read

    def direct(self: SharedInputs, key: PartitionKey, client: TransportClient,
               timeout: float) -> tuple[Any, Callable[[], tuple[str, bool]]]:
        return client.read(key, timeout), lambda: (client.route, False)

    SharedInputs.read = direct  # type: ignore[method-assign]
    try:
        yield
    finally:
        SharedInputs.read = shared_read  # type: ignore[method-assign]


@contextmanager
def counting_opens(opens: Counter[str]) -> Iterator[None]:
    """``opens["data"]``: data partitions (not status ones) the workers serve."""
    serve = Worker.open

    def open(self: Worker, key: PartitionKey, timeout: float) -> Any:
        if key.partition >= 0:
            opens["data"] += 1
        return serve(self, key, timeout)

    Worker.open = open  # type: ignore[method-assign]
    try:
        yield
    finally:
        Worker.open = serve  # type: ignore[method-assign]


def measure(args: argparse.Namespace, workers: int) -> list[dict[str, Any]]:
    data = ensure_tpch(args.scale, tables=TPCH_TABLES)
    transport = (args.transport if args.transport == "memory"
                 else create_transport(args.transport, {}, Security(enabled=False)))
    rows = []
    with Session(workers=workers, transport=transport, task_bytes=args.task_bytes) as session:
        for table in TPCH_TABLES:
            session.read.parquet(str(data / table)).createOrReplaceTempView(table)
        for query in args.queries:
            df = session.sql(sql_query(query))
            cpu: dict[str, list[float]] = {"on": [], "off": []}
            seen: dict[str, dict[str, Any]] = {}
            first: pa.Table | None = None
            for round_ in range(args.rounds + 1):  # round 0 warms up
                for mode in ("on", "off") if round_ % 2 else ("off", "on"):
                    opens: Counter[str] = Counter()
                    with sharing(mode == "on"), counting_opens(opens):
                        started = time.process_time()
                        got = df.toArrow()
                        seconds = time.process_time() - started
                    got = got.sort_by([(name, "ascending") for name in got.column_names])
                    first = first or got
                    if not got.equals(first):
                        raise SystemExit(f"{query} on {workers} workers, sharing {mode}: wrong answer")
                    if round_:
                        cpu[mode].append(seconds)
                        metrics = session.last_metrics
                        assert metrics is not None
                        seen[mode] = {"opens": opens["data"], "bytes_in": dict(metrics.bytes_in),
                                      "tasks": sum(s.tasks for s in metrics.stages.values())}
            ratios = sorted(on / off for on, off in zip(cpu["on"], cpu["off"], strict=True))
            rows.append({"query": query, "workers": workers, "transport": args.transport,
                         "task_bytes": args.task_bytes, "cpu_off_s": cpu["off"], "cpu_on_s": cpu["on"],
                         "cpu_ratio_median": statistics.median(ratios), "cpu_ratios": ratios,
                         "off": seen["off"], "on": seen["on"]})
            print(f"{query} on {workers} workers: opens {seen['off']['opens']} -> "
                  f"{seen['on']['opens']}, CPU ratio {statistics.median(ratios):.2f}", flush=True)
    return rows


def plot(rows: list[dict[str, Any]], path: Any) -> None:
    fig, ax = plt.subplots(figsize=(7, 3.5))
    labels = [f"{r['query']} x{r['workers']}" for r in rows]
    ax.bar(labels, [r["cpu_ratio_median"] for r in rows])
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_ylabel("CPU s, sharing on / off")
    ax.set_title("Partitions shared by a worker's tasks (paired, median)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.shared_inputs")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--workers", type=lambda s: [int(w) for w in s.split(",")], default=[2, 8])
    parser.add_argument("--queries", type=lambda s: s.split(","), default=["q21", "q05"])
    parser.add_argument("--transport", default="zmq")
    parser.add_argument("--task-bytes", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    rows = [row for workers in args.workers for row in measure(args, workers)]
    write("shared_inputs", rows, lambda path: plot(rows, path),
          meta={"note": "CPU seconds of one process (in-process workers); on and off alternate "
                        "run by run; the ratio is the median of the paired runs' ratios",
                "scale": args.scale, "rounds": args.rounds})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
