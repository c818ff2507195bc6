"""The per-task DuckDB runner: one locked-down in-process connection per task.

Why one connection per task: settings, registered inputs and interruption are all
per-connection in DuckDB, so a task can be cancelled, or fail, without touching its
neighbours, and nothing a task registers is visible to another.

Lock-down, applied before any query runs and then frozen with ``lock_configuration``:

- threads and memory limit from ``EngineSettings``; spilling goes to a private temporary
  directory under ``EngineSettings.temp_directory``, removed on close;
- no extension is installed or loaded, automatically or otherwise;
- Python replacement scans are off, so a query can only read tables registered here;
- ``enable_external_access=false`` with ``allowed_paths`` set to exactly the task's input
  files: DuckDB refuses any other file, even a sibling in the same directory. (The brief
  suggested ``allowed_directories``; ``allowed_paths`` is narrower and works the same.)

Row groups: DuckDB's ``read_parquet`` cannot select row groups, so a scan whose splits name
row groups is read through a ``pyarrow.dataset`` of exactly those row groups
(``row_group_dataset``), registered under the name the compiler chose. Pyarrow opens those
files itself, outside DuckDB's file lock-down; the paths come from the same compiled
fragment that decides ``allowed_paths``, so the set of readable files is the same.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.fs as pafs

from sparkwire.coordinator.config import EngineSettings
from sparkwire.planner.plan import FileSplit
from sparkwire.transport.errors import TaskFailed
from sparkwire.transport.closing import Closeable

__all__ = [
    "BatchStream",
    "EngineError",
    "EngineInterrupted",
    "EngineSettings",
    "TaskEngine",
    "row_group_dataset",
]


class EngineError(TaskFailed):
    """DuckDB refused or failed a task's query; the message is DuckDB's, the cause chained."""


class EngineInterrupted(EngineError):
    """The query was stopped by ``TaskEngine.interrupt`` (a cancelled task)."""


def row_group_dataset(splits: Sequence[FileSplit]) -> ds.Dataset:
    """A dataset reading exactly the listed row groups (whole files where none are listed).

    The schema is the first file's; a task's splits come from one logical table.
    """
    if not splits:
        raise ValueError("a row-group dataset needs at least one split")
    fmt = ds.ParquetFileFormat()
    fs = pafs.LocalFileSystem()
    fragments = [
        fmt.make_fragment(
            split.path,
            filesystem=fs,
            row_groups=list(split.row_groups) if split.row_groups is not None else None,
        )
        for split in splits
    ]
    return ds.FileSystemDataset(
        fragments, schema=fragments[0].physical_schema, format=fmt, filesystem=fs
    )


class TaskEngine(Closeable):
    """One DuckDB connection for one task: register inputs, run the compiled query, close.

    ``run`` may be iterated on one thread while ``interrupt`` is called from another (the
    worker's cancel path); everything else belongs to the thread that owns the task.
    """

    def __init__(self, settings: EngineSettings, files: Iterable[str] = ()) -> None:
        self._settings = settings
        self._interrupted = threading.Event()
        self._closed = False
        self._temp = tempfile.mkdtemp(prefix="sparkwire-task-", dir=settings.temp_directory)
        allowed = sorted({str(Path(f).absolute()) for f in files})
        try:
            self._conn = duckdb.connect(
                ":memory:",
                config={
                    "threads": settings.threads,
                    "memory_limit": settings.memory_limit.strip(),
                    "autoload_known_extensions": False,
                    "autoinstall_known_extensions": False,
                    "allow_unsigned_extensions": False,
                    "allow_community_extensions": False,
                    "python_enable_replacements": False,
                    "preserve_insertion_order": True,
                },
            )
        except duckdb.Error as exc:
            shutil.rmtree(self._temp, ignore_errors=True)
            raise EngineError(f"cannot open DuckDB: {exc}") from exc
        try:
            # Values travel as bound parameters, never as SQL text. The order matters:
            # external access off needs the allow-list first, and the lock comes last.
            self._conn.execute("SET temp_directory = ?", [self._temp])
            self._conn.execute("SET allowed_paths = ?", [allowed])
            self._conn.execute("SET enable_external_access = false")
            self._conn.execute("SET lock_configuration = true")
        except duckdb.Error as exc:
            self.close()
            raise EngineError(f"cannot configure DuckDB: {exc}") from exc

    @property
    def connection(self) -> duckdb.DuckDBPyConnection:
        """The raw connection, for tests and diagnostics; the lock-down still applies."""
        return self._conn

    def register(self, name: str, source: object) -> None:
        """Expose an Arrow source (a ``RecordBatchReader``, scanned once without copying; a
        table; a dataset) as table ``name`` for the query."""
        try:
            self._conn.register(name, source)
        except duckdb.Error as exc:
            raise EngineError(f"cannot register {name!r}: {exc}") from exc

    def run(self, sql: str) -> BatchStream:
        """Start the query and stream its result in batches of about ``batch_rows`` rows.

        DuckDB errors and interruption surface as ``EngineError`` / ``EngineInterrupted``,
        from this call (binding, first rows) or from any later ``next()``. A connection
        holds one open result: exhaust or ``close()`` a stream before the next ``run``.
        """
        if self._interrupted.is_set():
            raise EngineInterrupted("the task was interrupted before its query started")
        try:
            reader = self._conn.sql(sql).to_arrow_reader(self._settings.batch_rows)
        except duckdb.Error as exc:
            raise self._translate(exc) from exc
        return BatchStream(self, reader)

    def _translate(self, exc: BaseException) -> EngineError:
        interrupted = isinstance(exc, duckdb.InterruptException) or str(exc).startswith("INTERRUPT")
        if interrupted or self._interrupted.is_set():
            return EngineInterrupted(f"the task's query was interrupted: {exc}")
        return EngineError(f"DuckDB failed the task's query: {exc}")

    def interrupt(self) -> None:
        """Stop the running query (safe from any thread); later ``run`` calls fail at once."""
        self._interrupted.set()
        if not self._closed:
            try:
                self._conn.interrupt()
            except duckdb.Error:
                pass  # closed concurrently: nothing left to stop

    def close(self) -> None:
        """Close the connection and delete the spill directory; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        conn = getattr(self, "_conn", None)
        if conn is not None:
            try:
                conn.close()
            except duckdb.Error:
                pass
        shutil.rmtree(self._temp, ignore_errors=True)



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
