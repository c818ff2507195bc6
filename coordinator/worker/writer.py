"""A task that writes its rows to a Parquet file instead of streaming them (``df.write``);
with ``partitionBy``, a file in each ``k=v`` directory it has rows for (``planner.spark.hive``).

The task's rows go to ``<directory>/.part-<task>-<job>.parquet.inprogress`` and, once the
file is closed, are renamed to ``part-<task>-<job>.parquet`` in one step: a reader of the
directory (which lists ``*.parquet``) never sees half a file, and a task run again after a
worker loss replaces its own file rather than adding a second. The directory was checked
against the data roots when the plan arrived (``files.check_output_directory``); it is
checked again here, before and after it is made, in case a symlink appeared in between. The driver
writes ``_SUCCESS`` once every task has reported (``planner.api.io``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from sparkwire.coordinator.worker.files import check_output_directory
from sparkwire.planner.spark import hive
from sparkwire.planner.logical.plan import WRITE_COLUMNS, ParquetWrite

#: The rows a writing task outputs: each file it wrote (relative to the directory) and its rows.
WRITE_SCHEMA = pa.schema([(WRITE_COLUMNS[0], pa.string()), (WRITE_COLUMNS[1], pa.int64())])


def part_name(task: int, job: str) -> str:
    return f"part-{task:05d}-{job}.parquet"


def write_task(target: ParquetWrite, task: int, schema: pa.Schema,
               batches: Iterable[pa.RecordBatch], roots: Sequence[Path]) -> pa.RecordBatch:
    """Write ``batches`` (of ``schema``) as the task's file, or with ``partition_by`` one
    file per partition directory it has rows for; each file's relative path and rows."""
    check_output_directory(target.directory, roots)
    os.makedirs(target.directory, exist_ok=True)
    check_output_directory(target.directory, roots)
    if len(target.names) != len(schema):
        raise ValueError(f"{len(target.names)} names for {len(schema)} columns")
    named = pa.schema([f.with_name(n) for f, n in zip(schema, target.names, strict=True)])
    files = _Files(target, task, named)
    try:
        for batch in batches:
            files.write(pa.RecordBatch.from_arrays(batch.columns, schema=named))
        written = files.close()
    except BaseException:
        files.abort()
        raise
    return pa.record_batch([list(written), list(written.values())], schema=WRITE_SCHEMA)


class _Files:
    """The task's open files, by relative directory ("" unpartitioned), each written as
    ``.<name>.inprogress`` and renamed once closed."""

    def __init__(self, target: ParquetWrite, task: int, schema: pa.Schema) -> None:
        self._target = target
        self._name = part_name(task, target.job)
        self._keys = list(target.partition_by)
        self._data = pa.schema([f for f in schema if f.name not in self._keys])
        self._open: dict[str, tuple[pq.ParquetWriter, str]] = {}
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

    def _writer(self, where: str) -> tuple[pq.ParquetWriter, str]:
        if where not in self._open:
            folder = os.path.join(self._target.directory, where)
            os.makedirs(folder, exist_ok=True)
            partial = os.path.join(folder, f".{self._name}.inprogress")
            self._open[where] = (pq.ParquetWriter(partial, self._data), partial)
            self._rows.setdefault(where, 0)
        return self._open[where]

    def close(self) -> dict[str, int]:
        """Close and publish every file: relative path to rows."""
        written = {}
        for where, (writer, partial) in self._open.items():
            writer.close()
            os.replace(partial, os.path.join(os.path.dirname(partial), self._name))
            written[os.path.join(where, self._name)] = self._rows[where]
        return written

    def abort(self) -> None:
        for writer, partial in self._open.values():
            with contextlib.suppress(OSError, pa.ArrowException):
                writer.close()
            Path(partial).unlink(missing_ok=True)


_ROW = "__sparkwire_row"
