"""The sparkwire command line.

  demo     run TPC-H Q1 and Q6 on generated data, with the live UI on (its URL printed)
  run      run a query: a .sql file, a Python file or module defining query(session), or a
           built-in TPC-H query
  explain  print a query's stages
  worker   serve one worker (used by clusters)
  coverage count PySpark's public names that work, are refused, or are missing (needs PySpark)

Settings come from --config (or SPARKWIRE_CONFIG), SPARKWIRE_* env vars and the flags below.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
import time
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pyarrow as pa
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from sparkwire.coordinator import coverage
from sparkwire.coordinator.config import load_settings
from sparkwire.coordinator.metrics import QueryMetrics
from sparkwire.coordinator.clusters.serve import add_worker_arguments, serve_until_stopped
from sparkwire.coordinator.session import Session
from sparkwire.coordinator.tpch import QUERIES, TPCH_TABLES, ensure_tpch
from sparkwire.planner.api import refused
from sparkwire.planner.errors import PlanError
from sparkwire.transport.errors import SparkwireError
from sparkwire.transport.security import Security


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sparkwire", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--transport", help="transport name (default from config: memory)")
    parser.add_argument("--workers", type=int, help="number of workers (default from config: 4)")
    parser.add_argument("--config", help="TOML config file (default: $SPARKWIRE_CONFIG)")
    parser.add_argument("--cluster", choices=["local", "process", "spark"],
                        help="where workers run (default: by transport)")
    parser.add_argument("--master", help="Spark master URL for --cluster spark, e.g. local[2]")
    parser.add_argument("--ansi", action=argparse.BooleanOptionalAction, default=None,
                        help="Spark's ANSI mode: errors for division by zero, overflow and "
                        "invalid casts (default from config: on)")
    parser.add_argument("--time-zone", help="Spark's session time zone, an IANA name or an "
                        "offset such as +08:00 (default from config: UTC)")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="run TPC-H Q1 and Q6 on generated data")
    demo.add_argument("--scale", type=float, default=0.1, help="TPC-H scale factor (default 0.1)")
    for name, text in (("run", "run a query"), ("explain", "print a query's stages")):
        command = commands.add_parser(name, help=text)
        if name == "run":
            demo.add_argument("--ui", action=argparse.BooleanOptionalAction, default=True,
                              help="serve the live query UI on the driver (default: on)")
            command.add_argument("--ui", action=argparse.BooleanOptionalAction, default=False,
                                 help="serve the live query UI on the driver (default: off)")
        for runs in (demo, command) if name == "run" else ():
            runs.add_argument(
                "--keep-ui", type=float, default=0.0, metavar="SECONDS",
                help="after the queries, keep serving the UI this long (on a terminal: until "
                "Enter); default 0: a run without a terminal ends at once")
        command.add_argument(
            "query", help="a .sql file; a Python file (.py) or module (a.b) whose "
            "query(session) returns a DataFrame; or a built-in DataFrame query: "
            f"{', '.join(sorted(QUERIES))}",
        )
        command.add_argument(
            "--data", type=Path,
            help="a directory whose Parquet folders and files become tables (temporary views "
            "named after them); default for a .sql file or built-in query: generated TPC-H "
            "data at --scale",
        )
        command.add_argument("--scale", type=float, default=0.1,
                             help="TPC-H scale factor (default 0.1)")
    worker = commands.add_parser(
        "worker", help="serve one worker until stdin closes or SIGTERM (used by clusters)"
    )
    add_worker_arguments(worker)
    connect = commands.add_parser(  # `ui`: a standing cluster to watch, its queries sent by Connect
        "connect", aliases=["ui"], help="serve Spark Connect (sc://HOST:PORT) on a session until "
        "Ctrl-C (as `ui`: with the live UI on)")
    connect.add_argument("--port", type=int, default=15002, help="port (default 15002, Spark's)")
    connect.add_argument("--ui", action=argparse.BooleanOptionalAction, default=False,
                         help="serve the live query UI of this standing driver (its URL printed; "
                         "the port from ui.port, else one the OS picks; default: off)")
    connect.add_argument("--host", default="127.0.0.1",
                         help="address (default 127.0.0.1); off loopback --token-file and TLS are required")
    connect.add_argument("--token-file", type=Path, default=None,
                         help="a file (0600) holding the token clients send (sc://...;token=...)")
    connect.add_argument("--no-tls", action="store_true",
                         help="with a token on loopback: no TLS (clients connect to sc://localhost)")
    for name, what in (("cert", "PEM chain the server presents"), ("key", "its private key (0600)"),
                       ("ca", "PEM roots clients trust")):
        connect.add_argument(f"--{name}-file", type=Path, default=None,
                             help=f"TLS: {what}; none given: a throwaway CA, clients must be given its roots")
    covered = commands.add_parser(
        "coverage", help="count PySpark's public names that work, are refused, or are missing")
    covered.add_argument("--missing", action="store_true", help="list the missing names")
    covered.add_argument("--markdown", action="store_true",
                         help="print README's table of what is refused and why")
    return parser


def _serve_connect(console: Console, args: argparse.Namespace) -> int:
    """``sparkwire connect``: a Spark Connect server on a session made from the flags, until
    Ctrl-C; a PySpark program reaches it with ``SparkSession.builder.remote(address)``."""
    from sparkwire.connect import serve

    try:
        settings = load_settings(args.config, transport=args.transport, overrides_from="flag",
                                 workers=args.workers, ansi=args.ansi, time_zone=args.time_zone)
        security = None if args.token_file is None else Security(
            secret_file=args.token_file, tls=not args.no_tls, cert_file=args.cert_file,
            key_file=args.key_file, ca_file=args.ca_file)
        with ExitStack() as stack:
            session = stack.enter_context(Session(settings=settings, ui=args.ui or args.command == "ui"))
            if session.ui_url is not None:  # printed before Spark Connect answers
                console.print(f"live UI: {session.ui_url}", markup=False)
            server = stack.enter_context(serve(session, args.port, args.host, security=security))
            token = "" if security is None else " (add ;token=<the token file's text>)"
            console.print(f"sparkwire Spark Connect at {server.address}{token} ({session.workers} "
                          "workers); Ctrl-C stops it", markup=False)
            if server.tls_roots is not None and args.cert_file is None:
                console.print("a throwaway CA signed its certificate (for the name "
                              f"{server.server_name}); clients trust it, e.g. with "
                              "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH naming a file of:\n"
                              + server.tls_roots.decode(), markup=False)
            while not server.wait(1.0):
                pass
    except KeyboardInterrupt:
        return 0
    except (SparkwireError, PlanError, OSError, ValueError) as exc:  # ValueError: pydantic's
        console.print(f"[red]error:[/red] {escape(str(exc))}")
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    console = Console(highlight=False)
    if args.command == "worker":
        settings = load_settings(args.config, transport=args.transport)
        return serve_until_stopped(settings, args.worker_id, args.listen, args.host)
    if args.command == "coverage":
        print(refused.markdown() if args.markdown else coverage.render(
            coverage.report(), list_missing=args.missing))
        return 0
    if args.command in ("connect", "ui"):
        return _serve_connect(console, args)
    spark = None
    try:
        kind = _query_kind(args.query) if args.command != "demo" else "builtin"
        settings = load_settings(args.config, transport=args.transport, overrides_from="flag",
                                 workers=args.workers, ansi=args.ansi, time_zone=args.time_zone)
        spark = _spark_session(args.master) if args.cluster == "spark" else None
        data = getattr(args, "data", None)
        if data is None and kind != "python":
            tables = TPCH_TABLES if kind == "sql" else ("lineitem",)
            with console.status(f"TPC-H data at scale {args.scale:g}…"):
                data = ensure_tpch(args.scale, tables=tables)
        ui = getattr(args, "ui", False)
        with Session(settings=settings, cluster=args.cluster, spark=spark, ui=ui) as session:
            if session.ui_url is not None:
                console.print(f"live UI: {session.ui_url}", markup=False)
            queries = _queries(args, kind, session, data)
            if args.command == "explain":
                for df in queries.values():
                    print(df.explain_string())
                return 0
            console.print(
                f"sparkwire {args.command}: {data or args.query}, {session.workers} workers "
                f"({type(session.cluster).__name__}), transport {session.settings.transport.kind}",
                markup=False,
            )
            for name, df in queries.items():
                _run(console, session, name, df)
            if session.ui_url is not None:
                _keep_serving(console, session.ui_url, args.keep_ui)
    except (SparkwireError, PlanError, OSError) as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}")
        return 1
    except _UsageError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}")
        return 2
    finally:
        if spark is not None:
            spark.stop()
    return 0


class _UsageError(Exception):
    """A query argument the command cannot use (exit status 2, as argparse's errors)."""


def _query_kind(query: str) -> str:
    """``sql``, ``python`` (a file or an importable module) or ``builtin``."""
    if query.endswith(".sql"):
        return "sql"
    if query in QUERIES:
        return "builtin"
    if query.endswith(".py") or _importable(query):
        return "python"
    raise _UsageError(
        f"{query!r} is neither a .sql file, a Python file or module, nor one of "
        f"{', '.join(sorted(QUERIES))}"
    )


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module.split(".")[0]) is not None
    except (ImportError, ValueError):
        return False


