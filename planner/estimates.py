"""Size estimates for choosing join strategies, from what is known before anything runs.

A scan is as big as its files on disk (Parquet footers give the sizes and row counts, so
a scan of some row groups counts their share); an in-memory source as its Arrow buffers.
Above the leaves the estimates are rough on purpose, and each guess is written here: a
filter keeps half its input, an aggregate with keys half, a global aggregate one row, a
limit at most ``n`` rows of 100 bytes, a join or union both inputs. They decide between a
broadcast and a shuffle, never correctness.
"""

from __future__ import annotations

from typing import assert_never

from sparkwire.planner.parquet_meta import file_info
from sparkwire.planner.plan import (
    Aggregate,
    Exchange,
    Filter,
    Join,
    Limit,
    LocalSource,
    Operator,
    ParquetScan,
    Project,
    SetOperation,
    Sort,
)

_ROW_BYTES = 100


def estimate_bytes(op: Operator) -> int:
    match op:
        case ParquetScan():
            return sum(_split_bytes(s.path, s.row_groups) for s in op.splits)
        case LocalSource():
            return op.bytes
        case Exchange():
            return 0
        case Filter():
            return estimate_bytes(op.input) // 2
        case Project() | Sort():
            return estimate_bytes(op.input)
        case Aggregate():
            return estimate_bytes(op.input) // 2 if op.keys else _ROW_BYTES
        case Limit():
            return min(estimate_bytes(op.input), op.n * _ROW_BYTES)
        case Join() | SetOperation():
            return estimate_bytes(op.left) + estimate_bytes(op.right)
        case _:
            assert_never(op)


def _split_bytes(path: str, row_groups: tuple[int, ...] | None) -> int:
    info = file_info(path)
    total = sum(info.row_group_rows)
    if row_groups is None or not total:
        return info.bytes
    return info.bytes * sum(info.row_group_rows[i] for i in row_groups) // total
