"""A task that writes its rows to a Parquet file instead of streaming them (``df.write``).

The task's rows go to ``<directory>/.part-<task>-<job>.parquet.inprogress`` and, once the
file is closed, are renamed to ``part-<task>-<job>.parquet`` in one step: a reader of the
directory (which lists ``*.parquet``) never sees half a file, and a task run again after a
worker loss replaces its own file rather than adding a second. The directory was checked
against the data roots when the plan arrived (``files.check_output_directory``); it is
checked again here, before and after it is made, in case a symlink appeared in between. The driver
writes ``_SUCCESS`` once every task has reported (``planner.io``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from sparkwire.coordinator.worker.files import check_output_directory
from sparkwire.planner.plan import WRITE_COLUMNS, ParquetWrite

#: The one row a writing task outputs: the file it wrote and how many rows.
WRITE_SCHEMA = pa.schema([(WRITE_COLUMNS[0], pa.string()), (WRITE_COLUMNS[1], pa.int64())])


def part_name(task: int, job: str) -> str:
    return f"part-{task:05d}-{job}.parquet"


def write_task(target: ParquetWrite, task: int, schema: pa.Schema,
               batches: Iterable[pa.RecordBatch], roots: Sequence[Path]) -> pa.RecordBatch:
    """Write ``batches`` (of ``schema``) as the task's file; its name and row count."""
    check_output_directory(target.directory, roots)
    os.makedirs(target.directory, exist_ok=True)
    check_output_directory(target.directory, roots)
    if len(target.names) != len(schema):
        raise ValueError(f"{len(target.names)} names for {len(schema)} columns")
    named = pa.schema([f.with_name(n) for f, n in zip(schema, target.names, strict=True)])
    final = os.path.join(target.directory, part_name(task, target.job))
    partial = os.path.join(target.directory, f".{part_name(task, target.job)}.inprogress")
    rows = 0
    try:
        with pq.ParquetWriter(partial, named) as writer:
            for batch in batches:
                writer.write_batch(pa.RecordBatch.from_arrays(batch.columns, schema=named))
                rows += batch.num_rows
        os.replace(partial, final)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    return pa.record_batch([[os.path.basename(final)], [rows]], schema=WRITE_SCHEMA)
