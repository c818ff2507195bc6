"""A task that writes its rows to a Parquet file instead of streaming them (``df.write``);
with ``partitionBy``, a file in each ``k=v`` directory it has rows for (``planner.spark.hive``).

The task's rows go to ``<directory>/.part-<task>-<job>.parquet.inprogress`` and, once the
file is closed, are renamed to ``part-<task>-<job>.parquet`` in one step: a reader of the
directory (which lists ``*.parquet``) never sees half a file, and a task run again after a
worker loss replaces its own file rather than adding a second. The directory was checked
against the data roots when the plan arrived (``files.check_output_directory``); it is
checked again here once made, then opened once, and that descriptor checked (its own path
under the roots): every ``k=v`` directory, file and rename goes through it, one component at
a time without following a symlink, so a directory swapped for a link out of the roots
afterwards, or a link planted where a file is made, is never written through. The driver
writes ``_SUCCESS`` once every task has reported (``planner.api.io``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

import pyarrow as pa
import pyarrow.parquet as pq

from sparkwire.coordinator.worker.files import check_output_directory, within
from sparkwire.planner.spark import hive
from sparkwire.planner.logical.plan import WRITE_COLUMNS, ParquetWrite
from sparkwire.transport.errors import PlanRejected

#: The rows a writing task outputs: each file it wrote (relative to the directory) and its rows.
WRITE_SCHEMA = pa.schema([(WRITE_COLUMNS[0], pa.string()), (WRITE_COLUMNS[1], pa.int64())])


def part_name(task: int, job: str) -> str:
    return f"part-{task:05d}-{job}.parquet"


def write_task(target: ParquetWrite, task: int, schema: pa.Schema,
               batches: Iterable[pa.RecordBatch], roots: Sequence[Path]) -> pa.RecordBatch:
    """Write ``batches`` (of ``schema``) as the task's file, or with ``partition_by`` one
    file per partition directory it has rows for; each file's relative path and rows."""
    if len(target.names) != len(schema):
        raise ValueError(f"{len(target.names)} names for {len(schema)} columns")
    check_output_directory(target.directory, roots)
    os.makedirs(target.directory, exist_ok=True)
    check_output_directory(target.directory, roots)
    named = pa.schema([f.with_name(n) for f, n in zip(schema, target.names, strict=True)])
    with _open_directory(target.directory, roots) as top:
        files = _Files(target, task, named, top)
        try:
            for batch in batches:
                files.write(pa.RecordBatch.from_arrays(batch.columns, schema=named))
            written = files.close()
        except BaseException:
            files.abort()
            raise
    return pa.record_batch([list(written), list(written.values())], schema=WRITE_SCHEMA)


@contextlib.contextmanager
def _open_directory(directory: str, roots: Sequence[Path]) -> Iterator[int]:
    """A descriptor of ``directory`` (symlinks resolved, then opened without following
    one), refused unless its own path lies under the roots; closed on exit."""
    try:
        fd = os.open(os.path.realpath(directory), _DIRECTORY)
    except OSError as exc:
        raise PlanRejected(f"cannot write into {directory!r}: {exc.strerror}") from None
    try:
        where = os.readlink(f"/proc/self/fd/{fd}")
        real_roots = [os.path.realpath(root) for root in roots]
        if real_roots and not any(within(where, root) for root in real_roots):
            raise PlanRejected(f"{directory!r} is outside the worker's data roots")
        yield fd
    finally:
        os.close(fd)


def _subdirectory(top: int, where: str) -> int:
    """A new descriptor of ``where`` (``k=v`` parts) under ``top``, made as needed, each
    part opened without following a symlink."""
    fd = os.dup(top)
    try:
        for part in where.split(os.sep):
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, dir_fd=fd)
            inner = os.open(part, _DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


#: Opening a directory to work in: never through a symlink, never inherited.
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class _Files:
    """The task's open files, by relative directory ("" unpartitioned), each written as
    ``.<name>.inprogress`` and renamed once closed, all through descriptors under ``top``."""

    def __init__(self, target: ParquetWrite, task: int, schema: pa.Schema, top: int) -> None:
        self._top = top
        self._name = part_name(task, target.job)
        self._partial = f".{self._name}.inprogress"
        self._keys = list(target.partition_by)
        self._data = pa.schema([f for f in schema if f.name not in self._keys])
        self._open: dict[str, tuple[pq.ParquetWriter, BinaryIO, int]] = {}
        self._rows: dict[str, int] = {}
        if not self._keys:
            self._writer("")  # an unpartitioned task writes its file even with no rows

    def write(self, batch: pa.RecordBatch) -> None:
        if not self._keys:
            self._append("", batch)
            return
        table = pa.Table.from_batches([batch]).append_column(_ROW, pa.array(range(batch.num_rows)))
        groups = table.group_by(self._keys, use_threads=False).aggregate([(_ROW, "list")])
        for group in groups.to_pylist():
            rows = batch.take(pa.array(group[f"{_ROW}_list"], pa.int64()))
            self._append(hive.directory(self._keys, [group[k] for k in self._keys]), rows)

    def _append(self, where: str, batch: pa.RecordBatch) -> None:
        data = batch.select(self._data.names) if self._keys else batch
        self._writer(where)[0].write_batch(data)
        self._rows[where] = self._rows.get(where, 0) + batch.num_rows

    def _writer(self, where: str) -> tuple[pq.ParquetWriter, BinaryIO, int]:
        if where not in self._open:
            folder = _subdirectory(self._top, where) if where else os.dup(self._top)
            try:  # a leftover of an earlier attempt goes; a link planted there is not followed
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self._partial, dir_fd=folder)
                fd = os.open(self._partial, _NEW_FILE, 0o666, dir_fd=folder)
                file = os.fdopen(fd, "wb")
                self._open[where] = (pq.ParquetWriter(file, self._data), file, folder)
            except BaseException:
                os.close(folder)
                raise
            self._rows.setdefault(where, 0)
        return self._open[where]

    def close(self) -> dict[str, int]:
        """Close and publish every file: relative path to rows."""
        written = {}
        for where, (writer, file, folder) in list(self._open.items()):
            writer.close()
            file.close()
            os.replace(self._partial, self._name, src_dir_fd=folder, dst_dir_fd=folder)
            os.close(folder)
            del self._open[where]
            written[os.path.join(where, self._name)] = self._rows[where]
        return written

    def abort(self) -> None:
        for writer, file, folder in self._open.values():
            with contextlib.suppress(OSError, pa.ArrowException):
                writer.close()
            with contextlib.suppress(OSError):
                file.close()
            with contextlib.suppress(OSError):
                os.unlink(self._partial, dir_fd=folder)
            os.close(folder)
        self._open.clear()


#: Making a task's file: a new one, never through a symlink, never inherited.
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_ROW = "__sparkwire_row"
