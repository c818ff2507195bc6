"""What a Parquet scan's footers prove about which key values its tasks read.

Tables written by sorting jobs, TPC-H's among them, are files sorted by their key: the
footers' ``(min, max)`` of an integer column say which file holds which keys. Two facts follow,
each only from exact statistics (a signed integer column, no NULLs, every row group with
statistics; see ``parquet_meta``):

- ``clustered``: the columns no value of which two tasks of a scan read (each task's range
  ends below the next one's). A task's range is that of the row groups it reads, so a file
  cut into runs of row groups (more tasks than files, ``planner.physical.splits``) stays
  clustered: a sorted file's row groups hold ascending ranges of its key. An aggregate
  grouping by one finishes in the scan stage (``stages``).
- ``buckets``: another scan's files given to those tasks so that every key value's rows of
  both scans are in one task: an equi-join on such keys runs in one stage, without a
  shuffle (a co-located join). Task ``i``'s bucket reaches from its own range's start to
  the next task's start (the first from below every key, the last above every key); a file
  is read by each task whose bucket it overlaps, each of them keeping its bucket's rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from sparkwire.planner.spark.parquet_meta import ParquetFileInfo, file_info
from sparkwire.planner.logical.sources import FileSplit, KeyRange, ParquetScan
from sparkwire.planner.physical.splits import TaskSplits, row_groups


def exact_range(info: ParquetFileInfo, name: str) -> tuple[int, int] | None:
    """``(min, max)`` of a signed integer column without NULLs, from the footer; else None."""
    index = info.schema.get_field_index(name)
    if index < 0 or name not in info.null_free or not pa.types.is_signed_integer(info.schema.field(index).type):
        return None
    return info.int_ranges.get(name)


def split_range(split: FileSplit, name: str) -> tuple[int, int] | None:
    """``(min, max)`` of column ``name`` over the row groups ``split`` reads (``exact_range``
    narrowed to them); else None."""
    info = file_info(split.path)
    whole = exact_range(info, name)
    if whole is None or split.row_groups is None:
        return whole
    per_group = info.row_group_int_ranges.get(name)
    if per_group is None or not split.row_groups:
        return None
    spans = [per_group[group] for group in split.row_groups]
    return min(low for low, _ in spans), max(high for _, high in spans)


def task_ranges(groups: TaskSplits, name: str) -> list[tuple[int, int]] | None:
    """Each task's ``(min, max)`` of column ``name`` over the row groups it reads, in task
    order, when its tasks' ranges are disjoint and no row group is read by two tasks; else
    None."""
    units = [(s.path, group) for g in groups for s in g for group in row_groups(s)]
    if len(groups) < 2 or len(set(units)) != len(units):
        return None
    ranges = []
    for group in groups:
        spans = [split_range(split, name) for split in group]
        known = [span for span in spans if span is not None]
        if not spans or len(known) < len(spans):
            return None
        ranges.append((min(lo for lo, _ in known), max(hi for _, hi in known)))
    ordered = sorted(ranges)
    if any(high >= low for (_, high), (low, _) in zip(ordered, ordered[1:])):
        return None
    return ranges


def clustered(scan: ParquetScan, groups: TaskSplits) -> tuple[str, ...]:
    """The scan's columns no value of which two of its tasks read."""
    return tuple(name for name in scan.columns
                 if name not in scan.partition_names and task_ranges(groups, name) is not None)


def buckets(ranges: Sequence[tuple[int, int]], splits: Sequence[FileSplit], name: str) -> TaskSplits | None:
    """``splits`` (another scan's) given to the tasks whose ``ranges`` (``task_ranges``) of
    their key they overlap, by column ``name``'s footer range (``split_range``: of the row
    groups a split reads): a file straddling two buckets is read by both tasks. Each copy keeps only its task's bucket (``FileSplit.keys``): rows
    outside it meet no key of that task (the inner, left, semi and anti joins co-located
    need none of them), so the filter saves a task's hash table the rest of the file, and
    the footers' statistics let DuckDB skip its row groups. None when a footer lacks the
    range or a task gets no file."""
    order = sorted(range(len(ranges)), key=lambda task: ranges[task][0])
    starts = [ranges[task][0] for task in order]
    bounds = [(None if p == 0 else start, starts[p + 1] if p + 1 < len(starts) else None)
              for p, start in enumerate(starts)]
    given: list[list[FileSplit]] = [[] for _ in ranges]
    for split in splits:
        span = split_range(split, name)
        if span is None:
            return None
        for position, (low, high) in enumerate(bounds):
            if (low is None or span[1] >= low) and (high is None or span[0] < high):
                keys = KeyRange(column=name, low=low, high=high)
                given[order[position]].append(split.model_copy(update={"keys": keys}))
    if not all(given):
        return None
    return tuple(tuple(g) for g in given)
