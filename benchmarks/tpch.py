"""TPC-H on sparkwire against Spark SQL and DuckDB, in one run on the same files.

    python -m benchmarks.tpch [--scale 1] [--queries q01,q05] [--systems duckdb,spark-sql]
                              [--workers 2] [--runs 3] [--timeout 600] [--scaling]

Systems (``benchmarks.tpch_systems``): sparkwire over each transport (``sparkwire-memory``,
``-shm``, ``-zmq``, ``-flight``), sparkwire hosted in Spark executors (``sparkwire-spark``),
Spark SQL itself (``spark-sql``) and one DuckDB connection (``duckdb``), all with the same
parallelism. Each has its own driver process for the whole run (``benchmarks.tpch_drivers``),
so no two share a heap, a JVM or an allocator, and one that hangs or dies costs only the
query it was running: over ``--timeout`` its process tree is killed and restarted, the
error recorded, and the run goes on (a query that timed out is not retried on that system).

Executions are interleaved (for each run, a warm-up then ``--runs``, for each query, for
each system) so that drift of the machine (other load, page cache, clock) hits every system
alike instead of whichever runs last, and each execution starts on a quiet machine
(``benchmarks.quiet``), so none pays for the work the one before it left behind. Every
result of every run, warm-up included, is checked against DuckDB's answer computed here
once, untimed; a wrong answer makes the exit status 1, after the results are written.

Writes ``benchmarks/results/tpch-sf{N}.json``, ``.png`` and ``.md`` (``benchmarks.tpch_report``).
``--scaling`` then runs sparkwire-memory, sparkwire-zmq and duckdb at SF 0.1, 1 and 10 (the
main run's scale reused; SF10 is ~3.5 GB of Parquet, generated on first use) and writes
``tpch-scaling.json``/``.png``: how time grows with the data. How it shrinks with workers
is ``benchmarks.scaling``, on the same harness (``interleave``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import tempfile
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

import pyarrow as pa

from benchmarks.common import write, write_report
from benchmarks.queries import QUERY_NAMES, sql_query
from benchmarks.quiet import Quiet
from benchmarks.tpch_drivers import Driver, QueryTimeout
from benchmarks.tpch_report import markdown, plot, plot_scaling, scaling, scaling_markdown, totals
from benchmarks.tpch_systems import SYSTEMS, DuckDb
from sparkwire.coordinator.tpch import TPCH_TABLES, ensure_tpch
from tests.e2e.conftest import rows_close

SCALING_SYSTEMS = ("sparkwire-memory", "sparkwire-zmq", "duckdb")
SCALING_SCALES = (0.1, 1.0, 10.0)
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
RSS_NOTE = ("VmHWM of each process of the system (driver, workers, JVM, PySpark workers), "
            "reset before each query, so a query's peak; a process that exits during the query "
            "is missed")
CPU_NOTE = ("cpu_s: user + system CPU seconds of every process of the system (driver, workers, "
            "JVM), threads and reaped children included, over the timed call, median of the "
            "timed runs; cpu_between_s: the same since the system's previous query ended")
#: What a cell keeps of sparkwire's metrics of its last correct execution
#: (``tpch_systems.Sparkwire.metrics``); None for the other systems.
METRICS = ("stages", "tasks", "pieces", "boundary_bytes", "bytes_by_boundary", "bytes_in")


@dataclass(frozen=True)
class Plan:
    """What one benchmark run measures."""

    scale: float
    queries: tuple[str, ...]
    systems: tuple[str, ...]
    workers: int
    runs: int
    timeout: float


@dataclass(frozen=True)
class Contender:
    """One driver of an interleaved run: ``system`` with ``workers`` workers (or threads),
    its results recorded under ``label`` (the system, or ``system@workers`` in a sweep)."""

    label: str
    system: str
    workers: int


@dataclass
class Cell:
    """One query on one system, over the whole run."""

    runs: list[float] = field(default_factory=list)  # seconds of correct timed executions
    cpu: list[float] = field(default_factory=list)  # CPU seconds of the tree, same executions
    cpu_between: list[float] = field(default_factory=list)  # of the tree, since its last query
    errors: list[dict[str, Any]] = field(default_factory=list)
    peak_rss_mib: dict[str, float] = field(default_factory=dict)
    peak_rss_tree_mib: float = 0.0  # the highest sum over the tree within one execution
    metrics: dict[str, Any] | None = None
    phases: dict[str, list[float]] = field(default_factory=dict)
    skipped: int = 0
    timed_out: bool = False

    def succeeded(self, reply: dict[str, Any], timed: bool) -> None:
        if timed:
            self.runs.append(reply["seconds"])
            self.cpu.append(reply["cpu_s"])
            self.cpu_between.append(reply["cpu_between_s"])
        metrics = reply.get("metrics")
        if metrics:
            self.metrics = metrics
            if timed:
                for phase, seconds in metrics.get("phases", {}).items():
                    self.phases.setdefault(phase, []).append(seconds)

    def measured(self, reply: dict[str, Any]) -> None:
        rss = reply.get("rss_mib", {})
        for label, mib in rss.items():
            self.peak_rss_mib[label] = max(self.peak_rss_mib.get(label, 0.0), mib)
        self.peak_rss_tree_mib = max(self.peak_rss_tree_mib, round(sum(rss.values()), 1))

    def to_json(self, runs: int) -> dict[str, Any]:
        m = self.metrics or {}
        return {"ok": len(self.runs) == runs,
                "median": _median(self.runs), "min": round(min(self.runs), 4) if self.runs else None,
                "max": round(max(self.runs), 4) if self.runs else None,
                "runs": [round(s, 4) for s in self.runs],
                "cpu_s": _median(self.cpu), "cpu_runs": [round(s, 3) for s in self.cpu],
                "cpu_between_s": _median(self.cpu_between),
                "peak_rss_mib": dict(sorted(self.peak_rss_mib.items())),
                "peak_rss_tree_mib": self.peak_rss_tree_mib or None,
                **{k: m.get(k) for k in METRICS},
                "phases": {k: round(statistics.median(v), 4) for k, v in self.phases.items()},
                "errors": self.errors, "skipped_runs": self.skipped}


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 4) if values else None


def reference_answers(data: Path, queries: tuple[str, ...]) -> dict[str, pa.Table]:
    """DuckDB's answers, the oracle every result is checked against (untimed, all CPUs)."""
    oracle = DuckDb(os.cpu_count() or 1, data, list(TPCH_TABLES))
    try:
        return {q: oracle.run(sql_query(q)) for q in queries}
    finally:
        oracle.con.close()


