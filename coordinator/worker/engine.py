"""The worker's DuckDB: one locked-down database per worker, a cursor per task.

Opening and locking down a DuckDB database costs ~27 ms; a cursor on an open one ~0.4 ms.
With 3-8 stages per query and several tasks per stage, a database per task was most of a
small query's time, so a worker keeps one database open and gives each task a cursor.
Registered inputs and interruption are per cursor, so a task can be cancelled, or fail,
without touching its neighbours, and nothing a task registers is visible to another.
One database at work at a time is also what makes the worker's memory bound hold: DuckDB's
``memory_limit`` is per database, so the database-per-set-of-directories LRU this replaced
could use its limit once per open database (two in a plain join: scans and exchange-only
tasks). A task waiting on no other may run on a second database with more threads, but never
while the first is at work (``Databases``).

Lock-down, applied when the database opens and then frozen with ``lock_configuration``:

- threads from ``EngineSettings`` (resolved by ``WorkerSettings.threads``), the memory
  limit from the worker's memory plan (``coordinator.worker.memory``); spilling goes to a
  private temporary directory under ``EngineSettings.temp_directory``, removed on close;
- no extension is installed or loaded, automatically or otherwise (ICU, for time zones, is
  built in); DuckDB's ``TimeZone`` is UTC whatever the machine's (``worker.compile.zones``);
- Python replacement scans are off, so a query can only read tables registered here;
- ``enable_external_access=false`` with ``allowed_directories`` set to the data roots:
  DuckDB refuses any file outside them (``..`` included). The roots are
  ``EngineSettings.data_roots``; a worker without them may read any directory (``/``),
  and then ``worker.files.check_files`` (resolved real paths, regular files only) is the
  whole check. A worker that faces the network must have roots (``clusters.hosting``).
  DuckDB opens no path a plan names: only descriptors the task opened and checked as it
  started (``open_files``, ``worker.opened``).

Row groups: a scan whose splits name row groups is read by DuckDB's own Parquet reader too,
restricted to those row groups' row ranges by a filter on ``file_row_number``, on which
DuckDB skips every other row group (``register_row_groups``). It used to go through a
``pyarrow.dataset``, whose reader held about three row groups of decoded Arrow memory per
scan, outside DuckDB's memory limit and outside the file lock-down.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import duckdb
import pyarrow as pa
from sqlglot import exp

from sparkwire.coordinator.config import EngineSettings
from sparkwire.coordinator.worker.compile import FileList, spark_error
from sparkwire.coordinator.worker.compile.sizes import VALUE_BYTES_VARIABLE, row_value_bytes
from sparkwire.coordinator.worker.opened import OpenedFiles, links_dir
from sparkwire.coordinator.worker.row_groups import row_group_sql
from sparkwire.planner.logical.sources import FileSplit
from sparkwire.transport.errors import TaskFailed
from sparkwire.transport.closing import Closeable

__all__ = [
    "BatchStream",
    "Databases",
    "EngineError",
    "EngineInterrupted",
    "EngineSettings",
    "TaskEngine",
]

#: How often and how long ``TaskEngine.interrupt`` repeats itself while a query starts: the
#: repeats end as ``run`` returns, which an interrupt that reached DuckDB makes at once; the
#: cap only bounds the thread where DuckDB takes longer to begin (binding a large stage).
REPEAT_INTERRUPT_EVERY = 0.002
REPEAT_INTERRUPT_FOR = 30.0


class EngineError(TaskFailed):
    """DuckDB refused or failed a task's query; the message is DuckDB's, the cause chained."""


class EngineInterrupted(EngineError):
    """The query was stopped by ``TaskEngine.interrupt`` (a cancelled task)."""


class Databases(Closeable):
    """The worker's DuckDB, opened on first use; ``task`` gives each task a cursor of its own.

    Tasks run side by side on one database with ``threads``: DuckDB runs a query on the
    calling thread and the database's ``threads - 1`` others, so a worker whose slots are all
    busy runs ``threads - 1 + slots`` threads (``WorkerSettings.threads`` sizes it so that
    this is the worker's cores). A task alone on the worker would use only ``threads`` of
    them, yet DuckDB's thread count is the database's (``SET SESSION threads`` is refused,
    and the lock-down freezes ``SET GLOBAL``), so a task may run on a second, *wide*
    database that has ``wide_threads``, as many as the busy worker runs: TPC-H Q22, a
    one-task plan on two cores, took 0.68 of its time, Q11 0.73 (paired, in-process
    workers). The two never run at once, which keeps the worker's DuckDB memory within one
    ``memory_limit``: a ``wide`` task takes the second database only when no task is
    running (else it runs on the first like any other), and a task arriving meanwhile waits
    for it, as it would for a busy slot. That wait must end, so the caller asks for ``wide``
    only for a task that waits on no other task once started: its inputs already in hand
    (``service.Worker._run``); a task writes its output to the partition store, which
    spills rather than blocks, so it never waits for its readers either.

    Thread-safe. After ``close`` each database closes when its last cursor does.
    """

    def __init__(self, settings: EngineSettings, temp_parent: Path, memory_limit: int,
                 wide_threads: int = 0) -> None:
        if settings.threads < 1:
            raise ValueError("a database's threads are resolved first (WorkerSettings.threads)")
        self._settings = settings
        self._temp_parent = temp_parent
        self._memory_limit = memory_limit
        self._wide_threads = wide_threads
        # Both databases' threads may be at work at once (a busy worker's slots' threads
        # join the shared one's), and each holds a vector: values made per row fit them all.
        self.value_bytes = row_value_bytes(memory_limit, max(settings.threads, wide_threads))
        self._gate = threading.Condition()
        self._shared: _Database | None = None
        self._wide: _Database | None = None
        self._running = 0  # cursors open on the shared database
        self._running_wide = False
        self._closed = False

    @property
    def widens(self) -> bool:
        """Whether a wide task gets more threads than the others."""
        return self._wide_threads > self._settings.threads

    def task(self, wide: bool = False) -> TaskEngine:
        """A cursor of its own for one task; ``wide``: the task may have the wide database,
        since it waits on no other task once it runs."""
        with self._gate:
            while True:
                if self._closed:
                    raise EngineError("the worker's engine is closed")
                if (wide and self.widens
                        and not self._running and not self._running_wide):
                    self._wide = self._wide or self._open(self._wide_threads)
                    engine = TaskEngine(self._settings, self._wide, self._wide_done)
                    self._running_wide = True
                    return engine
                if not self._running_wide:
                    self._shared = self._shared or self._open(self._settings.threads)
                    engine = TaskEngine(self._settings, self._shared, self._shared_done)
                    self._running += 1
                    return engine
                self._gate.wait()  # notified when the wide task closes, or on close

    def _open(self, threads: int) -> _Database:
        roots = [str(Path(r).absolute()) for r in self._settings.data_roots] or ["/"]
        return _Database(self._settings, threads, self._memory_limit, roots, self._temp_parent,
                         self.value_bytes)

    def _shared_done(self) -> None:
        with self._gate:
            self._running -= 1

    def _wide_done(self) -> None:
        with self._gate:
            self._running_wide = False
            self._gate.notify_all()

    def close(self) -> None:
        with self._gate:
            self._closed = True
            databases = [d for d in (self._shared, self._wide) if d is not None]
            self._shared = self._wide = None
            self._gate.notify_all()
        for database in databases:
            database.release()


class _Database:
    """The locked-down DuckDB database; closed once released and its last cursor is gone."""

    def __init__(self, settings: EngineSettings, threads: int, memory_limit: int,
                 roots: list[str], temp_parent: Path, value_bytes: int) -> None:
        self._lock = threading.Lock()
        self.value_bytes = value_bytes
        self._cursors = 0
        self._released = False
        self.threads = threads
        self.temp = tempfile.mkdtemp(prefix="sparkwire-duckdb-", dir=temp_parent)
        self.links = links_dir(Path(self.temp))  # for its tasks' partitioned scans
        try:
            self.conn = duckdb.connect(
                ":memory:",
                config={
                    "threads": threads,
                    "memory_limit": f"{max(memory_limit >> 20, 1)}MiB",
                    "autoload_known_extensions": False,
                    "autoinstall_known_extensions": False,
                    "allow_unsigned_extensions": False,
                    "allow_community_extensions": False,
                    "python_enable_replacements": False,
                    "preserve_insertion_order": True,
                    # a task's files are /proc/self/fd/N, another file each task: no local
                    # file is cached by path (off by default; pinned)
                    "cache_local_files": False,
                },
            )
        except duckdb.Error as exc:
            self._remove_dirs()
            raise EngineError(f"cannot open DuckDB: {exc}") from exc
        try:
            # Values travel as bound parameters, never as SQL text. The order matters:
            # external access off needs the allow-list first, and the lock comes last.
            self.conn.execute("SET temp_directory = ?", [self.temp])
            # Instants come out as Arrow timestamp[us, tz=UTC] and nothing depends on this
            # machine's zone: the session zone is named in every conversion (worker.compile.zones).
            # GLOBAL, since each task's cursor is a session of its own.
            self.conn.execute("SET GLOBAL TimeZone = 'UTC'")
            self.conn.execute("SET allowed_directories = ?", [roots])
            self.conn.execute("SET enable_external_access = false")
            self.conn.execute("SET lock_configuration = true")
        except duckdb.Error as exc:
            self._close()
            raise EngineError(f"cannot configure DuckDB: {exc}") from exc

    def cursor(self) -> duckdb.DuckDBPyConnection:
        with self._lock:
            self._cursors += 1
        return self.conn.cursor()

    def done(self, cursor: duckdb.DuckDBPyConnection) -> None:
        try:
            cursor.close()
        except duckdb.Error:
            pass
        with self._lock:
            self._cursors -= 1
            last = self._released and not self._cursors
        if last:
            self._close()

    def release(self) -> None:
        with self._lock:
            self._released = True
            last = not self._cursors
        if last:
            self._close()

    def _close(self) -> None:
        try:
            self.conn.close()
        except duckdb.Error:
            pass
        self._remove_dirs()

    def _remove_dirs(self) -> None:
        shutil.rmtree(self.links, ignore_errors=True)
        shutil.rmtree(self.temp, ignore_errors=True)


class TaskEngine(Closeable):
    """One task's cursor: register inputs, run the compiled query, close.

    ``run`` may be iterated on one thread while ``interrupt`` is called from another (the
    worker's cancel path); everything else belongs to the thread that owns the task.
    """

    def __init__(self, settings: EngineSettings, database: _Database,
                 done: Callable[[], None]) -> None:
        self._settings = settings
        self._database = database
        self._done = done
        self._interrupted = threading.Event()
        #: Set while ``run`` starts a query: DuckDB forgets an interrupt that lands before
        #: its query begins, a moment this thread cannot see from outside.
        self._starting = threading.Event()
        self._closed = False
        self._files: OpenedFiles | None = None
        self._conn = database.cursor()
        self._bounded_calls = 0  # the calls the cursor's bound on values is shared among

    @property
    def threads(self) -> int:
        """The threads of the database the task runs on (DuckDB's ``threads`` setting)."""
        return self._database.threads

    @property
    def connection(self) -> duckdb.DuckDBPyConnection:
        """The raw cursor, for tests and diagnostics; the lock-down still applies."""
        return self._conn

    def register(self, name: str, source: object) -> None:
        """Expose an Arrow source (a ``RecordBatchReader``, scanned once without copying; a
        table; a dataset) as table ``name`` for the query."""
        try:
            self._conn.register(name, source)
        except duckdb.Error as exc:
            raise EngineError(f"cannot register {name!r}: {exc}") from exc

    def open_files(self, files: Sequence[str], lists: Sequence[FileList]) -> None:
        """Open and check ``files`` (``OpenedFiles``: ``PlanRejected`` for one that fails),
        held until ``close`` or the next call (its query done), and bind each reader call's
        list to their descriptors."""
        if self._files is not None:
            self._files.close()
        self._files = OpenedFiles(files, self._settings.data_roots, self._database.links)
        for listed in lists:
            locate = self._files.hive_path if listed.hive else self._files.path
            try:  # a variable of this cursor's session alone
                self._conn.execute(f"SET VARIABLE {listed.variable} = ?::VARCHAR[]",
                                   [[locate(path) for path in listed.paths]])
            except duckdb.Error as exc:
                raise EngineError(f"cannot bind the task's files: {exc}") from exc

    def register_row_groups(self, name: str, splits: Sequence[FileSplit]) -> None:
        """Expose exactly these row groups (whole files where none are listed), read through
        ``open_files``' descriptors, as view ``name``: a TEMP one, the cursor's alone."""
        if self._files is None:
            raise EngineError("a task's files are opened before its row groups are read")
        view = exp.to_identifier(name, quoted=True).sql("duckdb")
        try:  # TEMP: tasks on other cursors use the same names
            self._conn.execute(f"CREATE TEMP VIEW {view} AS {row_group_sql(splits, self._files.path)}")
        except (duckdb.Error, OSError, ValueError, pa.ArrowException) as exc:
            raise EngineError(f"cannot read Parquet row groups: {self.named(str(exc))}") from exc

    def named(self, message: str) -> str:
        """``message`` naming the task's files as its plan does (``OpenedFiles.named``)."""
        return message if self._files is None else self._files.named(message)

    def run(self, sql: str, bounded_calls: int = 0) -> BatchStream:
        """Start the query and stream its result in batches of about ``batch_rows`` rows;
        ``bounded_calls``: the calls whose values share the worker's bound on a row's
        (``CompiledFragment.bounded_calls``).

        DuckDB errors and interruption surface as ``EngineError`` / ``EngineInterrupted``,
        from this call (binding, first rows) or from any later ``next()``. A cursor holds
        one open result: exhaust or ``close()`` a stream before the next ``run``.
        """
        self._starting.set()
        try:
            if self._interrupted.is_set():
                raise EngineInterrupted("the task was interrupted before its query started")
            if bounded_calls != self._bounded_calls:
                self._bound_values(bounded_calls)
            reader = self._conn.sql(sql).to_arrow_reader(self._settings.batch_rows)
        except duckdb.Error as exc:
            raise self._translate(exc) from exc
        finally:
            self._starting.clear()
        return BatchStream(self, reader)

    def _bound_values(self, calls: int) -> None:
        """Give the cursor the bound on values made per row (``compile.sizes``), shared by
        the query's ``calls``: a variable of its session alone, set only for a query that makes
        such calls, since setting one costs ~210 us of CPU, 60x the cursor."""
        share = self._database.value_bytes // max(calls, 1)
        self._conn.execute(f"SET VARIABLE {VALUE_BYTES_VARIABLE} = ?", [share])
        self._bounded_calls = calls

    def _translate(self, exc: BaseException) -> EngineError:
        interrupted = isinstance(exc, duckdb.InterruptException) or str(exc).startswith("INTERRUPT")
        if interrupted or self._interrupted.is_set():
            return EngineInterrupted(f"the task's query was interrupted: {exc}")
        message = self.named(str(exc))
        if (spark := spark_error(message)) is not None:
            return EngineError(spark)
        return EngineError(f"DuckDB failed the task's query: {message}")

    def interrupt(self) -> None:
        """Stop the running query (safe from any thread); later ``run`` calls fail at once.

        DuckDB clears a connection's interrupt when a query begins, so one that lands while
        ``run`` is starting the query (parsing, binding: milliseconds, more for a large
        stage) was lost, and the task ran to its end; 2 to 7 in 21 early interrupts were,
        measured. While ``run`` is starting, the interrupt is repeated from a thread of its
        own until ``run`` returns: an interrupt after the query began stops it."""
        self._interrupted.set()
        self._interrupt_connection()
        if self._starting.is_set():
            threading.Thread(target=self._repeat_interrupt, name="sparkwire-interrupt",
                             daemon=True).start()

    def _repeat_interrupt(self) -> None:
        deadline = time.monotonic() + REPEAT_INTERRUPT_FOR
        while self._starting.is_set() and time.monotonic() < deadline:
            self._interrupt_connection()
            time.sleep(REPEAT_INTERRUPT_EVERY)

    def _interrupt_connection(self) -> None:
        if not self._closed:
            try:
                self._conn.interrupt()
            except duckdb.Error:
                pass  # closed concurrently: nothing left to stop

    def close(self) -> None:
        """Close the cursor (the database stays open for the next task); safe twice."""
        if self._closed:
            return
        self._closed = True
        try:
            self._database.done(self._conn)
        finally:
            if self._files is not None:
                self._files.close()  # once DuckDB's query is gone with the cursor
            self._done()


class BatchStream(Iterator[pa.RecordBatch]):
    """The batches of one running query; ``schema`` is known even when no batch comes."""

    def __init__(self, engine: TaskEngine, reader: pa.RecordBatchReader) -> None:
        self._engine = engine
        self._reader: pa.RecordBatchReader | None = reader
        self.schema: pa.Schema = reader.schema

    def __next__(self) -> pa.RecordBatch:
        if self._reader is None:
            raise StopIteration
        if self._engine._interrupted.is_set():
            # interrupt() may land between two batches, while DuckDB is idle.
            self.close()
            raise EngineInterrupted("the task's query was interrupted")
        try:
            return self._reader.read_next_batch()
        except StopIteration:
            self.close()
            raise
        except (duckdb.Error, pa.ArrowException, OSError) as exc:
            # Mid-stream, DuckDB errors cross the Arrow C stream and arrive as pyarrow's
            # OSError carrying DuckDB's message (interruption included).
            self.close()
            raise self._engine._translate(exc) from exc

    def close(self) -> None:
        """Release the result early (a consumer that stops reading); safe to call twice."""
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.close()
