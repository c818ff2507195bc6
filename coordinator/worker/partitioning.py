"""Cut a shuffle stage's output batches into per-partition batches.

DuckDB computes each row's partition (``compile.PARTITION_COLUMN``, a deterministic
hash modulo P) inside the query; this module only regroups rows by that column. Everything
runs in Arrow's native kernels: one stable sort of the partition column, one ``take``, and
zero-copy slices at the run boundaries, so a million-row batch costs a few milliseconds and
no Python per row. The stable sort keeps rows in their produced order within a partition.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from sparkwire.coordinator.worker.compile import PARTITION_COLUMN

__all__ = ["one_batch", "split_by_partition"]


def split_by_partition(batch: pa.RecordBatch | pa.Table, partitions: int,
                       ) -> list[tuple[int, pa.RecordBatch]]:
    """``(partition, rows)`` pairs in ascending partition order, empty partitions omitted.

    ``batch`` may be a table of several batches (``worker.pieces`` gathers them): the one
    ``take`` that sorts the rows also joins them, with no copy beforehand. The returned
    batches no longer carry the partition column. A partition value outside
    ``[0, partitions)`` or a null one means the producer and the consumer disagree about the
    plan, so it raises ``ValueError`` instead of silently misrouting rows.
    """
    if partitions < 1:
        raise ValueError(f"partitions must be >= 1, got {partitions}")
    index = batch.schema.get_field_index(PARTITION_COLUMN)
    if index < 0:
        raise ValueError(f"batch has no {PARTITION_COLUMN!r} column")
    keys = _one_array(batch.column(index))  # sorted in one piece: 4x faster than chunked
    data = batch.drop_columns([PARTITION_COLUMN])
    if batch.num_rows == 0:
        return []
    if keys.null_count:
        raise ValueError(f"{PARTITION_COLUMN!r} contains nulls")
    bounds = pc.min_max(keys)
    low, high = bounds["min"].as_py(), bounds["max"].as_py()
    if low < 0 or high >= partitions:
        raise ValueError(f"partition values [{low}, {high}] outside [0, {partitions})")
    if low == high:
        return [(int(low), one_batch(data))]

    order = pc.sort_indices(keys)  # stable
    sorted_keys = keys.take(order)
    rows = one_batch(data.take(order))
    runs = pc.run_end_encode(sorted_keys)
    ends = runs.run_ends.to_pylist()  # one entry per non-empty partition, at most P
    values = runs.values.to_pylist()
    out: list[tuple[int, pa.RecordBatch]] = []
    start = 0
    for value, end in zip(values, ends):
        out.append((int(value), rows.slice(start, end - start)))
        start = end
    return out


def one_batch(rows: pa.RecordBatch | pa.Table) -> pa.RecordBatch:
    """``rows`` as one batch: a table of one chunk per column without a copy (what a
    ``take`` gives), of several with one."""
    if isinstance(rows, pa.RecordBatch):
        return rows
    return rows.combine_chunks().to_batches()[0]


def _one_array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    return values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