def _queries(args: argparse.Namespace, kind: str, session: Session, data: Path | None) -> dict[str, Any]:
    """The DataFrames to run or explain, by name; tables under ``data`` become views."""
    if data is not None and kind != "builtin":
        for name, path in _tables(data):
            session.read.parquet(str(path)).createOrReplaceTempView(name)
    if kind == "sql":
        sql_file = Path(args.query)
        return {sql_file.name: session.sql(sql_file.read_text())}
    if kind == "python":
        return {args.query: _python_query(args.query)(session)}
    assert data is not None
    lineitem = session.read.parquet(str(data / "lineitem"))
    names = list(QUERIES) if args.command == "demo" else [args.query]
    return {name: QUERIES[name](lineitem) for name in names}


def _python_query(query: str) -> Any:
    """The ``query`` function of a Python file or an importable module."""
    if query.endswith(".py"):
        path = Path(query)
        if not path.is_file():
            raise OSError(f"no such Python file: {path}")
        spec = importlib.util.spec_from_file_location(f"sparkwire_query_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(query)
    function = getattr(module, "query", None)
    if not callable(function):
        raise _UsageError(f"{query} defines no function query(session) returning a DataFrame")
    return function


def _tables(data: Path) -> list[tuple[str, Path]]:
    """``(name, path)`` of every Parquet folder or file directly in ``data``."""
    found = [
        (entry.stem if entry.is_file() else entry.name, entry)
        for entry in sorted(data.iterdir())
        if not entry.name.startswith((".", "_"))
        and (entry.suffix == ".parquet" or (entry.is_dir() and any(entry.rglob("*.parquet"))))
    ]
    if not found:
        raise OSError(f"no Parquet folders or files in {data}")
    return found


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


def _keep_serving(console: Console, url: str, seconds: float) -> None:
    """Keep the UI up after the queries: ``seconds`` (``--keep-ui``), or until Enter on a
    terminal; neither, as in ``make demo`` run by a script, ends at once."""
    if sys.stdin.isatty() and not seconds:
        console.print(f"the UI stays at {url} until Enter", markup=False)
        sys.stdin.readline()
    elif seconds:
        console.print(f"the UI stays at {url} for {seconds:g} s (Ctrl-C ends it)", markup=False)
        try:
            time.sleep(seconds)
        except KeyboardInterrupt:
            pass


def _run(console: Console, session: Session, name: str, df: object) -> None:
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console, transient=True,
    ) as bars:
        ids: dict[int, TaskID] = {}

        def progress(metrics: QueryMetrics) -> None:
            for stage in metrics.stages.values():
                if stage.stage not in ids:
                    ids[stage.stage] = bars.add_task(
                        escape(f"{name} stage {stage.stage} → {stage.boundary}"), total=stage.tasks
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
    console.print(f"{name}: {result.num_rows} rows in {wall:.3f} s", markup=False)
    stages = Table(title=escape(f"{name} stages"))
    for column in ("stage", "tasks", "boundary", "rows out", "bytes out"):
        stages.add_column(column, justify="right")
    for stage in metrics.stages.values():
        stages.add_row(str(stage.stage), str(stage.tasks), stage.boundary,
                       f"{stage.rows:,}", f"{stage.bytes:,}")
    console.print(stages)
    per_worker = ", ".join(f"{w}: {n}" for w, n in sorted(metrics.tasks_per_worker.items()))
    console.print(f"tasks per worker: {per_worker}\n", markup=False)


def _print_table(console: Console, title: str, table: pa.Table) -> None:
    console.print(f"[bold]{escape(title)}[/bold]")
    console.print(table.slice(0, 20).to_pandas().to_string(index=False), soft_wrap=True,
                  highlight=False, markup=False)


if __name__ == "__main__":
    sys.exit(main())
