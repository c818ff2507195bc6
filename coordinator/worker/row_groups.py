"""The SQL that reads chosen row groups of Parquet files (``TaskEngine.register_row_groups``).

``read_parquet`` takes no row-group list, so each file is filtered on its ``file_row_number``
ranges, on which DuckDB skips every other row group. The ranges come from the file's footer,
read through the same checked descriptor DuckDB reads (``worker.opened``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pyarrow.parquet as pq
from sqlglot import exp

from sparkwire.planner.logical.sources import FileSplit

__all__ = ["row_group_sql"]


def row_group_sql(splits: Sequence[FileSplit], locate: Callable[[str], str] = str) -> str:
    """A query reading the splits' row groups with ``read_parquet``: one branch per run of
    consecutive row groups, filtered on its ``file_row_number`` range, in split order; a
    split of no row groups reads the file's columns and no rows. ``locate``: what DuckDB
    and the footer read open for a split's path (its checked descriptor, ``OpenedFiles``)."""
    if not splits:
        raise ValueError("a row-group scan needs at least one split")
    branches = []
    for split in splits:
        path = locate(split.path)
        source = exp.Anonymous(this="read_parquet", expressions=[
            exp.Literal.string(path),
            exp.EQ(this=exp.column("file_row_number"), expression=exp.true())])
        select = exp.select(exp.Star(except_=[exp.column("file_row_number")])).from_(
            exp.Table(this=source))
        for start, stop in _row_ranges(split, path):
            rows = exp.column("file_row_number")
            branches.append(select.where(exp.and_(rows >= start, rows < stop)))
        if not branches and split.row_groups == ():  # no rows: a task of a UNION ALL's other side
            branches.append(select.where(exp.false()))
    query: exp.Expression = branches[0]
    for branch in branches[1:]:
        query = exp.Union(this=query, expression=branch, distinct=False, by_name=True)
    return query.sql("duckdb")


def _row_ranges(split: FileSplit, path: str) -> list[tuple[int, int]]:
    """``[start, stop)`` row ranges of the split's runs of consecutive row groups, from the
    footer at ``path`` (read afresh: a ``/proc/self/fd/N`` names another file each task)."""
    metadata = pq.read_metadata(path)
    counts = [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)]
    groups = range(len(counts)) if split.row_groups is None else split.row_groups
    starts = [0]
    for count in counts:
        starts.append(starts[-1] + count)
    ranges: list[tuple[int, int]] = []
    for group in groups:
        if group >= len(counts):
            raise ValueError(f"{split.path} has {len(counts)} row groups; the plan names {group}")
        if ranges and ranges[-1][1] == starts[group]:
            ranges[-1] = (ranges[-1][0], starts[group + 1])
        else:
            ranges.append((starts[group], starts[group + 1]))
    return ranges
