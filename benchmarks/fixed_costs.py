"""Per-worker fixed costs (issue 33, cause 5): what the driver pays at a query's end for each
worker, the driver's threads during a query, and the memory an idle worker process holds.

    python -m benchmarks.fixed_costs [--workers 2 16] [--queries 15] [--sessions 3]

- **query end**: a small two-stage query (a generated range in a task per worker,
  aggregated through a shuffle: ``task_bytes=0`` keeps it from being cut to one task, so
  every worker runs three tasks) after a warm-up, ``--queries`` times per cluster; per query the
  wall and driver CPU seconds of the whole query and of its end (``QueryCoordinator.cancel``,
  which every query calls when its result closes), and the most threads the driver held
  while it ran. In-process workers (memory transport) and worker processes (zmq), at each
  ``--workers``. Medians: the 2-core machine this runs on is shared and noisy.
- **idle worker**: ``VmRSS`` of each zmq worker process of a fresh cluster that has run
  nothing, and again after one query has loaded what tasks need; ``--sessions`` clusters of
  2 workers. The target is under 80 MB idle (``TARGET_IDLE_MB``). Beside it, the anonymous
  part (``RssAnon``, the process's own) and ``Pss`` (shared pages divided among the
  processes mapping them): libraries such as libarrow and DuckDB are mapped by every worker
  and counted whole in each one's ``VmRSS``, so a sum of ``VmRSS`` over 16 workers counts
  them 16 times.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.common import write

#: An idle worker process's resident memory should stay under this (issue 33).
TARGET_IDLE_MB = 80.0


def _status_mb(pid: int) -> dict[str, float]:
    """``VmRSS``, ``RssAnon`` (``/proc/<pid>/status``) and ``Pss`` (``smaps_rollup``) of a
    process, in MB."""
    found = {}
    for path, names in ((f"/proc/{pid}/status", ("VmRSS", "RssAnon")),
                        (f"/proc/{pid}/smaps_rollup", ("Pss",))):
        with open(path) as lines:
            for line in lines:
                name, _, value = line.partition(":")
                if name in names:
                    found[name] = int(value.split()[0]) / 1024
    return found


def _query(session: Any, workers: int) -> Any:
    from sparkwire import functions as F

    return (session.range(0, 20_000, numPartitions=workers)
            .groupBy((F.col("id") % 97).alias("k")).agg(F.count("*").alias("n")))


class _Ends:
    """Wraps a session's ``QueryCoordinator.cancel``: the wall and process CPU of each call,
    and the driver's thread count at each call and each progress report."""

    def __init__(self, session: Any) -> None:
        self.walls: list[float] = []
        self.cpus: list[float] = []
        self.threads = 0
        coordinator = session._coordinator
        cancel: Callable[[str], None] = coordinator.cancel

        def timed(query_id: str) -> None:
            self.sample()
            wall, cpu = time.perf_counter(), time.process_time()
            cancel(query_id)
            self.walls.append(time.perf_counter() - wall)
            self.cpus.append(time.process_time() - cpu)

        coordinator.cancel = timed
        session.progress = lambda metrics: self.sample()

    def sample(self) -> None:
        self.threads = max(self.threads, threading.active_count())


def query_end(transport: str, workers: int, queries: int) -> dict[str, Any]:
    """Medians over ``queries`` runs of the query on one cluster (see the module docstring)."""
    from sparkwire import Session

    with Session(workers=workers, transport=transport, task_bytes=0) as session:
        df = _query(session, workers)
        df.toArrow()  # warm: clients, pools, the workers' imports
        ends = _Ends(session)
        idle_threads = threading.active_count()
        walls, cpus, end_walls, end_cpus = [], [], [], []
        for _ in range(queries):
            ends.walls.clear()
            ends.cpus.clear()
            wall, cpu = time.perf_counter(), time.process_time()
            df.toArrow()
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
            end_walls.append(sum(ends.walls))  # a failed query may cancel twice
            end_cpus.append(sum(ends.cpus))
    return {
        "transport": transport, "workers": workers, "queries": queries,
        "query_wall_ms": 1e3 * statistics.median(walls),
        "query_driver_cpu_ms": 1e3 * statistics.median(cpus),
        "end_wall_ms": 1e3 * statistics.median(end_walls),
        "end_driver_cpu_ms": 1e3 * statistics.median(end_cpus),
        "driver_threads_idle": idle_threads,
        "driver_threads_max": ends.threads,
    }


def idle_workers(sessions: int) -> dict[str, Any]:
    """Resident memory of zmq worker processes before and after their first query."""
    from sparkwire import Session

    idle: list[dict[str, float]] = []
    loaded: list[dict[str, float]] = []
    for _ in range(sessions):
        with Session(workers=2, transport="zmq") as session:
            pids = [a.pid for a in session.cluster.announcements]
            time.sleep(0.5)  # whatever a worker does after announcing itself, it has done
            idle += [_status_mb(pid) for pid in pids]
            _query(session, 2).toArrow()
            loaded += [_status_mb(pid) for pid in pids]

    def median(rows: list[dict[str, float]], name: str) -> float:
        return statistics.median(row[name] for row in rows)

    return {
        "idle_vmrss_mb": median(idle, "VmRSS"), "idle_rssanon_mb": median(idle, "RssAnon"),
        "idle_pss_mb": median(idle, "Pss"),
        "loaded_vmrss_mb": median(loaded, "VmRSS"), "loaded_rssanon_mb": median(loaded, "RssAnon"),
        "loaded_pss_mb": median(loaded, "Pss"),
        "processes": len(idle), "target_idle_mb": TARGET_IDLE_MB,
        "idle_under_target": median(idle, "VmRSS") < TARGET_IDLE_MB,
    }


def _plot(ends: list[dict[str, Any]]) -> Callable[[Path], None]:
    def plot(path: Path) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, (wall, cpu) = plt.subplots(1, 2, figsize=(9, 3.5))
        labels = [f"{row['transport']}\n{row['workers']} workers" for row in ends]
        wall.bar(labels, [row["end_wall_ms"] for row in ends])
        wall.set_title("a query's end (cancel): wall ms")
        cpu.bar(labels, [row["end_driver_cpu_ms"] for row in ends])
        cpu.set_title("... driver CPU ms")
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)

    return plot


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[2, 16])
    parser.add_argument("--queries", type=int, default=15)
    parser.add_argument("--sessions", type=int, default=3)
    parser.add_argument("--transports", nargs="+", default=["memory", "zmq"])
    args = parser.parse_args(argv)
    ends = []
    for workers in args.workers:
        for transport in args.transports:
            row = query_end(transport, workers, args.queries)
            print(row, flush=True)
            ends.append(row)
    memory = idle_workers(args.sessions)
    print(memory, flush=True)
    result = {"query_end": ends, "idle_worker": memory}
    write("fixed-costs", result, _plot(ends),
          meta={"what": "per-worker fixed costs: a query's end, driver threads, idle worker RSS"})
    return result


if __name__ == "__main__":
    main()
