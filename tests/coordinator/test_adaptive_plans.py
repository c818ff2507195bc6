"""``adaptive.replan`` on a real shuffled join's staged plan, given producer sizes: every
partition of every input is read exactly once (the whole side by every task), a
co-partitioned join's sides are grouped alike, and a skewed partition is split by ranges of
producer tasks that cover them all."""

from __future__ import annotations

import pyarrow as pa

from sparkwire.coordinator import Session
from sparkwire.coordinator.adaptive import Policy, barriers, replan
from sparkwire.coordinator.routing import route


def join_plan():
    with Session(workers=2, broadcast_threshold=0, task_bytes=0, local_chunk_rows=250) as session:
        left = session.createDataFrame(pa.table({"k": list(range(1000)), "a": list(range(1000))}))
        right = session.createDataFrame(pa.table({"k2": list(range(1000)), "b": list(range(1000))}))
        return left.join(right, left.k == right.k2).staged_plan()


def reads_cover(plan, stage_id, replanned, whole=(), repeated=()) -> None:
    """Each (producer task, partition) of each input read by exactly one task; by every
    task for a ``whole`` input; by one or more for a ``repeated`` one (the other side of a
    split partition, read whole by each of its tasks)."""
    for producer in barriers_of(plan, stage_id):
        boundary = plan.stages[producer]
        pairs = [pair for reads in replanned.reads
                 for pair in route(boundary.output, boundary.tasks, len(replanned.reads), 0, read=reads[producer])]
        everything = sorted((t, p) for t in range(boundary.tasks) for p in range(boundary.output.partitions))
        if producer in whole:
            assert all(sorted(route(boundary.output, boundary.tasks, 1, 0, read=r[producer])) == everything
                       for r in replanned.reads)
        elif producer in repeated:
            assert sorted(set(pairs)) == everything and len(pairs) > len(everything)
        else:
            assert sorted(pairs) == everything


def barriers_of(plan, stage_id):
    return barriers(plan, Policy(0, 0, 5.0, 0))[stage_id]


def test_coalescing_groups_both_sides_of_a_join_alike() -> None:
    plan = join_plan()
    [(stage, inputs)] = barriers(plan, Policy(0, 0, 5.0, 0)).items()
    partitions = plan.stages[inputs[0]].output.partitions
    sizes = {s: [[100] * partitions for _ in range(plan.stages[s].tasks)] for s in inputs}
    one_each = replan(plan, stage, sizes, Policy(task_bytes=0, broadcast_threshold=0, skew_factor=5, skew_bytes=0))
    assert len(one_each.reads) == partitions and not one_each.notes
    total = sum(plan.stages[s].tasks for s in inputs) * 100
    merged = replan(plan, stage, sizes, Policy(task_bytes=total * partitions, broadcast_threshold=0,
                                               skew_factor=5, skew_bytes=0))
    assert len(merged.reads) == 1 and merged.notes == (f"coalesced {partitions} partitions into 1 tasks",)
    for reads in (*one_each.reads, *merged.reads):
        assert len({r.partitions for r in reads.values()}) == 1  # the two sides aligned
    reads_cover(plan, stage, merged)


def test_a_skewed_partition_splits_by_producer_ranges_and_a_small_side_is_read_whole() -> None:
    plan = join_plan()
    [(stage, (left, right))] = barriers(plan, Policy(0, 0, 5.0, 0)).items()
    partitions = plan.stages[left].output.partitions
    producers = plan.stages[left].tasks
    sizes = {left: [[1000 if p == 0 else 10 for p in range(partitions)] for _ in range(producers)],
             right: [[10] * partitions for _ in range(plan.stages[right].tasks)]}
    split = replan(plan, stage, sizes, Policy(task_bytes=0, broadcast_threshold=0, skew_factor=5, skew_bytes=0))
    assert producers > 1 and len(split.reads) == partitions - 1 + producers
    assert split.notes[0].startswith(f"split partition 0 (") and split.notes[0].endswith(f"into {producers} tasks")
    reads_cover(plan, stage, split, repeated=(right,))
    switched = replan(plan, stage, sizes, Policy(task_bytes=0, broadcast_threshold=10 * partitions * 8,
                                                 skew_factor=5, skew_bytes=0))
    assert switched.notes[0].startswith(f"broadcast right side (stage {right}")
    reads_cover(plan, stage, switched, whole=(right,))
