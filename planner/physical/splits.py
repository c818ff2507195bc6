"""Grouping a scan's file splits into tasks.

A logical scan lists whole files. The stage cutter wants up to
``wanted`` tasks of similar size (``planner.physical.sizing``). With at least ``wanted``
files, whole files are the units: a whole file is one plain ``read_parquet``, while a run of
row groups is a filtered one (``TaskEngine.register_row_groups``); with fewer files (and
unless ``whole_files``), the units are single row groups, so a handful of big files still
spreads over the cores: which rows a task reads depends on the data and the cores, not on
how many workers there are. Units are
weighted by their row count from the footers and cut into contiguous runs, each unit going
to the task its midpoint falls in. Contiguous runs keep a task's reads sequential and the
scan's row order task by task; a single huge unit can leave a task empty, which is then
dropped, so a scan may get fewer tasks than wanted, never an empty one.
"""

from __future__ import annotations

from collections.abc import Sequence

from sparkwire.planner.errors import PlanError
from sparkwire.planner.spark.parquet_meta import file_info
from sparkwire.planner.logical.sources import FileSplit

TaskSplits = tuple[tuple[FileSplit, ...], ...]


def group_splits(splits: Sequence[FileSplit], wanted: int, whole_files: bool = False) -> TaskSplits:
    """``splits`` cut into up to ``wanted`` tasks (the module's rule); ``whole_files``: never
    a file's row groups apart (a Hive-partitioned scan, whose path columns DuckDB adds)."""
    if not splits:
        raise PlanError("a Parquet scan without files")
    units = _row_group_units(splits) if len(splits) < wanted and not whole_files else []
    if not units:
        units = [(split, sum(_rows(split))) for split in splits]
    tasks = min(wanted, len(units))
    total = sum(rows for _, rows in units)
    groups: list[list[FileSplit]] = [[] for _ in range(tasks)]
    before = 0
    for i, (split, rows) in enumerate(units):
        if total:
            slot = int((before + rows / 2) * tasks / total)
        else:
            slot = i * tasks // len(units)
        groups[min(slot, tasks - 1)].append(split)
        before += rows
    return tuple(_merge(group) for group in groups if group)


def _rows(split: FileSplit) -> list[int]:
    """Row counts of the row groups a split reads."""
    counts = file_info(split.path).row_group_rows
    if split.row_groups is None:
        return list(counts)
    if any(rg >= len(counts) for rg in split.row_groups):
        raise PlanError(f"{split.path} has {len(counts)} row groups; the plan names more")
    return [counts[rg] for rg in split.row_groups]


def row_groups(split: FileSplit) -> tuple[int, ...]:
    """The indexes of the row groups ``split`` reads."""
    if split.row_groups is not None:
        return split.row_groups
    return tuple(range(len(file_info(split.path).row_group_rows)))


def _row_group_units(splits: Sequence[FileSplit]) -> list[tuple[FileSplit, int]]:
    units = []
    for split in splits:
        for rg, rows in zip(row_groups(split), _rows(split), strict=True):
            units.append((FileSplit(path=split.path, row_groups=(rg,)), rows))
    return units


def _merge(group: list[FileSplit]) -> tuple[FileSplit, ...]:
    """Adjacent row-group splits of one file become one split; one holding all of the
    file's row groups becomes a whole-file split, which DuckDB reads natively."""
    merged: list[FileSplit] = []
    for split in group:
        last = merged[-1] if merged else None
        if (
            last is not None
            and last.path == split.path
            and last.row_groups is not None
            and split.row_groups is not None
        ):
            merged[-1] = FileSplit(path=split.path, row_groups=last.row_groups + split.row_groups)
        else:
            merged.append(split)
    return tuple(_whole(split) for split in merged)


def _whole(split: FileSplit) -> FileSplit:
    if split.row_groups == tuple(range(len(file_info(split.path).row_group_rows))):
        return FileSplit(path=split.path)
    return split
