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

A stage held at a barrier (``adaptive``), and every stage that reads from one, has no run
until it is released (``ready``, ``release``): the held stage once all its shuffle producers
have finished, with what each of its tasks reads (``routing.Read``) and so its task count;
the stages below it once they know that count. Until then, a lost producer's outputs count
as needed, since the held stage will read them.

This module decides and remembers; ``execution.QueryResult`` delivers the plans, watches the
tasks and asks ``recover`` after a loss. It is pure bookkeeping: no I/O, no threads (its
caller serialises ``recover``; ``finished`` and ``streamed`` only add to sets).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from sparkwire.coordinator.routing import Read, route
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

    def __init__(self, plan: StagedPlan, live: list[str], driver: str,
                 barriers: Mapping[int, tuple[int, ...]] | None = None) -> None:
        if not live:
            raise TaskFailed("no live worker to run the query on")
        self._plan, self._driver, self._live = plan, driver, live
        self._final = plan.final.id
        exchanges = {stage.id: [n for n in operators(stage.fragment) if isinstance(n, Exchange)]
                     for stage in plan.stages}
        self._reads = {stage: sorted({n.stage for n in found}) for stage, found in exchanges.items()}
        #: ``(consumer, producer)`` stages read whole (``Exchange.whole``).
        self._whole = {(stage, n.stage) for stage, found in exchanges.items() for n in found if n.whole}
        #: Held stages, each with the producer stages it waits for (``adaptive.barriers``).
        self.barriers: Mapping[int, tuple[int, ...]] = barriers or {}
        #: Stages with no runs yet: the held ones and those reading from them (stage order
        #: is dependency order, so one pass finds them all).
        self._pending: set[int] = set()
        for stage in plan.stages:
            if stage.id in self.barriers or any(p in self._pending for p in self._reads[stage.id]):
                self._pending.add(stage.id)
        #: Per released held stage, per task, what it reads of each shuffle input.
        self._task_reads: dict[int, tuple[dict[int, Read], ...]] = {}
        self._runs: dict[Task, Run] = {
            (stage.id, task): Run(stage.id, task, 0, self._place(stage.id, task, live))
            for stage in plan.stages if stage.id not in self._pending for task in range(stage.tasks)
        }
        self._finished: set[Task] = set()
        self._streamed: set[int] = set()

    @property
    def plan(self) -> StagedPlan:
        """The plan as it runs: a released stage with the task count it was given."""
        return self._plan

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

    # -- stages held at a barrier ----------------------------------------------------------
    def is_planned(self, stage: int) -> bool:
        return stage not in self._pending

    def ready(self) -> list[int]:
        """The pending stages that may be released now: every stage they read has runs, and
        for a held stage, every task of the producers it waits for has finished."""
        return [stage for stage in sorted(self._pending)
                if not any(p in self._pending for p in self._reads[stage])
                and all((p, t) in self._finished for p in self.barriers.get(stage, ())
                        for t in range(self._plan.stages[p].tasks))]

    def release(self, stage: int, reads: tuple[dict[int, Read], ...] | None) -> list[Run]:
        """Give pending ``stage`` its runs: as planned, or one per task of ``reads`` (what
        each reads of each shuffle input, ``adaptive.replan``). The new runs, to deliver."""
        if reads is not None:
            stages = list(self._plan.stages)
            stages[stage] = stages[stage].model_copy(update={"tasks": len(reads)})
            self._plan = self._plan.model_copy(update={"stages": tuple(stages)})
            self._task_reads[stage] = reads
        fresh = [Run(stage, task, 0, self._place(stage, task, self._live))
                 for task in range(self._plan.stages[stage].tasks)]
        self._runs.update(((run.stage, run.task), run) for run in fresh)
        # Planned only now that its runs exist: a reader waiting on ``is_planned`` in another
        # thread (the result's, ``execution._await_planned``) looks them up at once.
        self._pending.discard(stage)
        return fresh

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
        reads = self._task_reads.get(stage)
        for producer in self._reads[stage]:
            boundary = self._plan.stages[producer]
            whole = (stage, producer) in self._whole
            read = reads[task].get(producer) if reads is not None else None
            for producer_task, partition in route(boundary.output, boundary.tasks, consumers,
                                                  task, whole, read):
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
        self._live = live or self._live
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
        if key[0] == self._final or any(key[0] in self._reads[s] for s in self._pending):
            return True
        return any(key in self._producers(consumer)
                   for consumer in self._runs
                   if key[0] in self._reads[consumer[0]]
                   and (consumer not in self._finished or consumer in again))
