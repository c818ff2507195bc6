"""The ``sparkwire`` command: ``demo`` and ``explain``."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from sparkwire.coordinator.config import load_settings
from sparkwire.coordinator.execution import QueryMetrics
from sparkwire.coordinator.clusters.hosting import HostedWorker
from sparkwire.coordinator.session import Session
from sparkwire.coordinator.tpch import QUERIES, ensure_tpch
from sparkwire.transport.errors import SparkwireError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sparkwire", description=__doc__)
    parser.add_argument("--transport", help="transport name (default from config: memory)")
    parser.add_argument("--workers", type=int, help="number of workers (default from config: 4)")
    parser.add_argument("--config", help="TOML config file (default: $SPARKWIRE_CONFIG)")
    parser.add_argument("--cluster", choices=["local", "process", "spark"],
                        help="where workers run (default: by transport)")
    parser.add_argument("--master", help="Spark master URL for --cluster spark, e.g. local[2]")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="run TPC-H Q1 and Q6 on generated data")
    demo.add_argument("--scale", type=float, default=0.1, help="TPC-H scale factor (default 0.1)")
    run = commands.add_parser("run", help="run one TPC-H query on generated data")
    run.add_argument("query", choices=sorted(QUERIES))
    run.add_argument("--scale", type=float, default=0.1)
    explain = commands.add_parser("explain", help="print a query's stages")
    explain.add_argument("query", choices=sorted(QUERIES))
    explain.add_argument("--scale", type=float, default=0.1)
    worker = commands.add_parser(
        "worker", help="serve one worker until stdin closes or SIGTERM (used by clusters)"
    )
    worker.add_argument("--listen", help="address to serve at (default: the transport's choice)")
    worker.add_argument("--worker-id", default=f"worker-{os.getpid()}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    console = Console()
    if args.command == "worker":
        return _serve_worker(args)
    spark = _spark_session(args.master) if args.cluster == "spark" else None
    try:
        with console.status(f"TPC-H data at scale {args.scale:g}…"):
            data = ensure_tpch(args.scale)
        with Session(workers=args.workers, transport=args.transport, config_file=args.config,
                     cluster=args.cluster, spark=spark) as session:
            lineitem = session.read.parquet(str(data / "lineitem"))
            if args.command == "explain":
                console.print(QUERIES[args.query](lineitem).explain_string())
                return 0
            console.print(
                f"sparkwire {args.command}: TPC-H SF{args.scale:g}, {session.workers} workers "
                f"({type(session.cluster).__name__}), transport {session.settings.transport.kind}"
            )
            names = [args.query] if args.command == "run" else list(QUERIES)
            for name in names:
                _run(console, session, name, QUERIES[name](lineitem))
    except SparkwireError as exc:
        console.print(f"[red]error:[/red] {exc}")
        return 1
    finally:
        if spark is not None:
            spark.stop()
    return 0


def _spark_session(master: str | None) -> Any:
    """A SparkSession for ``--cluster spark``; executors run this very Python."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("sparkwire").config("spark.ui.enabled", "false")
    if master is not None:
        builder = builder.master(master)
        if master.startswith("local"):
            builder = builder.config("spark.driver.host", "127.0.0.1").config(
                "spark.driver.bindAddress", "127.0.0.1")
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _serve_worker(args: argparse.Namespace) -> int:
    """Serve until the parent closes our stdin (the lifeline), SIGTERM or SIGINT."""
    settings = load_settings(args.config, transport=args.transport)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    hosted = HostedWorker(settings, args.worker_id, args.listen)
    try:
        print(hosted.announcement.model_dump_json(), flush=True)
        threading.Thread(target=lambda: (sys.stdin.buffer.read(), stop.set()), daemon=True).start()
        stop.wait()
    finally:
        hosted.close()
    return 0


def _run(console: Console, session: Session, name: str, df: object) -> None:
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console, transient=True,
    ) as bars:
        ids: dict[int, int] = {}

        def progress(metrics: QueryMetrics) -> None:
            for stage in metrics.stages.values():
                if stage.stage not in ids:
                    ids[stage.stage] = bars.add_task(
                        f"{name} stage {stage.stage} → {stage.boundary}", total=stage.tasks
                    )
                bars.update(ids[stage.stage], completed=stage.done)

        session.progress = progress
        started = time.perf_counter()
        result: pa.Table = df.toArrow()  # type: ignore[attr-defined]
        wall = time.perf_counter() - started
        session.progress = None
    _print_table(console, f"{name} result", result)
    metrics = session.last_metrics
    assert metrics is not None
    console.print(f"{name}: {result.num_rows} rows in {wall:.3f} s")
    stages = Table(title=f"{name} stages")
    for column in ("stage", "tasks", "boundary", "rows out", "bytes out"):
        stages.add_column(column, justify="right")
    for stage in metrics.stages.values():
        stages.add_row(str(stage.stage), str(stage.tasks), stage.boundary,
                       f"{stage.rows:,}", f"{stage.bytes:,}")
    console.print(stages)
    per_worker = ", ".join(f"{w}: {n}" for w, n in sorted(metrics.tasks_per_worker.items()))
    console.print(f"tasks per worker: {per_worker}\n")


def _print_table(console: Console, title: str, table: pa.Table) -> None:
    console.print(f"[bold]{title}[/bold]")
    console.print(table.slice(0, 20).to_pandas().to_string(index=False), soft_wrap=True,
                  highlight=False)


if __name__ == "__main__":
    sys.exit(main())