def mismatch(got: pa.Table, want: pa.Table) -> str | None:
    """Why ``got`` is not ``want`` (None if it is): column names ignoring case, then rows in
    any order with numbers within 1e-6 (``rows_close``: values, not Arrow types, since Spark
    answers with decimals and other integer widths)."""
    if [c.casefold() for c in got.column_names] != [c.casefold() for c in want.column_names]:
        return f"columns {got.column_names}, expected {want.column_names}"
    if got.num_rows != want.num_rows:
        return f"{got.num_rows} rows, expected {want.num_rows}"
    return None if rows_close(got, want) else "rows differ (beyond 1e-6 relative)"


def execute(driver: Driver, query: str, run: int | str, cell: Cell, want: pa.Table,
            out: Path, timeout: float) -> None:
    """One execution of ``query`` on ``driver``'s system, checked and recorded in ``cell``."""
    def fail(kind: str, message: str) -> None:
        cell.errors.append({"run": run, "kind": kind, "message": message})
        print(f"  {query} {driver.label:<20} {kind.upper()}: {message.splitlines()[0][:200]}",
              flush=True)

    if cell.timed_out:
        cell.skipped += 1
        return
    try:
        reply = driver.run(query, out, timeout)
        with pa.OSFile(str(out)) as source:
            got = pa.ipc.open_file(source).read_all()
    except QueryTimeout as exc:
        cell.timed_out = True
        return fail("timeout", str(exc))
    except Exception as exc:  # the driver's error, or it died: recorded, the run goes on
        return fail("failed", f"{type(exc).__name__}: {exc}")
    finally:
        out.unlink(missing_ok=True)
    cell.measured(reply)
    if (problem := mismatch(got, want)) is not None:
        return fail("wrong", problem)
    cell.succeeded(reply, timed=run != "warm-up")
    print(f"  {query} {driver.label:<20} {reply['seconds']:9.3f}s {reply['cpu_s']:8.2f} CPU-s",
          flush=True)


