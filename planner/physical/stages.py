"""Cutting a logical plan into stages at network boundaries.

The cutter walks the plan bottom-up. Each subtree yields the *open* stage that computes it
(fragment, task count, scan splits) while finished producer stages accumulate in dependency
order, so ids number producers first. An operator either extends the open stage (Filter,
Project, Generate, Expand, the per-task half of Limit and top-k, a partial aggregate) or closes it with a
boundary and opens a consumer stage that reads an ``Exchange``. A join would cut its two
subtrees the same way and close both (shuffle) or one (broadcast) before opening its stage.

Counts, from the bytes and the cluster's ``cores``, never the number of workers
(``planner.physical.sizing``):

- scan tasks: one per ``task_bytes`` of the columns read (compressed, from the footers; 16
  MiB by default, as datafusion-distributed sizes partitions), at most one per core, at
  least one per ``MAX_TASK_BYTES``; one per core when ``task_bytes`` is 0; a scan wanting
  more tasks than it has files cuts them into runs of row groups (``planner.physical.splits``);
- a plan whose scans together read at most ``task_bytes``, or whose stages would run one task
  each or one task more than that in all, is one stage of one task (``single_stage``);
- shuffle partitions: by the same rule from the estimated bytes the shuffle moves (a join's
  two sides together, into the partitions of a side already hash-partitioned on its keys),
  at most ``MAX_SHUFFLE_PARTITIONS``; the consumer stage runs one task per partition; a
  shuffle into one partition is a coalesce into one task (nothing to hash or cut);
- coalesce and broadcast write one partition per task; gathering (global aggregate, Limit,
  sort) coalesces into one task.

Splits: ``Stage.splits[i]`` are task ``i``'s splits; the stage fragment's ``ParquetScan``
carries all of the stage's splits, in task order, and the coordinator narrows it to
``splits[i]`` per task. A stage holds one ``ParquetScan``, or two for a co-located join
(each narrowed to the task's splits that are its own).

A ``LocalSource`` is its own stage, published by the driver with one task per chunk and
only ever a ``coalesce`` (or ``result``) boundary: publishing stores each chunk as it is, so
the driver never hashes rows. A gathering consumer reads it directly; any other consumer
first reads it through a coalesce of as many tasks as chunks (one chunk per task).

A window needs whole partitions in one task: its input is hash-shuffled on the partition
keys (unless already partitioned so, or in one task), and the window runs in each consumer
task; a window without partition keys gathers every row into one task, as Spark does (and
warns, as sparkwire logs). The output stays partitioned by those keys.

A CSV or JSON scan spreads its whole files over as many tasks as its bytes ask, in order; a
``RangeSource`` runs its ``numPartitions`` tasks, or one per million rows up to one per core
(``planner.logical.ranges``), each generating its slice. A ``CachedSource`` is a stage of
one task per chunk, each placed where its chunk is held (``coordinator.scheduler``); ``Keep`` ends a stage, with a coalesce boundary, whose
outputs the workers keep as that cache. ``Repartition`` is a boundary the user asked for: a
hash shuffle into its partitions (on every column when it names none), or for ``coalesce``
a coalesce boundary into fewer tasks (never more). A ``ParquetWrite`` runs in every task
of the final stage. Plans holding any of the last three, or a cache, are never one stage.

Aggregates with keys run in two phases (partial, shuffle on the keys, merge) unless they
contain a call without a partial form (``count_distinct``, ``stddev`` ...: see
``planner.physical.aggregates``), which shuffles raw rows (only the columns it reads) and
aggregates once; input already in one task is aggregated where it is. A full sort gathers
into one task, or, over at least ``range_sort_rows`` rows in several tasks, sorts ranges of
its first key in parallel (``range_sort``). A join's distribution is ``join_strategy``'s.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import assert_never

from sparkwire.planner.physical import aggregates, single_stage
from sparkwire.planner.errors import PlanError
from sparkwire.planner.limits import MAX_PLAN_DEPTH, MAX_STAGES, plan_depth
from sparkwire.planner.optimizer.estimates import DEFAULT_BROADCAST_THRESHOLD, estimate_bytes, estimate_rows
from sparkwire.planner.logical.expressions import AggCall, Call, Case, Column, Expr, Lit, NamedExpr, ScalarFunction, SortKey
from sparkwire.planner.logical.ranges import range_tasks
from sparkwire.planner.logical.render import sql
from sparkwire.planner.logical.plan import (Aggregate, Exchange, Expand, Filter, Generate, Join, Keep,
                                            Limit, Operator, operators, output_columns,
                                            ParquetWrite, Project, Repartition, RowSample, Sample,
                                            SetOperation, Sort, Window, children, with_children)
from sparkwire.planner.logical.sources import CachedSource, CsvScan, JsonScan, LocalSource, ParquetScan, RangeSource
from sparkwire.planner.logical.staged import Boundary, Stage, StagedPlan
from sparkwire.planner.physical.join_strategy import join_strategy
from sparkwire.planner.physical.clustering import clustered
from sparkwire.planner.physical.placement import OpenStage, colocate, concatenable, groups_within_tasks
from sparkwire.planner.physical.sharing import reuse_broadcasts, share_broadcasts
from sparkwire.planner.physical.sizing import Sizing
from sparkwire.planner.physical.splits import group_splits

#: The column a range-partitioned sort carries its range in, between two stages.
RANGE_COLUMN = "__sparkwire_range"
#: Rows sampled per task to choose a range-partitioned sort's bounds.
RANGE_SAMPLE_ROWS = 1000

_log = logging.getLogger(__name__)


def plan_stages(
    plan: Operator, columns: Sequence[str], cores: int,
    broadcast_threshold: int = DEFAULT_BROADCAST_THRESHOLD, range_sort_rows: int = 0,
    task_bytes: int = 0,
) -> StagedPlan:
    """``plan`` cut into stages for a cluster of ``cores`` cores (all workers' together)."""
    if cores < 1:
        raise PlanError(f"a cluster needs at least one core, got {cores}")
    if list(columns) != output_columns(plan):
        raise PlanError(f"columns {list(columns)} do not match the plan's {output_columns(plan)}")
    single = single_stage.small(plan, task_bytes)
    if single is None:
        cutter = _Cutter(Sizing(cores, task_bytes), broadcast_threshold, range_sort_rows)
        cutter.close(cutter.cut(plan), Boundary(kind="result"), consumer_tasks=1)
        single = single_stage.serial(plan, cutter.stages, task_bytes)
    stages = [single] if single else reuse_broadcasts(share_broadcasts(cutter.stages), broadcast_threshold)
    if len(stages) > MAX_STAGES:
        raise PlanError(f"the query needs {len(stages)} stages; the limit is {MAX_STAGES}")
    for stage in stages:
        _check_depth(stage)
    return StagedPlan(stages=tuple(stages), columns=tuple(columns))


def _check_depth(stage: Stage) -> None:
    """A stage a worker would refuse for its nesting is refused here, with the cause."""
    depth = plan_depth(stage)
    if depth > MAX_PLAN_DEPTH:
        raise PlanError(
            f"stage {stage.id} nests {depth} levels deep (operators over operators, expressions "
            f"inside expressions); the limit is {MAX_PLAN_DEPTH}: break the query into steps, "
            f"e.g. write an intermediate result"
        )


class _Cutter:
    def __init__(self, sizing: Sizing, broadcast_threshold: int = DEFAULT_BROADCAST_THRESHOLD,
                 range_sort_rows: int = 0) -> None:
        self.stages: list[Stage] = []
        # Each stage by what it computes: a subtree the plan holds twice (a view used twice,
        # a semi join's small side shared by ``rules.transitivity``) is one stage read twice,
        # as Spark reuses an exchange.
        self.closed: dict[tuple[object, ...], int] = {}
        self.sizing = sizing
        self.broadcast_threshold = broadcast_threshold
        self.range_sort_rows = range_sort_rows

    def cut(self, op: Operator) -> OpenStage:
        match op:
            case ParquetScan():
                # a partitioned scan reads whole files: DuckDB adds the columns of their paths
                groups = group_splits(op.splits, self.sizing.tasks(estimate_bytes(op)),
                                      whole_files=bool(op.partition_names))
                scan = op.model_copy(update={"splits": tuple(s for g in groups for s in g)})
                return OpenStage(scan, tasks=len(groups), splits=groups, clustered=clustered(op, groups))
            case CsvScan() | JsonScan():
                n, k = len(op.splits), min(self.sizing.tasks(estimate_bytes(op)), len(op.splits))
                groups = tuple(op.splits[i * n // k:(i + 1) * n // k] for i in range(k))
                return OpenStage(op, tasks=k, splits=groups)
            case LocalSource():
                return OpenStage(op, tasks=op.chunks, published=True)
            case RangeSource():
                return OpenStage(op, tasks=range_tasks(op, self.sizing.cores))
            case CachedSource():
                return OpenStage(op, tasks=op.chunks)
            case Keep():
                child = self.materialize(self.cut(op.input))
                return self.close(child, Boundary(kind="coalesce"), consumer_tasks=child.tasks,
                                  keep=op.cache_id)
            case RowSample() | ParquetWrite():
                return self.extend(self.cut(op.input), lambda f: with_children(op, [f]))
            case Repartition():
                return self.repartition_to(op)
            case Exchange() | Sample():
                raise PlanError(f"a logical plan cannot hold {type(op).__name__}; the stage cutter adds it")
            case Filter() | Project() | Generate() | Expand():
                return self.extend(self.cut(op.input), lambda f: with_children(op, [f]))
            case Limit():
                return self.limit(op)
            case Sort():
                return self.sort(op)
            case Aggregate():
                return self.aggregate(op)
            case Join():
                return self.join(op)
            case SetOperation():
                return self.set_operation(op)
            case Window():
                return self.window(op)
            case _:
                assert_never(op)

    def close(self, open_: OpenStage, output: Boundary, consumer_tasks: int,
              keep: str | None = None) -> OpenStage:
        """Finish ``open_`` as a stage, or find the same stage closed before, and open its
        consumer, reading it through an Exchange; ``keep`` names the cache the stage's outputs
        become."""
        key = (open_.fragment, open_.tasks, open_.splits, output, keep)
        stage_id = self.closed.get(key)
        if stage_id is None:
            stage_id = self.closed[key] = len(self.stages)
            produced = {s.id: s.estimated_rows for s in self.stages}
            self.stages.append(
                Stage(
                    id=stage_id, fragment=open_.fragment, tasks=open_.tasks, splits=open_.splits,
                    output=output, estimated_rows=estimate_rows(open_.fragment, produced),
                    notes=open_.notes, keep=keep,
                )
            )
        exchange = Exchange(stage=stage_id, columns=tuple(output_columns(open_.fragment)))
        return OpenStage(exchange, tasks=consumer_tasks)

    def materialize(self, open_: OpenStage) -> OpenStage:
        """A published source as a stage that can run operators, one chunk per task."""
        if open_.published:
            return self.close(open_, Boundary(kind="coalesce"), consumer_tasks=open_.tasks)
        return open_

    def extend(self, open_: OpenStage, build: Callable[[Operator], Operator]) -> OpenStage:
        """Run ``build`` on the open stage's output, task by task."""
        open_ = self.materialize(open_)
        return open_.extended(build(open_.fragment))

    def gather(self, open_: OpenStage, build: Callable[[Operator], Operator]) -> OpenStage:
        """``build`` per task, then once more over all of it in one task; for operators
        (Limit, top-k) whose per-task result is a superset of their share of the answer."""
        if open_.tasks > 1 and not open_.published:
            open_ = self.extend(open_, build)
        return self.extend(self.single(open_), build)

    def limit(self, op: Limit) -> OpenStage:
        """Without an offset, ``gather``; with one, each task keeps the rows the answer can
        come from (all of them for an offset alone), and one task skips and takes: only the
        gathered rows can say which come first."""
        open_ = self.cut(op.input)
        if not op.offset:
            return self.gather(open_, lambda f: with_children(op, [f]))
        if op.reach is not None and open_.tasks > 1 and not open_.published:
            open_ = self.extend(open_, lambda f: Limit(input=f, n=op.reach))
        return self.extend(self.single(open_), lambda f: with_children(op, [f]))

    def single(self, open_: OpenStage) -> OpenStage:
        if open_.tasks > 1 or open_.published:
            return self.close(open_, Boundary(kind="coalesce"), consumer_tasks=1)
        return open_

    def repartition(self, open_: OpenStage, keys: tuple[str, ...], nbytes: int) -> OpenStage:
        """``open_`` hashed on ``keys`` into as many partitions as ``nbytes`` ask, or
        gathered into one task when there are no keys."""
        if not keys:
            return self.single(open_)
        columns = tuple(Column(name=k) for k in keys)
        return self.shuffle(open_, columns, self.sizing.partitions(nbytes))

    def repartition_to(self, op: Repartition) -> OpenStage:
        """``coalesce(n)``: the input's tasks merged into at most ``n`` (never more tasks
        than it has, as in Spark); ``repartition(n, *keys)``: rows hashed on the keys (on
        every column when none) into ``n`` tasks."""
        child = self.materialize(self.cut(op.input))
        if op.coalesce:
            if child.tasks <= op.partitions:
                return child
            return self.close(child, Boundary(kind="coalesce"), consumer_tasks=op.partitions)
        return self.shuffle(child, op.keys or _all_columns(op.input), op.partitions)

    def sort(self, op: Sort) -> OpenStage:
        child = self.cut(op.input)
        if op.local:
            return self.extend(child, lambda f: with_children(op, [f]))
        if op.limit is not None:
            return self.gather(child, lambda f: with_children(op, [f]))
        ranges = self.sizing.partitions(estimate_bytes(op.input))
        if 0 < self.range_sort_rows <= estimate_rows(op.input) and child.tasks > 1 and ranges > 1:
            return self.range_sort(op, child, ranges)
        return self.extend(self.single(child), lambda f: with_children(op, [f]))

    def range_sort(self, op: Sort, child: OpenStage, p: int) -> OpenStage:
        """A full sort over ``p`` tasks: rows are split into ranges of the first
        sort key, bounded by quantiles of a random sample, and each task sorts one range;
        the result reads the tasks in order. Rows with equal first keys share a range, so
        the order holds for every sort key. Stages: the input (read twice), a sample per
        task, the bounds in one task (broadcast), each row's range, the sorts."""
        source = self.close(self.materialize(child), Boundary(kind="coalesce"), child.tasks)
        columns = output_columns(source.fragment)
        first = op.keys[0]
        sampled = replace(source, fragment=Sample(input=source.fragment, rows=RANGE_SAMPLE_ROWS))
        bounds = tuple(
            NamedExpr(name=f"_bound{i}", expr=AggCall(fn="quantile", arg=first.expr, fraction=i / p))
            for i in range(1, p)
        )
        bounded = self.extend(self.single(sampled),
                              lambda f: Aggregate(input=f, keys=(), aggregates=bounds))
        shared = self.close(bounded, Boundary(kind="broadcast"), consumer_tasks=source.tasks)
        ranged = replace(source, fragment=Project(
            input=Join(left=source.fragment, right=shared.fragment, how="cross"),
            columns=(*(NamedExpr(name=c, expr=Column(name=c)) for c in columns),
                     NamedExpr(name=RANGE_COLUMN, expr=_range_of(first, p))),
        ))
        boundary = Boundary(kind="range", keys=(Column(name=RANGE_COLUMN),), partitions=p)
        consumer = self.close(ranged, boundary, consumer_tasks=p)
        keep = tuple(NamedExpr(name=c, expr=Column(name=c)) for c in columns)
        return replace(consumer, fragment=with_children(op, [Project(input=consumer.fragment, columns=keep)]),
                       notes=(f"sort: {p} ranges of {sql(first.expr)} from a {RANGE_SAMPLE_ROWS}-row sample per task",))

    def aggregate(self, op: Aggregate) -> OpenStage:
        child = self.materialize(self.cut(op.input))
        within = groups_within_tasks(child, op) if child.tasks > 1 and not op.local else None
        if op.local:
            distributed = False
        elif within:
            child = replace(child, notes=(*child.notes, f"aggregate: each group in one task ({within})"))
            distributed = False
        else:
            distributed = child.tasks > 1
        two_phase = distributed and aggregates.splittable(op)
        # rows crossing the network unaggregated carry only the columns the aggregate reads
        prune = distributed and not two_phase
        lowered = aggregates.lower(op, output_columns(op.input), prune=prune)
        if lowered.prepare:
            child = self.extend(child, lambda f: Project(input=f, columns=lowered.prepare))
        if two_phase:
            partials, merges, outputs = aggregates.split(lowered)
            keys = lowered.key_columns
            child = self.extend(child, lambda f: Aggregate(input=f, keys=keys, aggregates=partials))
            child = self.repartition(child, lowered.keys, estimate_bytes(op))  # the partials
            return self.extend(child, lambda f: aggregates.finish(f, keys, merges, outputs))
        if distributed:
            child = self.repartition(child, lowered.keys, estimate_bytes(op.input))
        return self.extend(
            child,
            lambda f: aggregates.finish(f, lowered.key_columns, lowered.calls, lowered.outputs),
        )

    def window(self, op: Window) -> OpenStage:
        """The window in each task of its input hash-partitioned on the partition keys
        (one task holding every row when there are none, or the input is one task)."""
        child = self.cut(op.input)
        if not op.partition_by:
            if child.tasks > 1:
                _log.warning("a window without partitionBy moves all rows into one task; this "
                             "can be slow on large inputs")
                child = replace(self.single(child),
                                notes=("window: no partition keys, all rows in one task",))
            child = self.single(child)
        else:
            child = self.materialize(child)
            if child.tasks > 1:
                child = self.partitioned(child, op.partition_by,
                                         self.sizing.partitions(estimate_bytes(op.input)), any_count=True)
        return self.extend(child, lambda f: with_children(op, [f]))

    def join(self, op: Join) -> OpenStage:
        """In one stage when the footers put each key's rows of both sides in one task
        (``colocate``): each task reads and builds only its bucket of the other side, and no
        stage waits for another to publish it (TPC-H Q5 and Q10 lose their ``orders`` stage:
        12 and 8 % faster on zmq). Else broadcast the build side when allowed and small
        (``join_strategy``), else hash both sides on the keys into the same partitions and
        join partition by partition."""
        strategy, why = join_strategy(op, self.broadcast_threshold)
        note = f"{op.how} join: {why}"
        left = self.materialize(self.cut(op.left))
        right = self.materialize(self.cut(op.right))
        if strategy != "single" and (colocated := colocate(op, left, right)) is not None:
            joined, how = colocated
            note = f"{op.how} join: co-located, no exchange ({how})"
        elif strategy == "broadcast_right":
            built = self.close(right, Boundary(kind="broadcast"), consumer_tasks=left.tasks)
            joined = self.extend(left, lambda f: with_children(op, [f, built.fragment]))
        elif strategy == "broadcast_left":
            built = self.close(left, Boundary(kind="broadcast"), consumer_tasks=right.tasks)
            joined = self.extend(right, lambda f: with_children(op, [built.fragment, f]))
        elif strategy == "single":
            left_in, right_in = self.single(left), self.single(right)
            right_in = self.close(right_in, Boundary(kind="coalesce"), consumer_tasks=1)
            joined = self.extend(left_in, lambda f: with_children(op, [f, right_in.fragment]))
        else:
            p = self.join_partitions(op, left, right)
            left_in, right_in = self.partitioned(left, op.left_keys, p), self.partitioned(right, op.right_keys, p)
            reused = [side for side, (before, after) in
                      (("left", (left, left_in)), ("right", (right, right_in))) if before is after]
            if reused:
                note += f"; the {' and '.join(reused)} side already hash-partitioned on the keys"
            by = {"inner": (op.left_keys, op.right_keys), "right": (op.right_keys,),
                  "full": ()}.get(op.how, (op.left_keys,))
            joined = replace(
                left_in, fragment=with_children(op, [left_in.fragment, right_in.fragment]),
                partitioning=by, notes=(*left_in.notes, *right_in.notes),
            )
        return replace(joined, notes=(*joined.notes, note))

    def join_partitions(self, op: Join, left: OpenStage, right: OpenStage) -> int:
        """The partitions both sides of a shuffled join are hashed into: those of a side
        already hash-partitioned on its keys (so it is not shuffled again), else as many as
        the two sides' bytes together ask."""
        for side, keys in ((left, op.left_keys), (right, op.right_keys)):
            if keys in side.partitioning and not side.published:
                return side.tasks
        return self.sizing.partitions(estimate_bytes(op.left) + estimate_bytes(op.right))

    def partitioned(self, open_: OpenStage, keys: tuple[Expr, ...], partitions: int,
                    any_count: bool = False) -> OpenStage:
        """``open_`` hash-partitioned on ``keys``: as it is when it already is (into
        ``partitions``, unless ``any_count``: a window needs its keys' rows in one task, not
        a count that another input shares), else shuffled into ``partitions``."""
        if (keys in open_.partitioning and not open_.published
                and (any_count or open_.tasks == partitions)):
            return open_
        return self.shuffle(open_, keys, partitions)

    def set_operation(self, op: SetOperation) -> OpenStage:
        """UNION ALL reads both sides as they are: where both read only Parquet files, in one
        stage whose tasks are the tasks of both (Spark's union of partitions), each task
        reading its own side's files and nothing of the other's; else each side coalesced
        into as many tasks as the smaller has. TPC-DS q05 moved each channel's sales and
        returns through a coalesce (2.9M rows of ``store_sales``) before joining the 14
        dates it keeps. The other set operations hash both sides on every column, so equal
        rows meet in one task."""
        left = self.materialize(self.cut(op.left))
        right = self.materialize(self.cut(op.right))
        if op.kind == "union" and op.all and concatenable(left, right):
            return OpenStage(with_children(op, [left.fragment, right.fragment]),
                             tasks=left.tasks + right.tasks, splits=left.splits + right.splits)
        if op.kind == "union" and op.all:
            tasks = min(left.tasks, right.tasks)
            left_in = self.close(left, Boundary(kind="coalesce"), consumer_tasks=tasks)
            right_in = self.close(right, Boundary(kind="coalesce"), consumer_tasks=tasks)
        else:
            p = self.sizing.partitions(estimate_bytes(op.left) + estimate_bytes(op.right))
            left_in = self.shuffle(left, _all_columns(op.left), p)
            right_in = self.shuffle(right, _all_columns(op.right), p)
        return replace(left_in, fragment=with_children(op, [left_in.fragment, right_in.fragment]))

    def shuffle(self, open_: OpenStage, keys: tuple[Expr, ...], partitions: int) -> OpenStage:
        """``open_`` hashed on ``keys`` into ``partitions``, task p of the consumer holding
        partition p. Into one partition it is a coalesce into one task: every row goes there
        whatever its keys, so nothing is hashed, no partition column is carried and no
        batch is cut; the task holds all of each key's rows all the same."""
        boundary = (Boundary(kind="coalesce") if partitions == 1
                    else Boundary(kind="shuffle", keys=keys, partitions=partitions))
        consumer = self.close(self.materialize(open_), boundary, consumer_tasks=partitions)
        return replace(consumer, partitioning=(keys,))


def _range_of(key: SortKey, partitions: int) -> Expr:
    """The range (0 first in sort order) a row's first sort key falls in, given the bounds
    ``_bound1`` ... ``_bound{P-1}``; NULLs go first or last as the key sorts them, and NULL
    bounds (an empty sample) put every row in the last range."""
    below: ScalarFunction = "lt" if key.ascending else "gt"
    ordered = range(1, partitions) if key.ascending else range(partitions - 1, 0, -1)
    branches = [
        (Call(fn="is_null", args=(key.expr,)), Lit(value=0 if key.nulls_first else partitions - 1)),
        *((Call(fn=below, args=(key.expr, Column(name=f"_bound{b}"))), Lit(value=i))
          for i, b in enumerate(ordered)),
    ]
    return Case(branches=tuple(branches), otherwise=Lit(value=partitions - 1))


def _all_columns(op: Operator) -> tuple[Expr, ...]:
    return tuple(Column(name=n) for n in output_columns(op))
