"""Where an open stage's rows are, and the shuffles that knowing it saves.

An open stage (``OpenStage``) knows what its tasks hold: rows hash-partitioned on some keys
(after a shuffle, while those columns pass through unchanged), and columns no value of which
two tasks read (``planner.physical.clustering``). From that, an aggregate grouping by such keys runs
where the rows are (``groups_within_tasks``), and an equi-join on a clustered key against
another scan runs in one stage (``colocate``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sparkwire.planner.physical.clustering import buckets, task_ranges
from sparkwire.planner.logical.expressions import Column, Expr
from sparkwire.planner.logical.render import sql
from sparkwire.planner.logical.tree import column_names
from sparkwire.planner.logical.plan import (Aggregate, children, Filter, Generate, Join, Limit,
                                            Operator, operators, output_columns, Project, Sort,
                                            transform_up, Window, with_children)
from sparkwire.planner.logical.sources import FILE_SCANS, FileSplit, ParquetScan


@dataclass(frozen=True)
class OpenStage:
    """The stage being built (``stages``): not yet numbered, its output boundary not yet known."""

    fragment: Operator
    tasks: int
    splits: tuple[tuple[FileSplit, ...], ...] = ()
    published: bool = False
    notes: tuple[str, ...] = ()
    # Keys its rows are hash-partitioned by, task p holding partition p (after a shuffle,
    # while the columns they read pass through unchanged): each entry one such tuple of keys;
    # after an inner join on hashed keys, both sides' keys (Spark's PartitioningCollection).
    partitioning: tuple[tuple[Expr, ...], ...] = ()
    # Columns no value of which is in two tasks: a scan's integer columns whose files'
    # ranges do not overlap from task to task (``clustering.clustered``), while they pass through;
    # after an inner join co-located on one of them, the other side's key too (``colocate``).
    clustered: tuple[str, ...] = ()

    def extended(self, fragment: Operator) -> OpenStage:
        """This stage with ``fragment`` built on its own, task by task: what partitioning
        and clustering the columns still carry unchanged survives."""
        return replace(
            self, fragment=fragment,
            partitioning=tuple(keys for keys in self.partitioning
                               if passes_through(fragment, self.fragment, keys)),
            clustered=tuple(c for c in self.clustered
                            if passes_through(fragment, self.fragment, (Column(name=c),))))


def colocate(op: Join, left: OpenStage, right: OpenStage) -> tuple[OpenStage, str] | None:
    """The join in one stage of ``left``'s tasks, when a pair of its keys are plain
    columns, the left one read in disjoint ranges by ``left``'s tasks (``clustered``) and
    the right one from the right side's only scan, whose files' footer ranges of it are
    known: each task reads the files overlapping its bucket (``clustering.buckets``), so
    each key's rows of both sides meet in one task, and neither side is shuffled. Inner, left, semi and anti joins (every output row keeps
    its left row's task). With why, for explain."""
    if (op.how not in ("inner", "left", "semi", "anti") or left.published or right.published
            or not left.splits or not right.splits):
        return None
    mine = [n for n in operators(left.fragment) if isinstance(n, FILE_SCANS)]
    theirs = [n for n in operators(right.fragment) if isinstance(n, FILE_SCANS)]
    if len(theirs) != 1 or not isinstance(scan := theirs[0], ParquetScan):
        return None
    for lkey, rkey in zip(op.left_keys, op.right_keys):
        if not (isinstance(lkey, Column) and isinstance(rkey, Column) and lkey.name in left.clustered
                and rkey.name in scan.columns and rkey.name not in scan.partition_names
                and passes_through(right.fragment, scan, (rkey,))):
            continue
        owner = [n for n in mine if lkey.name in n.columns]
        if len(owner) != 1:
            continue
        own = set(owner[0].splits)
        ranges = task_ranges(tuple(tuple(s for s in g if s in own) for g in left.splits), lkey.name)
        given = buckets(ranges, scan.splits, rkey.name) if ranges else None
        if given is None or not same_tasks(left.splits, given):
            continue
        every = tuple(split for group in given for split in group)
        theirs_now = transform_up(right.fragment, lambda n: n.model_copy(update={"splits": every})
                                  if n is scan else n)
        joined = left.extended(with_children(op, [left.fragment, theirs_now]))
        if op.how == "inner" and rkey.name in output_columns(joined.fragment):
            # every row out has the right key equal to its left key, so clustered alike
            joined = replace(joined, clustered=(*joined.clustered, rkey.name))
        splits = tuple(tuple(dict.fromkeys((*a, *b))) for a, b in zip(left.splits, given))
        return (replace(joined, splits=splits, notes=(*left.notes, *right.notes)),
                f"the files' ranges of {lkey.name} and {rkey.name} put each key in one task")
    return None