@dataclass
class Interleaved:
    """What an interleaved run recorded, JSON-ready: per query, per contender's label, a
    cell (``Cell.to_json``); the wrong answers; each driver's start-up seconds; the quiet
    waits."""

    data: Path
    queries: dict[str, dict[str, dict[str, Any]]]
    wrong: list[dict[str, Any]]
    startup_s: dict[str, list[float]]
    quiet: dict[str, float | int]


def interleave(scale: float, queries: tuple[str, ...], contenders: list[Contender], runs: int,
               timeout: float) -> Interleaved:
    """Every contender's driver up side by side, then for each run (a warm-up, then
    ``runs``), for each query, each contender in turn on a quiet machine, every answer
    checked against DuckDB's."""
    data = ensure_tpch(scale, TPCH_TABLES)
    print(f"== TPC-H SF{scale:g} ({data}): {', '.join(c.label for c in contenders)}", flush=True)
    expected = reference_answers(data, queries)
    cells = {q: {c.label: Cell() for c in contenders} for q in queries}
    with ExitStack() as stack:
        stack.callback(_restore, {s: signal.getsignal(s) for s in STOP_SIGNALS})  # runs last
        scratch = Path(tempfile.mkdtemp(prefix="swtpch-"))  # short: shm puts sockets under it
        stack.callback(shutil.rmtree, scratch, True)
        drivers = [stack.enter_context(Driver(c.system, data, TPCH_TABLES, c.workers, scratch,
                                              c.label)) for c in contenders]
        stack.push(_shield)  # runs first
        for driver in drivers:
            driver.spawn()  # side by side: Spark alone takes ~20 s to start
        for driver in drivers:
            started = driver.ready()
            print(f"  {driver.label:<20} " + (f"up in {driver.startup_s[-1]:.1f}s" if started
                                              else f"FAILED to start: {driver.start_error}"),
                  flush=True)
        quiet = Quiet()
        for run in ["warm-up", *range(1, runs + 1)]:
            print(f"-- run {run}", flush=True)
            for query in queries:
                for driver in drivers:
                    quiet.wait()
                    execute(driver, query, run, cells[query][driver.label], expected[query],
                            scratch / f"{driver.label}-{query}.arrow", timeout)
        startup = {d.label: d.startup_s for d in drivers}
    recorded = {q: {label: c.to_json(runs) for label, c in by_label.items()}
                for q, by_label in cells.items()}
    wrong = [{"query": q, "system": label, "run": e["run"], "problem": e["message"]}
             for q, by_label in recorded.items() for label, cell in by_label.items()
             for e in cell["errors"] if e["kind"] == "wrong"]
    return Interleaved(data, recorded, wrong, startup, quiet.to_json())


def bench(plan: Plan) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run ``plan``: (meta, results) ready for JSON."""
    done = interleave(plan.scale, plan.queries,
                      [Contender(s, s, plan.workers) for s in plan.systems], plan.runs,
                      plan.timeout)
    meta = {"scale": plan.scale, "workers": plan.workers, "runs": plan.runs,
            "timeout_s": plan.timeout, "systems": list(plan.systems), "queries": list(plan.queries),
            "data": str(done.data), "versions": versions(), "rss": RSS_NOTE, "cpu": CPU_NOTE,
            "quiet": done.quiet}
    results = {"queries": done.queries, **totals(done.queries, list(plan.systems)),
               "startup_s": done.startup_s, "wrong": done.wrong}
    return meta, results


def _shield(*exc: object) -> None:
    """From here on, while the drivers are closed and the scratch removed, ignore Ctrl-C and
    SIGTERM: a second interrupt must not cut the cleanup short and leave processes behind."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)


def _restore(handlers: dict[int, Any]) -> None:
    for sig, handler in handlers.items():
        signal.signal(sig, handler)


