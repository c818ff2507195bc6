"""The scheduler's bookkeeping after a worker loss, on a plan of three stages:

    stage 0: scan, 2 tasks ──shuffle(2)──► stage 1: 2 tasks ──coalesce──► stage 2: 1 task (result)

Task ``i`` of stage ``s`` starts on worker ``(i + s) mod 2``: w0 holds 0/0, 1/1, 2/0; w1 holds
0/1, 1/0.
"""

from __future__ import annotations

import pytest

from sparkwire.coordinator.scheduler import Run, Scheduler
from sparkwire.coordinator.taskplan import MAX_ATTEMPTS
from sparkwire.planner.logical.expressions import Column
from sparkwire.planner.logical.plan import Exchange
from sparkwire.planner.logical.sources import CachedSource, FileSplit, ParquetScan
from sparkwire.planner.logical.staged import Boundary, Stage, StagedPlan
from sparkwire.transport.errors import TaskFailed

W0, W1, W2, DRIVER = "mem://w0", "mem://w1", "mem://w2", "mem://driver"


def plan() -> StagedPlan:
    scan = ParquetScan(splits=(FileSplit(path="/d/a.parquet"),), columns=("k",))
    return StagedPlan(columns=("k",), stages=(
        Stage(id=0, fragment=scan, tasks=2,
              output=Boundary(kind="shuffle", keys=(Column(name="k"),), partitions=2)),
        Stage(id=1, fragment=Exchange(stage=0, columns=("k",)), tasks=2, output=Boundary(kind="coalesce")),
        Stage(id=2, fragment=Exchange(stage=1, columns=("k",)), tasks=1, output=Boundary(kind="result")),
    ))


def where(scheduler: Scheduler) -> dict[tuple[int, int], tuple[int, str]]:
    return {(r.stage, r.task): (r.attempt, r.address) for r in scheduler.runs()}


def finish(scheduler: Scheduler, *tasks: tuple[int, int]) -> None:
    for stage, task in tasks:
        scheduler.finished(scheduler.run(stage, task))


def test_placement_and_routing_to_current_attempts() -> None:
    scheduler = Scheduler(plan(), [W0, W1], DRIVER)
    assert where(scheduler) == {(0, 0): (0, W0), (0, 1): (0, W1), (1, 0): (0, W1),
                                (1, 1): (0, W0), (2, 0): (0, W0)}
    inputs = scheduler.inputs(scheduler.run(1, 1))
    assert [(i.address, i.stage, i.task, i.partition, i.attempt) for i in inputs] == [
        (W0, 0, 0, 1, 0), (W1, 0, 1, 1, 0)]


def test_nothing_finished_everything_downstream_of_the_lost_worker_runs_again() -> None:
    scheduler = Scheduler(plan(), [W0, W1], DRIVER)
    fresh = scheduler.recover([W0, W2])  # w1 lost, w2 replaced it
    # lost: 0/1 and 1/0; every consumer of 0/1 (1/0, 1/1) and so the result task too
    assert {(r.stage, r.task) for r in fresh} == {(0, 1), (1, 0), (1, 1), (2, 0)}
    assert [(r.stage, r.task) for r in fresh] == sorted((r.stage, r.task) for r in fresh)
    assert where(scheduler)[(0, 0)] == (0, W0)  # untouched
    assert all(r.attempt == 1 for r in fresh)
    # consumers are pointed at the new attempt of the producer that moved
    inputs = scheduler.inputs(scheduler.run(1, 0))
    assert {(i.task, i.attempt, i.address) for i in inputs} == {(0, 0, W0), (1, 1, where(scheduler)[(0, 1)][1])}


def test_finished_work_on_live_workers_is_kept() -> None:
    scheduler = Scheduler(plan(), [W0, W1], DRIVER)
    finish(scheduler, (0, 0), (0, 1), (1, 1))  # the scan is over, 1/1 (on w0) too
    fresh = scheduler.recover([W0])  # w1 lost: it held 0/1 (finished) and 1/0 (running)
    # 1/0 was running on w1; 0/1 finished but 1/0 must read it again; 1/1 finished on w0
    # and keeps its output; the result task reads 1/0's new attempt.
    assert {(r.stage, r.task) for r in fresh} == {(0, 1), (1, 0), (2, 0)}
    assert all(r.address == W0 for r in fresh)


def test_a_finished_task_whose_readers_all_finished_is_not_run_again() -> None:
    scheduler = Scheduler(plan(), [W0, W1], DRIVER)
    finish(scheduler, (0, 0), (0, 1), (1, 0), (1, 1), (2, 0))
    assert scheduler.recover([W0]) == []  # all read: nothing w1 held is needed