def groups_within_tasks(child: OpenStage, op: Aggregate) -> str | None:
    """Whether every group of ``op`` is already in one task: its input is hash-partitioned
    on keys that are all among its grouping keys, so rows of one group, equal on every key,
    share a partition (Spark: a ``HashPartitioning`` satisfies the ``ClusteredDistribution``
    of the grouping keys, and no exchange is planned); or a grouping key is a column no
    value of which is in two tasks (files sorted or clustered by it, as TPC-H's are). Why,
    or None."""
    keys = {k.expr for k in op.keys}
    if child.published:
        return None
    for by in child.partitioning:
        if by and all(p in keys for p in by):
            return f"hash-partitioned on {', '.join(sql(p) for p in by)}"
    for name in child.clustered:
        if Column(name=name) in keys:
            return f"no two tasks share a value of {name}"
    return None


def same_tasks(mine: tuple[tuple[FileSplit, ...], ...], given: tuple[tuple[FileSplit, ...], ...]) -> bool:
    """Whether every split both sides read is in the same task on both: a task's scans are
    narrowed to the splits of the task that are theirs (``runs.narrow``)."""
    where = {split: task for task, group in enumerate(mine) for split in group}
    return all(where.get(split, task) == task for task, group in enumerate(given) for split in group)


def passes_through(fragment: Operator, below: Operator, keys: tuple[Expr, ...]) -> bool:
    """Whether every column ``keys`` read reaches the top of ``fragment`` unchanged from
    ``below`` (the fragment it was built on), so rows stay partitioned by ``keys``."""
    names = {n for key in keys for n in column_names(key)}
    node = fragment
    while node is not below:
        match node:
            case Filter() | Sort() | Limit() | Window() | Generate():
                pass
            case Project():
                kept = {c.name for c in node.columns if c.expr == Column(name=c.name)}
                if not names <= kept:
                    return False
            case Aggregate():
                kept = {k.name for k in node.keys if k.expr == Column(name=k.name)}
                if not names <= kept:
                    return False
            case Join(how="left" | "inner" | "semi" | "anti" | "right" | "cross"):
                if not names <= set(output_columns(node)):
                    return False
            case _:
                return False
        node = next(c for c in children(node) if below is c or contains(c, below))
    return True


def contains(root: Operator, node: Operator) -> bool:
    return any(n is node for n in operators(root))


def concatenable(left: OpenStage, right: OpenStage) -> bool:
    """Whether two sides of a UNION ALL can be one stage, task by task: each side's tasks
    read only Parquet splits of unpartitioned scans (so each task narrows every scan to the
    splits that are its own, an empty selection for the other side's:
    ``coordinator.runs.narrow``), and no split is on both sides (a task's split would then
    be read by both)."""
    sides = (left, right)
    if any(side.published or not side.splits or len(side.splits) != side.tasks for side in sides):
        return False
    leaves = [n for side in sides for n in operators(side.fragment) if not children(n)]
    if any(not isinstance(n, ParquetScan) or n.partition_names for n in leaves):
        return False  # a Hive-partitioned scan reads whole files, never an empty selection
    mine = {split for task in left.splits for split in task}
    return not any(split in mine for task in right.splits for split in task)
