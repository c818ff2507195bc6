"""TPC-H over a sweep of worker counts: does each worker added make sparkwire faster?

    python -m benchmarks.scaling [--scale 1] [--workers 1,2,4,8,16]
                                 [--systems duckdb,sparkwire-memory,sparkwire-zmq,sparkwire-flight]
                                 [--queries q01,q05] [--runs 1] [--timeout 600]
    python -m benchmarks.scaling --replot benchmarks/results/scaling-sf10.json

Each system runs at each worker count against DuckDB given as many threads (issue 33: on 16
cores sparkwire got slower with more workers while DuckDB got 2.5x faster). One driver per
(system, workers), all up for the whole run, so every execution is interleaved with every
other as in ``benchmarks.tpch`` (whose harness this is: ``benchmarks.interleave``, its drivers, quiet
waits and answers checked against DuckDB's). Drift of the machine then hits every worker
count alike, which matters most on 2 cores, where the signal is the CPU curve: wall time
cannot fall below what 2 cores allow, but CPU seconds that grow with workers are overhead.
On a machine with the cores, the wall curve is the signal.

Per query and in total, per system and worker count: wall seconds, CPU seconds of all the
system's processes (driver and workers, ``tpch_procs.cpu_seconds``), sparkwire's tasks,
stages, pieces (batches) and bytes written across stage boundaries, bytes read by tasks
(its ``last_metrics``), and the peak RSS of the whole tree. Writes
``benchmarks/results/scaling-sf{N}.json``, ``.png`` (speedup curves and ratios) and ``.md``
(tables and the targets of issue 33 as pass/fail lines; ``benchmarks.scaling_report``).

All drivers stay up at once: 1+2+4+8+16 worker processes for each process transport, so
about 31 idle workers per transport at the default sweep (~170 MB each). Spark is not
swept: the 16-core machine of ``../shared/tools/device-bench`` has no PySpark.
``device-bench`` brings back the JSON and the markdown; ``--replot`` draws the PNG from the
JSON here.
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import write_report
from benchmarks.queries import QUERY_NAMES
from benchmarks.scaling_report import REFERENCE, judge, label, markdown, plot, summarize
from benchmarks.interleave import CPU_NOTE, RSS_NOTE, Contender, guarded, interleave, names, versions
from benchmarks.tpch_systems import SPARKWIRE_TRANSPORTS
from benchmarks.workloads import TPCH

#: What may be swept: DuckDB (always, the reference) and sparkwire over each transport.
SWEEPABLE = (REFERENCE, *(f"sparkwire-{t}" for t in SPARKWIRE_TRANSPORTS))
DEFAULT_SYSTEMS = (REFERENCE, "sparkwire-memory", "sparkwire-zmq", "sparkwire-flight")
DEFAULT_WORKERS = (1, 2, 4, 8, 16)


@dataclass(frozen=True)
class Sweep:
    """What one scaling run measures."""

    scale: float
    queries: tuple[str, ...]
    systems: tuple[str, ...]
    workers: tuple[int, ...]
    runs: int
    timeout: float

    def contenders(self) -> list[Contender]:
        """Each system at each worker count, by workers then system: a query is run over
        the whole sweep before the next starts."""
        return [Contender(label(s, w), s, w) for w in self.workers for s in self.systems]


def bench(sweep: Sweep) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run ``sweep``: (meta, results) ready for JSON, the targets judged."""
    done = interleave(TPCH, sweep.scale, sweep.queries, sweep.contenders(), sweep.runs,
                      sweep.timeout)
    meta = {"scale": sweep.scale, "workers": list(sweep.workers), "runs": sweep.runs,
            "timeout_s": sweep.timeout, "systems": list(sweep.systems),
            "queries": list(sweep.queries), "cpus": os.cpu_count(), "data": str(done.data),
            "versions": versions(), "rss": RSS_NOTE, "cpu": CPU_NOTE, "quiet": done.quiet}
    summary = summarize(done.queries, list(sweep.systems), list(sweep.workers))
    results = {"queries": done.queries, **summary, "targets": judge(summary, meta),
               "startup_s": done.startup_s, "wrong": done.wrong}
    return meta, results


def save(meta: dict[str, Any], results: dict[str, Any]) -> Path:
    """``scaling-sf{N}.json``, ``.png`` and ``.md``; the summary is printed too."""
    return write_report(f"scaling-sf{meta['scale']:g}", results, meta, plot, markdown)


def replot(path: Path) -> None:
    """The PNG and markdown of a result file again, next to it (``device-bench`` brings
    back only the JSON and the markdown of a run on the bigger machine)."""
    recorded = json.loads(path.read_text())
    meta, results = recorded["meta"], recorded["results"]
    plot(meta, results, path.with_suffix(".png"))
    path.with_suffix(".md").write_text(markdown(meta, results) + "\n")
    print(f"wrote {path.with_suffix('.png')} and {path.with_suffix('.md')}", flush=True)


def worker_counts(text: str) -> tuple[int, ...]:
    """``"4,1,2"`` -> ``(1, 2, 4)``: positive, each once, ascending."""
    try:
        counts = sorted({int(n) for n in text.split(",") if n.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}")
    if not counts or counts[0] < 1:
        raise argparse.ArgumentTypeError(f"worker counts must be at least 1, got {text!r}")
    return tuple(counts)


def parse(argv: list[str] | None) -> Sweep | Path:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scaling",
                                     description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="TPC-H scale factor (default 1)")
    parser.add_argument("--workers", type=worker_counts, default=DEFAULT_WORKERS,
                        help="comma-separated worker counts (DuckDB: threads), default "
                             + ",".join(map(str, DEFAULT_WORKERS)))
    parser.add_argument("--systems", type=lambda t: names(t, SWEEPABLE, "systems"),
                        default=DEFAULT_SYSTEMS,
                        help=f"comma-separated subset of {','.join(SWEEPABLE)} (default "
                             f"{','.join(DEFAULT_SYSTEMS)}); {REFERENCE} is always run")
    parser.add_argument("--queries", type=lambda t: names(t, QUERY_NAMES, "queries"),
                        default=QUERY_NAMES, help="comma-separated, e.g. q01,q05 (default all 22)")
    parser.add_argument("--runs", type=int, default=1, help="timed runs after one warm-up")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per query")
    parser.add_argument("--replot", type=Path, metavar="JSON",
                        help="draw the PNG and write the markdown of a result file; run nothing")
    args = parser.parse_args(argv)
    if args.replot is not None:
        return args.replot
    if args.runs < 1 or args.timeout <= 0:
        parser.error("--runs must be at least 1, --timeout positive")
    systems = (REFERENCE, *(s for s in args.systems if s != REFERENCE))
    return Sweep(args.scale, args.queries, systems, args.workers, args.runs, args.timeout)


def main(argv: list[str] | None = None) -> int:
    """Run, write, print; 1 if any answer was wrong, else 0."""
    sweep = parse(argv)
    if isinstance(sweep, Path):
        replot(sweep)
        return 0

    def work() -> bool:
        meta, results = bench(sweep)
        save(meta, results)
        return not results["wrong"]

    return guarded(work)


if __name__ == "__main__":
    raise SystemExit(main())
