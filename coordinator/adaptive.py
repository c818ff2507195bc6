"""Adaptive execution at stage boundaries (Spark's AQE): a stage that reads a shuffle is
planned again from the bytes its producers actually wrote, once they have all finished.

The planner sizes a shuffle from estimates, which miss by 100x on TPC-H Q18 and Q21. Every
producer task reports the rows and bytes of each partition it wrote (``TaskStatus``), so at
the stage's barrier the coordinator knows the real sizes and decides, per task of the
consumer stage, what it reads of each shuffle input (``routing.Read``):

- **coalesce** (Spark's ``CoalesceShufflePartitions``): contiguous partitions whose bytes
  together stay within ``task_bytes`` (Spark's advisory partition size) run as one task,
  the same grouping for every shuffle input of the stage, so a co-partitioned join's two
  sides stay aligned. ``task_bytes`` 0 keeps a partition a task (the suite's distribution
  tests use it).
- **skew** (``OptimizeSkewedJoin``): a join input's partition over ``skew_factor`` times its
  median and over ``skew_bytes`` is split into tasks by ranges of producer tasks, each
  reading the other side's partition whole; only a side whose rows the join emits on their
  own (the preserved side of an outer join, either side of an inner one: the other side
  must be ``join_strategy.duplicable``), and only where nothing above the join in the stage
  needs a key's rows in one task (only projections and filters above it).
- **broadcast switch** (``DynamicJoinSelection``, a "local" broadcast join): a join input
  that turned out under ``broadcast_threshold`` and may be read by several tasks is read
  whole by every task, and the other side is then free of the alignment: its partitions are
  grouped by their own size, and split when skewed (with no floor: the whole side is small).
  The fragment does not change, only what its tasks read.

A barrier costs the pipelining of producer and consumer, so a stage gets one only where a
decision can change something (``barriers``): a stage that may coalesce (``task_bytes`` set
and more than one partition), or a join of two shuffled inputs. A stage that scans files,
generates ranges, reads local or cached chunks, keeps a cache, or writes a coalesce that
several tasks read is never re-planned: their task index means more than the partitions.
Pure decisions: ``execution`` holds the stages back and delivers them at their barrier.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sparkwire.coordinator.routing import Read
from sparkwire.planner.logical.plan import (Exchange, Filter, Join, Operator, Project, children,
                                            operators)
from sparkwire.planner.logical.staged import Stage, StagedPlan
from sparkwire.planner.physical.join_strategy import duplicable, size_text

__all__ = ["Policy", "Replanned", "barriers", "replan"]

#: Per producer stage: per producer task, the bytes of each partition it wrote.
Sizes = Mapping[int, Sequence[Sequence[int]]]


@dataclass(frozen=True)
class Policy:
    """The settings adaptivity reads (``Settings``): ``task_bytes`` a task (0: a partition
    a task), the ``broadcast_threshold``, and when a partition is skewed."""

    task_bytes: int
    broadcast_threshold: int
    skew_factor: float
    skew_bytes: int


@dataclass(frozen=True)
class Replanned:
    """A stage planned again: per task, what it reads of each shuffle input (by producer
    stage); and what adaptivity did, for explain and the metrics."""

    reads: tuple[dict[int, Read], ...]
    notes: tuple[str, ...]


def shuffle_inputs(plan: StagedPlan, stage: Stage) -> tuple[int, ...]:
    """The producer stages ``stage`` reads partition by partition from a shuffle or range
    boundary."""
    return tuple(sorted({
        node.stage for node in operators(stage.fragment)
        if isinstance(node, Exchange) and not node.whole
        and plan.stages[node.stage].output.kind in ("shuffle", "range")
    }))


def barriers(plan: StagedPlan, policy: Policy) -> dict[int, tuple[int, ...]]:
    """The stages to hold until their shuffle producers have finished, each with those
    producer stages: the stages a decision of this module can change (module docstring)."""
    held = {}
    for stage in plan.stages:
        inputs = shuffle_inputs(plan, stage)
        if not inputs or plan.stages[inputs[0]].output.partitions < 2 or not _replannable(plan, stage):
            continue
        if policy.task_bytes or _join(stage.fragment, inputs) is not None:
            held[stage.id] = inputs
    return held


def replan(plan: StagedPlan, stage_id: int, sizes: Sizes, policy: Policy) -> Replanned:
    """Stage ``stage_id``'s tasks from its shuffle producers' actual ``sizes``."""
    stage = plan.stages[stage_id]
    inputs = shuffle_inputs(plan, stage)
    partitions = plan.stages[inputs[0]].output.partitions
    totals = {s: [sum(task[p] for task in sizes[s]) for p in range(partitions)] for s in inputs}
    notes: list[str] = []
    whole: int | None = None
    splittable: set[int] = set()
    floor = policy.skew_bytes
    joined = _join(stage.fragment, inputs)
    if joined is not None:
        join, left, right = joined
        left_ok, right_ok = duplicable(join.how)
        row_wise = _row_wise_above(stage.fragment, join)
        small = [(sum(totals[s]), name, s) for s, ok, name in ((left, left_ok, "left"), (right, right_ok, "right"))
                 if ok and sum(totals[s]) <= policy.broadcast_threshold]
        if small and policy.broadcast_threshold > 0:
            nbytes, name, whole = min(small)
            notes.append(f"broadcast {name} side (stage {whole}, {size_text(nbytes)}): read whole by every task")
            splittable, floor = ({left, right} - {whole} if row_wise else set()), 0
        elif row_wise:
            splittable = {s for s, other_ok in ((left, right_ok), (right, left_ok)) if other_ok}
    parted = [s for s in inputs if s != whole]
    medians = {s: statistics.median(totals[s]) for s in parted}

    def skewed(s: int, p: int) -> bool:
        return (s in splittable and totals[s][p] > policy.skew_factor * medians[s]
                and totals[s][p] > floor and len(sizes[s]) > 1)

    tasks: list[dict[int, Read]] = []
    group: list[int] = []
    group_bytes = 0

    def close_group() -> None:
        nonlocal group, group_bytes
        if group:
            tasks.append({s: Read(range(group[0], group[-1] + 1)) for s in parted})
        group, group_bytes = [], 0

    for p in range(partitions):
        nbytes = sum(totals[s][p] for s in parted)
        if any(skewed(s, p) for s in parted):
            close_group()
            pieces = {s: _split([task[p] for task in sizes[s]],
                                _pieces(totals[s][p], max(policy.task_bytes, int(medians[s]), 1)))
                      if skewed(s, p) else [None] for s in parted}
            for combination in itertools.product(*pieces.values()):
                tasks.append({s: Read(range(p, p + 1), producers) for s, producers in zip(pieces, combination)})
            notes.append(f"split partition {p} ({size_text(nbytes)}) into "
                         f"{len(list(itertools.product(*pieces.values())))} tasks")
            continue
        if group and (not policy.task_bytes or group_bytes + nbytes > policy.task_bytes):
            close_group()
        group.append(p)
        group_bytes += nbytes
    close_group()
    coalesced = sum(1 for read in tasks if len(next(iter(read.values())).partitions) > 1)
    if coalesced:
        notes.append(f"coalesced {partitions} partitions into {len(tasks)} tasks")
    if whole is not None:
        for read in tasks:
            read[whole] = Read(range(partitions))
    return Replanned(tuple(tasks), tuple(notes))


def _pieces(nbytes: int, target: int) -> int:
    return max(1, -(-nbytes // target))


def _split(weights: Sequence[int], pieces: int) -> list[range | None]:
    """Producer tasks ``0 .. len(weights)`` cut into at most ``pieces`` contiguous ranges
    of about equal bytes (``weights``: each task's bytes of the partition)."""
    total, cuts, running = sum(weights), [0], 0
    for task, weight in enumerate(weights[:-1]):
        running += weight
        if len(cuts) < pieces and running * pieces >= total * len(cuts):
            cuts.append(task + 1)
    cuts.append(len(weights))
    return [range(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def _replannable(plan: StagedPlan, stage: Stage) -> bool:
    """Whether a stage's tasks may be re-cut: its leaves are all exchanges (no splits,
    ranges, local or cached chunks, whose task index says what to read), it keeps no cache,
    and a coalesce it writes is read by single-task stages only (a coalesce routes by the
    producer count, and more readers than producers would leave one with nothing)."""
    if stage.keep is not None or stage.splits:
        return False
    if any(not children(op) and not isinstance(op, Exchange) for op in operators(stage.fragment)):
        return False
    if stage.output.kind != "coalesce":
        return True
    return all(reader.tasks == 1 for reader in plan.stages
               if any(isinstance(n, Exchange) and n.stage == stage.id for n in operators(reader.fragment)))


def _join(fragment: Operator, inputs: tuple[int, ...]) -> tuple[Join, int, int] | None:
    """The stage's one join with its left and right shuffle inputs, when the fragment has
    exactly one join and each of its sides reads exactly one of the stage's two inputs."""
    joins = [op for op in operators(fragment) if isinstance(op, Join)]
    if len(joins) != 1 or len(inputs) != 2:
        return None
    join = joins[0]
    sides = [{op.stage for op in operators(side) if isinstance(op, Exchange) and op.stage in inputs}
             for side in (join.left, join.right)]
    if any(len(side) != 1 for side in sides) or sides[0] == sides[1]:
        return None
    return join, sides[0].pop(), sides[1].pop()


def _row_wise_above(fragment: Operator, join: Join) -> bool:
    """Whether only projections and filters lie between the fragment's root and ``join``:
    nothing that needs a key's rows in one task (an aggregate, a window) sees its output."""
    op = fragment
    while op is not join:
        if not isinstance(op, (Project, Filter)):
            return False
        op = op.input
    return True