def test_a_finished_producer_of_a_task_that_runs_again_runs_again_too() -> None:
    """1/0 finished on w1, but its reader (the result) has not: it runs again, and so must
    0/1, which finished on w1 too and which 1/0 reads; 0/0 on w0 is kept."""
    scheduler = Scheduler(plan(), [W0, W1], DRIVER)
    finish(scheduler, (0, 0), (0, 1), (1, 0), (1, 1))
    fresh = scheduler.recover([W0])
    assert {(r.stage, r.task) for r in fresh} == {(0, 1), (1, 0), (2, 0)}
    assert {i.address for i in scheduler.inputs(scheduler.run(1, 0))} == {W0}


def test_a_result_task_that_returned_rows_never_runs_again() -> None:
    scheduler = Scheduler(plan(), [W0, W1], DRIVER)
    scheduler.streamed(0)
    fresh = scheduler.recover([W0])
    assert (2, 0) not in {(r.stage, r.task) for r in fresh}
    assert scheduler.run(2, 0) == Run(2, 0, 0, W0)


def test_superseded_runs_are_told_apart_and_their_news_ignored() -> None:
    scheduler = Scheduler(plan(), [W0, W1], DRIVER)
    old = scheduler.run(1, 0)
    scheduler.recover([W0])
    assert not scheduler.is_current(old)
    scheduler.finished(old)  # the old attempt ended well: too late, not counted
    fresh = scheduler.recover([W0])  # nothing lost now: nothing runs again
    assert fresh == []


def test_attempts_are_bounded_and_no_worker_left_is_an_error() -> None:
    scheduler = Scheduler(plan(), [W0, W1], DRIVER)
    live = [W0, W1]
    for attempt in range(1, MAX_ATTEMPTS):
        live = [live[0] + "x", live[1] + "x"]  # every worker lost and replaced
        scheduler.recover(live)
        assert scheduler.run(0, 0).attempt == attempt
    with pytest.raises(TaskFailed, match=f"{MAX_ATTEMPTS} attempts"):
        scheduler.recover(["mem://last"])
    with pytest.raises(TaskFailed, match="every worker"):
        Scheduler(plan(), [W0], DRIVER).recover([])


def test_a_cached_chunk_lost_with_its_worker_fails_the_query_saying_so() -> None:
    """A chunk's task runs where the chunk is held; once that worker is lost the chunk is
    gone for this query (the session computes the cache again before the next one)."""
    cached = CachedSource(cache_id="cache_1", chunks=2, columns=("k",), addresses=(W0, W1))
    staged = StagedPlan(columns=("k",), stages=(
        Stage(id=0, fragment=cached, tasks=2, output=Boundary(kind="coalesce")),
        Stage(id=1, fragment=Exchange(stage=0, columns=("k",)), tasks=1, output=Boundary(kind="result")),
    ))
    scheduler = Scheduler(staged, [W0, W1, W2], DRIVER)
    assert where(scheduler) == {(0, 0): (0, W0), (0, 1): (0, W1), (1, 0): (0, W1)}
    with pytest.raises(TaskFailed, match=r"chunk 1 of cache cache_1 was lost with its worker \(mem://w1\)"):
        scheduler.recover([W0, W2])
    with pytest.raises(TaskFailed, match="chunk 0 of cache cache_1 was lost"):
        Scheduler(staged, [W1, W2], DRIVER)


def test_a_whole_read_takes_every_partition_of_every_producer_task() -> None:
    """``Exchange.whole`` (``planner.physical.sharing``): a stage shuffled into two partitions, read
    by one consumer as a broadcast, by the other partition by partition."""
    scan = ParquetScan(splits=(FileSplit(path="/d/a.parquet"),), columns=("k",))
    shuffled = StagedPlan(columns=("k",), stages=(
        Stage(id=0, fragment=scan, tasks=2,
              output=Boundary(kind="shuffle", keys=(Column(name="k"),), partitions=2)),
        Stage(id=1, fragment=Exchange(stage=0, columns=("k",), whole=True), tasks=1,
              output=Boundary(kind="coalesce")),
        Stage(id=2, fragment=Exchange(stage=0, columns=("k",)), tasks=2, output=Boundary(kind="result")),
    ))
    scheduler = Scheduler(shuffled, [W0, W1], DRIVER)
    read = [(i.stage, i.task, i.partition) for i in scheduler.inputs(scheduler.run(1, 0))]
    assert read == [(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1)]
    assert [(i.task, i.partition) for i in scheduler.inputs(scheduler.run(2, 1))] == [(0, 1), (1, 1)]
