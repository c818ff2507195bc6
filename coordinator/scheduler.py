"""Where each task of a query runs, which attempt of it is current, and what runs again
when a worker is lost: Ballista's model, for a pipelined exchange.

Every task starts as attempt 0 on a live worker. Its outputs are stored under its attempt
(``PartitionKey.attempt``), so a consumer reads exactly the run it was pointed at. When a
worker is lost, its outputs are gone, and ``recover`` decides what runs again, producers
first:

- a task placed on a lost worker, unless it finished and every consumer of its outputs
  finished too (nobody will read them again);
- a task that has not finished and reads from a task that runs again: it may have read part
  of an output that is gone, so it runs again from its inputs' new attempts.

A task that finished on a live worker keeps its outputs: its consumers read them as they are,
whichever attempt they are. That is the difference from re-running the whole query: with
stages pipelined, what re-runs is the lost worker's share and whatever was still reading
from it. A final-stage task whose rows already reached the caller never runs again, since
the caller would get those rows twice; if its stream fails, the query fails saying so
(``execution``). A task runs at most ``MAX_ATTEMPTS`` times.

This module decides and remembers; ``execution.QueryResult`` delivers the plans, watches the
tasks and asks ``recover`` after a loss. It is pure bookkeeping: no I/O, no threads (its
caller serialises ``recover``; ``finished`` and ``streamed`` only add to sets).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from sparkwire.coordinator.routing import route
from sparkwire.coordinator.taskplan import MAX_ATTEMPTS, InputPartition
from sparkwire.planner.logical.plan import Exchange, operators
from sparkwire.planner.logical.sources import CachedSource, LocalSource
from sparkwire.planner.logical.staged import StagedPlan
from sparkwire.transport.errors import TaskFailed

__all__ = ["Run", "Scheduler"]

Task = tuple[int, int]  # stage id, task index


@dataclass(frozen=True, slots=True)
class Run:
    """One attempt of one task, on one worker."""

    stage: int
    task: int
    attempt: int
    address: str


class Scheduler:
    """The runs of one query: placed on ``live`` workers, local data on ``driver``."""

    def __init__(self, plan: StagedPlan, live: list[str], driver: str) -> None:
        if not live:
            raise TaskFailed("no live worker to run the query on")
        self._plan, self._driver = plan, driver
        self._final = plan.final.id
        exchanges = {stage.id: [n for n in operators(stage.fragment) if isinstance(n, Exchange)]
                     for stage in plan.stages}
        self._reads = {stage: sorted({n.stage for n in found}) for stage, found in exchanges.items()}
        #: ``(consumer, producer)`` stages read whole (``Exchange.whole``).
        self._whole = {(stage, n.stage) for stage, found in exchanges.items() for n in found if n.whole}
        self._runs: dict[Task, Run] = {
            (stage.id, task): Run(stage.id, task, 0, self._place(stage.id, task, live))
            for stage in plan.stages for task in range(stage.tasks)
        }
        self._finished: set[Task] = set()
        self._streamed: set[int] = set()

    def _place(self, stage: int, task: int, live: list[str]) -> str:
        """Task ``i`` of stage ``s`` on live worker ``(i + s) mod n``; local data where it is,
        on the driver, and a cached chunk where it is held. A chunk whose worker was lost
        cannot be read in this query (the session computes the cache again before the next
        one, ``Session.cached_source``): ``TaskFailed`` says so."""
        fragment = self._plan.stages[stage].fragment
        if isinstance(fragment, LocalSource):
            return self._driver
        cached = next((n for n in operators(fragment) if isinstance(n, CachedSource)), None)
        if cached is None:
            return live[(task + stage) % len(live)]
        holder = cached.addresses[task]
        if holder not in live and holder != self._driver:
            raise TaskFailed(f"chunk {task} of cache {cached.cache_id} was lost with its worker "
                             f"({holder}); the next query on the cache computes it again")
        return holder

    # -- what runs where -----------------------------------------------------------------
    def runs(self) -> list[Run]:
        """Every current run, producers first (the order to deliver them in)."""
        return sorted(self._runs.values(), key=lambda run: (run.stage, run.task))

    def run(self, stage: int, task: int) -> Run:
        return self._runs[(stage, task)]

    def is_current(self, run: Run) -> bool:
        return self._runs[(run.stage, run.task)] == run

    def inputs(self, run: Run) -> tuple[InputPartition, ...]:
        """The producer partitions ``run`` reads, from their current runs (``routing``)."""
        inputs = []
        for stage, task, partition in self._reads_from((run.stage, run.task)):
            producer = self._runs[(stage, task)]
            inputs.append(InputPartition(address=producer.address, stage=stage, task=task,
                                         partition=partition, attempt=producer.attempt))
        return tuple(inputs)

    def _reads_from(self, key: Task) -> Iterator[tuple[int, int, int]]:
        """``(producer stage, producer task, partition)`` that task ``key`` reads, in order."""
        stage, task = key
        consumers = self._plan.stages[stage].tasks
        for producer in self._reads[stage]:
            boundary = self._plan.stages[producer]
            whole = (stage, producer) in self._whole
            for producer_task, partition in route(boundary.output, boundary.tasks, consumers, task, whole):
                yield producer, producer_task, partition

    # -- what happened -------------------------------------------------------------------
    def finished(self, run: Run) -> None:
        """``run`` ended well (its status says so); ignored if it was superseded."""
        if self.is_current(run):
            self._finished.add((run.stage, run.task))

    def streamed(self, task: int) -> None:
        """Rows of final task ``task`` reached the caller: it never runs again."""
        self._streamed.add(task)

    def has_streamed(self, task: int) -> bool:
        return task in self._streamed

    # -- after a loss --------------------------------------------------------------------
    def recover(self, live: list[str]) -> list[Run]:
        """New attempts, producers first, for what the workers not in ``live`` took with
        them (see the module docstring); raises ``TaskFailed`` when a task would pass
        ``MAX_ATTEMPTS`` or no worker is left."""
        alive = {*live, self._driver}
        again: set[Task] = set()
        grew = True
        while grew:  # to a fixed point: a task run again may need a finished producer's output
            grew = False
            for key in sorted(self._runs.keys() - again):
                run = self._runs[key]
                if run.stage == self._final and run.task in self._streamed:
                    continue
                if run.address not in alive:
                    rerun = key not in self._finished or self._needed(key, again)
                else:
                    rerun = key not in self._finished and any(p in again for p in self._producers(key))
                if rerun:
                    again.add(key)
                    grew = True
        if again and not live:
            raise TaskFailed("every worker of the cluster is lost")
        fresh = []
        for stage, task in sorted(again):
            old = self._runs[(stage, task)]
            if old.attempt + 1 >= MAX_ATTEMPTS:
                raise TaskFailed(
                    f"stage {stage} task {task} lost its worker on each of {MAX_ATTEMPTS} attempts")
            self._runs[(stage, task)] = Run(stage, task, old.attempt + 1, self._place(stage, task, live))
            self._finished.discard((stage, task))
            fresh.append(self._runs[(stage, task)])
        return fresh

    def _producers(self, key: Task) -> set[Task]:
        return {(stage, task) for stage, task, _ in self._reads_from(key)}

    def _needed(self, key: Task, again: set[Task]) -> bool:
        """Whether some reader has yet to read ``key``'s outputs: a consumer task that has
        not finished or runs ``again``, or, for the final stage, the caller."""
        if key[0] == self._final:
            return True
        return any(key in self._producers(consumer)
                   for consumer in self._runs
                   if key[0] in self._reads[consumer[0]]
                   and (consumer not in self._finished or consumer in again))
