"""The harness of the interleaved benchmarks (``benchmarks.tpch``, ``benchmarks.tpcds``,
``benchmarks.scaling``): systems side by side on the same files, every execution checked.

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
(``benchmarks.quiet``, waiting at most ``--quiet-limit`` seconds), so none pays for the work
the one before it left behind. Every result of every run, warm-up included, is checked
against DuckDB's answer computed here once, untimed; a wrong answer makes the exit status 1,
after the results are written. A query sparkwire refuses to plan ("not supported") is
recorded as such, not as a failure of the run.

What is run, TPC-H or TPC-DS, is a ``benchmarks.workloads.Workload``.
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
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

import pyarrow as pa

from benchmarks.common import write_report
from benchmarks.quiet import LIMIT_S, Quiet
from benchmarks.tpch_drivers import Driver, QueryTimeout
from benchmarks.tpch_report import markdown, plot, totals
from benchmarks.tpch_systems import SYSTEMS, DuckDb
from benchmarks.workloads import Workload
from tests.e2e.conftest import rows_close

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
#: The words of sparkwire's error for SQL or API it does not plan yet (``PlanError``): such a
#: query is recorded as ``unsupported``, beside the failures, and listed in the report.
UNSUPPORTED = "not supported by sparkwire"



@dataclass(frozen=True)
class Plan:
    """What one benchmark run measures."""

    workload: Workload
    scale: float
    queries: tuple[str, ...]
    systems: tuple[str, ...]
    workers: int
    runs: int
    timeout: float
    quiet_limit: float = LIMIT_S


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


def reference_answers(workload: Workload, data: Path, queries: tuple[str, ...]) -> dict[str, pa.Table]:
    """DuckDB's answers, the oracle every result is checked against (untimed, all CPUs)."""
    oracle = DuckDb(os.cpu_count() or 1, data, list(workload.tables))
    try:
        return {q: oracle.run(workload.duckdb_sql(q)) for q in queries}
    finally:
        oracle.con.close()


def mismatch(got: pa.Table, want: pa.Table, names: bool = True) -> str | None:
    """Why ``got`` is not ``want`` (None if it is): column names ignoring case (with
    ``names``; else only their number), then rows in any order with numbers within 1e-6
    (``rows_close``: values, not Arrow types, since Spark answers with decimals and other
    integer widths)."""
    if names and [c.casefold() for c in got.column_names] != [c.casefold() for c in want.column_names]:
        return f"columns {got.column_names}, expected {want.column_names}"
    if got.num_columns != want.num_columns:
        return f"{got.num_columns} columns, expected {want.num_columns}"
    if got.num_rows != want.num_rows:
        return f"{got.num_rows} rows, expected {want.num_rows}"
    return None if rows_close(got, want) else "rows differ (beyond 1e-6 relative)"


def execute(driver: Driver, workload: Workload, query: str, run: int | str, cell: Cell,
            want: pa.Table, out: Path, timeout: float) -> None:
    """One execution of ``query`` on ``driver``'s system, checked and recorded in ``cell``."""
    def fail(kind: str, message: str) -> None:
        cell.errors.append({"run": run, "kind": kind, "message": message})
        print(f"  {query} {driver.label:<20} {kind.upper()}: {message.splitlines()[0][:200]}",
              flush=True)

    if cell.timed_out:
        cell.skipped += 1
        return
    try:
        reply = driver.run(query, workload.sql(query, driver.system), out, timeout)
        with pa.OSFile(str(out)) as source:
            got = pa.ipc.open_file(source).read_all()
    except QueryTimeout as exc:
        cell.timed_out = True
        return fail("timeout", str(exc))
    except Exception as exc:  # the driver's error, or it died: recorded, the run goes on
        if UNSUPPORTED in str(exc):  # sparkwire's own words: which construct, and where
            return fail("unsupported", str(exc).removeprefix(f"{driver.label}: "))
        return fail("failed", f"{type(exc).__name__}: {exc}")
    finally:
        out.unlink(missing_ok=True)
    cell.measured(reply)
    if (problem := mismatch(got, want, workload.names_checked)) is not None:
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