def versions() -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for package in ("sparkwire", "duckdb", "pyspark", "pyarrow"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            found[package] = None
    return found


def save(meta: dict[str, Any], results: dict[str, Any]) -> Path:
    """``tpch-sf{N}.json``, ``.png`` and ``.md``; the table is printed too."""
    return write_report(f"tpch-sf{meta['scale']:g}", results, meta, plot, markdown)


def run_scaling(plan: Plan, main: dict[str, Any], runs: int) -> bool:
    """SCALING_SYSTEMS at SF 0.1, 1 and 10 (``runs`` timed runs each), reusing what the
    main run measured at its scale; writes ``tpch-scaling``. True if every answer was right."""
    per_scale: dict[float, dict[str, dict[str, Any]]] = {}
    right = True
    for scale in sorted({plan.scale, *SCALING_SCALES}):
        reuse = [s for s in SCALING_SYSTEMS if scale == plan.scale and s in plan.systems]
        cells = {q: {s: main["queries"][q][s] for s in reuse} for q in plan.queries}
        missing = tuple(s for s in SCALING_SYSTEMS if s not in reuse)
        if missing:
            _, results = bench(replace(plan, scale=scale, systems=missing, runs=runs))
            right = right and not results["wrong"]
            for q in plan.queries:
                cells[q].update(results["queries"][q])
        per_scale[scale] = cells
    summary = scaling(per_scale, list(SCALING_SYSTEMS))
    meta = {"workers": plan.workers, "runs": plan.runs, "scaling_runs": runs, "timeout_s": plan.timeout,
            "queries": list(plan.queries), "versions": versions()}
    path = write("tpch-scaling", summary, lambda png: plot_scaling(meta, summary, png), meta)
    print("\n" + scaling_markdown(summary) + f"\n\nwrote {path} and {path.with_suffix('.png')}",
          flush=True)
    return right


def names(text: str, known: tuple[str, ...], what: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown {what} {unknown}; expected some of "
                                         f"{', '.join(known)}")
    return names


def parse(argv: list[str] | None) -> tuple[Plan, int | None]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tpch",
                                     description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="TPC-H scale factor (default 1)")
    parser.add_argument("--queries", type=lambda t: names(t, QUERY_NAMES, "queries"),
                        default=QUERY_NAMES, help="comma-separated, e.g. q01,q05 (default all 22)")
    parser.add_argument("--systems", type=lambda t: names(t, SYSTEMS, "systems"), default=SYSTEMS,
                        help=f"comma-separated subset of {','.join(SYSTEMS)} (default all)")
    parser.add_argument("--workers", type=int, default=2, help="workers / threads per system")
    parser.add_argument("--runs", type=int, default=3, help="timed runs after one warm-up")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per query")
    parser.add_argument("--scaling", action="store_true",
                        help=f"also {', '.join(SCALING_SYSTEMS)} at SF 0.1, 1 and 10 (data size; "
                             "for a sweep of workers see benchmarks.scaling)")
    parser.add_argument("--scaling-runs", type=int, default=None,
                        help="timed runs at the extra scales (default --runs)")
    args = parser.parse_args(argv)
    if args.workers < 1 or args.runs < 1 or args.timeout <= 0:
        parser.error("--workers and --runs must be at least 1, --timeout positive")
    plan = Plan(args.scale, args.queries, args.systems, args.workers, args.runs, args.timeout)
    return plan, (args.scaling_runs or args.runs) if args.scaling else None


def _interrupt(signum: int, frame: FrameType | None) -> NoReturn:
    raise KeyboardInterrupt  # SIGTERM unwinds like Ctrl-C: every driver is killed, scratch removed


def guarded(work: Callable[[], bool]) -> int:
    """Run ``work`` (True if every answer was right) as a benchmark's main: SIGTERM unwinds
    like Ctrl-C, so every driver is killed and the scratch removed; 130 if interrupted, 1 if
    any answer was wrong, else 0."""
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        right = work()
    except KeyboardInterrupt:
        print("\ninterrupted: every driver killed, scratch removed", flush=True)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    if not right:
        print("WRONG ANSWERS (see 'wrong' in the JSON)", flush=True)
    return 0 if right else 1


def main(argv: list[str] | None = None) -> int:
    """Run, write, print; 1 if any answer was wrong, else 0."""
    plan, scaling_runs = parse(argv)

    def work() -> bool:
        meta, results = bench(plan)
        save(meta, results)
        right = not results["wrong"]
        if scaling_runs is not None:
            right = run_scaling(plan, results, scaling_runs) and right
        return right

    return guarded(work)


if __name__ == "__main__":
    raise SystemExit(main())
