"""The synthetic batches every benchmark moves, and the ``touch`` that proves they arrived.

Shared by the writers (producer children, the /dev/shm writer, in-memory IPC) and the readers,
so every side agrees on the values: column ``c`` of batch ``i`` holds
``arange(i * rows, (i + 1) * rows) + c`` as int64. Batches are built once per shape into a
pool of at most ``POOL_BYTES`` of distinct batches that partitions cycle through, so a 1 GiB
partition does not cost 1 GiB to produce, yet is not served from one cache-hot batch.
``touch`` reads one int64 per 4 KiB page of every column and checks the cross-column
invariant, which proves every page arrived and holds the right values without scanning every
byte (scanning would measure the reader's CPU, not the transport).

numpy and pyarrow are imported on first use: a child that never builds a batch starts faster.
"""

from __future__ import annotations

import threading
from typing import Any

POOL_BYTES = 256 << 20
POOL_MAX_BATCHES = 1024
STRIDE = 4096 // 8              # one int64 per 4 KiB page

_pools: dict[tuple[int, int], list[Any]] = {}
_pools_lock = threading.Lock()


def make_batch(index: int, rows: int, columns: int) -> Any:
    """Batch ``index`` of the synthetic sequence of this shape."""
    import numpy as np
    import pyarrow as pa

    base = np.arange(index * rows, (index + 1) * rows, dtype=np.int64)
    return pa.record_batch([pa.array(base + c) for c in range(columns)],
                           names=[f"c{c}" for c in range(columns)])


def pool(rows: int, columns: int, wanted: int) -> list[Any]:
    """Up to ``wanted`` distinct batches of this shape, at most ``POOL_BYTES`` in all."""
    size = max(1, min(wanted, POOL_MAX_BATCHES, POOL_BYTES // (rows * columns * 8)))
    with _pools_lock:
        batches = _pools.get((rows, columns), [])
        if len(batches) < size:
            batches = batches + [make_batch(i, rows, columns) for i in range(len(batches), size)]
            _pools[(rows, columns)] = batches
        return batches


def touch(batch: Any) -> int:
    """Read one int64 per 4 KiB page of every column; check column c = column 0 + c."""
    arrays = [column.to_numpy(zero_copy_only=True) for column in batch.columns]
    first = arrays[0][::STRIDE]
    base = int(first.sum())
    total = base
    for c, array in enumerate(arrays[1:], 1):
        value = int(array[::STRIDE].sum())
        if value - base != c * len(first):
            raise ValueError(f"batch of {batch.num_rows} rows: column {c} does not hold the "
                             "values written; the transport corrupted or lost bytes")
        total += value
    return total


def read_partition(client: Any, key: Any, timeout: float) -> tuple[int, int]:
    """Open ``key``, touch every batch; (bytes, rows)."""
    nbytes = rows = 0
    for batch in client.read(key, timeout):
        touch(batch)
        nbytes += batch.nbytes
        rows += batch.num_rows
    return nbytes, rows