def interleave(workload: Workload, scale: float, queries: tuple[str, ...],
               contenders: list[Contender], runs: int, timeout: float,
               quiet_limit: float = LIMIT_S) -> Interleaved:
    """Every contender's driver up side by side, then for each run (a warm-up, then
    ``runs``), for each query, each contender in turn on a quiet machine (waiting at most
    ``quiet_limit`` s), every answer checked against DuckDB's."""
    data = workload.data(scale)
    print(f"== {workload.title} SF{scale:g} ({data}): {', '.join(c.label for c in contenders)}",
          flush=True)
    expected = reference_answers(workload, data, queries)
    cells = {q: {c.label: Cell() for c in contenders} for q in queries}
    with ExitStack() as stack:
        stack.callback(_restore, {s: signal.getsignal(s) for s in STOP_SIGNALS})  # runs last
        scratch = Path(tempfile.mkdtemp(prefix=f"sw{workload.slug}-"))  # short: shm puts sockets under it
        stack.callback(shutil.rmtree, scratch, True)
        drivers = [stack.enter_context(Driver(c.system, data, workload.tables, c.workers,
                                              scratch, c.label)) for c in contenders]
        stack.push(_shield)  # runs first
        for driver in drivers:
            driver.spawn()  # side by side: Spark alone takes ~20 s to start
        for driver in drivers:
            started = driver.ready()
            print(f"  {driver.label:<20} " + (f"up in {driver.startup_s[-1]:.1f}s" if started
                                              else f"FAILED to start: {driver.start_error}"),
                  flush=True)
        quiet = Quiet(limit_s=quiet_limit)
        for run in ["warm-up", *range(1, runs + 1)]:
            print(f"-- run {run}", flush=True)
            for query in queries:
                for driver in drivers:
                    quiet.wait()
                    execute(driver, workload, query, run, cells[query][driver.label],
                            expected[query], scratch / f"{driver.label}-{query}.arrow", timeout)
        startup = {d.label: d.startup_s for d in drivers}
    recorded = {q: {label: c.to_json(runs) for label, c in by_label.items()}
                for q, by_label in cells.items()}
    wrong = [{"query": q, "system": label, "run": e["run"], "problem": e["message"]}
             for q, by_label in recorded.items() for label, cell in by_label.items()
             for e in cell["errors"] if e["kind"] == "wrong"]
    return Interleaved(data, recorded, wrong, startup, quiet.to_json())


def bench(plan: Plan) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run ``plan``: (meta, results) ready for JSON."""
    done = interleave(plan.workload, plan.scale, plan.queries,
                      [Contender(s, s, plan.workers) for s in plan.systems], plan.runs,
                      plan.timeout, plan.quiet_limit)
    meta = {"benchmark": plan.workload.title, "scale": plan.scale, "workers": plan.workers, "runs": plan.runs,
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


def save(plan: Plan, meta: dict[str, Any], results: dict[str, Any]) -> Path:
    """``<slug>-sf{N}.json``, ``.png`` and ``.md`` (``tpch-sf1.json``); the table is printed
    too."""
    return write_report(f"{plan.workload.slug}-sf{plan.scale:g}", results, meta, plot, markdown)




def names(text: str, known: tuple[str, ...], what: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown {what} {unknown}; expected some of "
                                         f"{', '.join(known)}")
    return names


def arguments(workload: Workload, prog: str, doc: str | None,
              systems: tuple[str, ...] = SYSTEMS) -> argparse.ArgumentParser:
    """The options of a benchmark of ``workload`` (``systems`` by default), to which its
    ``main`` may add; ``plan`` reads them."""
    parser = argparse.ArgumentParser(prog=prog, description=(doc or "").split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0,
                        help=f"{workload.title} scale factor (default 1)")
    parser.add_argument("--queries", type=lambda t: names(t, workload.queries, "queries"),
                        default=workload.queries,
                        help=f"comma-separated, e.g. q01,q05 (default all {len(workload.queries)})")
    parser.add_argument("--systems", type=lambda t: names(t, SYSTEMS, "systems"), default=systems,
                        help=f"comma-separated subset of {','.join(SYSTEMS)} (default "
                             f"{','.join(systems)})")
    parser.add_argument("--workers", type=int, default=2, help="workers / threads per system")
    parser.add_argument("--runs", type=int, default=3, help="timed runs after one warm-up")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per query")
    parser.add_argument("--quiet-limit", type=float, default=LIMIT_S,
                        help=f"seconds to wait at most for a quiet machine before each execution "
                             f"(default {LIMIT_S:g}; lower on a machine others keep busy)")
    return parser


def plan_from(workload: Workload, parser: argparse.ArgumentParser, args: argparse.Namespace) -> Plan:
    """The run ``args`` (parsed by ``arguments``' parser) ask for, checked."""
    if args.workers < 1 or args.runs < 1 or args.timeout <= 0 or args.quiet_limit < 0:
        parser.error("--workers and --runs must be at least 1, --timeout positive, "
                     "--quiet-limit not negative")
    return Plan(workload, args.scale, args.queries, args.systems, args.workers, args.runs,
                args.timeout, args.quiet_limit)


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

