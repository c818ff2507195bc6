"""``QueryCoordinator``: runs a staged plan on a cluster and streams its result.

It assigns every task to a worker, delivers the task plans producers-first, routes every
boundary read through ``coordinator.routing.route``, watches each task's status partition for
progress and failure, and streams the final stage's partitions to the caller. Closing the
result, early or at its end, cancels the query on every worker, which stops running tasks and
frees their partitions. Nothing here knows which transport carries the calls.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pyarrow as pa

from sparkwire.coordinator.attempts import RetriedResult
from sparkwire.coordinator.clusters.base import Cluster
from sparkwire.coordinator.config import Settings
from sparkwire.coordinator.routing import route
from sparkwire.coordinator.taskplan import InputPartition, Members, TaskPlan, encode_message
from sparkwire.coordinator.worker.service import STATUS_PARTITION
from sparkwire.planner.plan import (
    Exchange,
    FileSplit,
    LocalSource,
    Operator,
    ParquetScan,
    Stage,
    StagedPlan,
    operators,
    transform_up,
)
from sparkwire.transport.base import PartitionKey
from sparkwire.transport.errors import QueryCancelled, SparkwireError, TaskFailed, Timeout, TransportError
from sparkwire.transport.stream import PartitionReader
from sparkwire.transport.closing import Closeable


@dataclass
class StageMetrics:
    stage: int
    tasks: int
    boundary: str
    done: int = 0
    rows: int = 0
    bytes: int = 0


@dataclass
class QueryMetrics:
    """What a query did: per stage, rows and bytes crossing its output boundary; and where
    its time went (``phases``, seconds): ``dispatch`` (task plans encoded and delivered),
    ``first_batch`` (from then to the first result batch), ``stream`` (the rest of the
    result), and summed over tasks, ``task_setup`` (a cursor and inputs registered) and
    ``task_run`` (the query, reading inputs and writing partitions)."""

    query_id: str
    stages: dict[int, StageMetrics]
    tasks_per_worker: Counter[str] = field(default_factory=Counter)
    started: float = field(default_factory=time.perf_counter)
    seconds: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)
    attempts: int = 1  # runs it took: more than one when a worker was lost (``attempts``)

    def add(self, phase: str, seconds: float) -> None:
        self.phases[phase] = self.phases.get(phase, 0.0) + seconds


Progress = Callable[[QueryMetrics], None]

# After the result stream fails, how long the status watchers get to report a better cause.
_FAILURE_GRACE = 2.0


class QueryCoordinator:
    def __init__(self, cluster: Cluster, settings: Settings) -> None:
        self.cluster = cluster
        self.settings = settings
        self._members_lock = threading.Lock()
        # What each worker was last told of the membership, and the cluster's losses then.
        self._told: dict[str, tuple[frozenset[str], int]] = {}

    def execute(self, plan: StagedPlan, progress: Progress | None = None) -> RetriedResult:
        """Run ``plan``; a worker lost before the result returned rows means another attempt
        (``coordinator.attempts``)."""
        query_id = uuid.uuid4().hex[:16]
        return RetriedResult(
            lambda attempt: self._attempt(f"{query_id}-{attempt}", plan, progress), self.cluster)

    def _attempt(self, query_id: str, plan: StagedPlan, progress: Progress | None) -> QueryResult:
        metrics = QueryMetrics(
            query_id,
            {s.id: StageMetrics(s.id, s.tasks, s.output.kind) for s in plan.stages},
        )
        self.cluster.ensure_workers()
        self._tell_members()
        placement = self._place(plan)
        result = QueryResult(self, query_id, plan, placement, metrics, progress)
        try:
            for stage in plan.stages:
                for task in range(stage.tasks):
                    task_plan = self._task_plan(query_id, plan, stage, task, placement)
                    self._deliver(placement[stage.id][task], task_plan, f"stage {stage.id} task {task}")
            metrics.add("dispatch", time.perf_counter() - metrics.started)
            result.start()
        except BaseException:
            result.close()
            raise
        return result

    def _deliver(self, address: str, message: TaskPlan | Members, what: str) -> None:
        try:
            self.cluster.client(address).deliver(encode_message(message))
        except (TransportError, Timeout) as exc:
            name = self.cluster.names.get(address, address)
            raise TaskFailed(f"cannot deliver {what} to worker {name} ({address}): {exc}") from exc

    def _tell_members(self) -> None:
        """Tell each live worker the cluster's members (``taskplan.Members``) when they
        changed since it was last told: a worker reads producer partitions from members only."""
        members = frozenset([*self.cluster.addresses, self.cluster.driver_address])
        told = (members, self.cluster.losses())
        dead = set(self.cluster.dead())
        with self._members_lock:
            for address in self.cluster.addresses:
                if address not in dead and self._told.get(address) != told:
                    self._deliver(address, Members(members=tuple(sorted(members))), "the members")
                    self._told[address] = told
            for gone in self._told.keys() - members:
                del self._told[gone]

    def _place(self, plan: StagedPlan) -> dict[int, list[str]]:
        """Task ``i`` of stage ``s`` runs on live worker ``(i + s) mod n``; local data on the
        driver."""
        dead = set(self.cluster.dead())
        addresses = [address for address in self.cluster.addresses if address not in dead]
        if not addresses:
            raise SparkwireError(f"every one of the {len(dead)} workers is lost")
        return {
            stage.id: [
                self.cluster.driver_address
                if isinstance(stage.fragment, LocalSource)
                else addresses[(task + stage.id) % len(addresses)]
                for task in range(stage.tasks)
            ]
            for stage in plan.stages
        }

    def _task_plan(
        self, query_id: str, plan: StagedPlan, stage: Stage, task: int,
        placement: dict[int, list[str]],
    ) -> TaskPlan:
        inputs: list[InputPartition] = []
        for producer_id in _exchanges(stage.fragment):
            producer = plan.stages[producer_id]  # stage ids are positions, producers first
            for producer_task, partition in route(producer.output, producer.tasks, stage.tasks, task):
                inputs.append(
                    InputPartition(
                        address=placement[producer_id][producer_task],
                        stage=producer_id, task=producer_task, partition=partition,
                    )
                )
        fragment = stage.fragment
        if stage.splits:
            fragment = _narrow_scan(fragment, stage.splits[task])
        return TaskPlan(
            query_id=query_id, stage=stage.id, task=task, fragment=fragment,
            inputs=tuple(inputs), output=stage.output,
        )

    def cancel(self, query_id: str) -> None:
        """Cancel the query everywhere; a worker that cannot be reached is skipped."""
        for address in [*self.cluster.addresses, self.cluster.driver_address]:
            try:
                self.cluster.client(address).cancel(query_id)
            except SparkwireError:
                pass


class QueryResult(Closeable):
    """The result stream of one query: ``schema``, iteration, ``metrics``, ``close()``."""

    def __init__(
        self, coordinator: QueryCoordinator, query_id: str, plan: StagedPlan,
        placement: dict[int, list[str]], metrics: QueryMetrics, progress: Progress | None,
    ) -> None:
        self._coordinator = coordinator
        self.query_id = query_id
        self._plan = plan
        self._placement = placement
        self.metrics = metrics
        self._progress = progress
        self._lock = threading.Lock()
        self._watchers: list[threading.Thread] = []
        self._failure: SparkwireError | None = None
        self._closed = False
        self._reader: PartitionReader | None = None

    def start(self) -> None:
        by_worker: dict[str, list[tuple[int, int]]] = {}
        for stage in self._plan.stages:
            for task, address in enumerate(self._placement[stage.id]):
                by_worker.setdefault(address, []).append((stage.id, task))
        for address, tasks in by_worker.items():
            thread = threading.Thread(
                target=self._watch, args=(address, tasks), daemon=True,
                name=f"sparkwire-status-{self.query_id}",
            )
            thread.start()
            self._watchers.append(thread)
        waiting = time.perf_counter()
        try:
            first = self._result_partition(0)
        except SparkwireError as exc:
            raise self._cause(exc) from exc
        self._reader = PartitionReader(first.schema, self._batches(first, waiting))

    @property
    def schema(self) -> pa.Schema:
        assert self._reader is not None
        return self._reader.schema

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        assert self._reader is not None
        return iter(self._reader)

    def _read(self, stage: int, task: int, partition: int = 0) -> PartitionReader:
        address = self._placement[stage][task]
        key = PartitionKey(self.query_id, stage, task, partition)
        timeout = self._coordinator.settings.timeouts.partition_wait
        return self._coordinator.cluster.client(address).read(key, timeout)

    def _result_partition(self, task: int) -> PartitionReader:
        stage = self._plan.final.id
        try:
            return self._read(stage, task)
        except (TransportError, Timeout) as exc:
            raise self._lost(stage, task, exc) from exc

    def _batches(self, first: PartitionReader, waiting: float) -> Iterator[pa.RecordBatch]:
        streaming = None
        try:
            for task in range(self._plan.final.tasks):
                reader = first if task == 0 else self._result_partition(task)
                try:
                    with reader:
                        for batch in reader:
                            if streaming is None:
                                streaming = time.perf_counter()
                                self.metrics.add("first_batch", streaming - waiting)
                            yield batch
                except (TransportError, Timeout) as exc:
                    raise self._lost(self._plan.final.id, task, exc) from exc
            self._wait_for_status()
            if streaming is not None:
                self.metrics.add("stream", time.perf_counter() - streaming)
        except SparkwireError as exc:
            raise self._cause(exc) from exc
        finally:
            self.close()

    def _cause(self, exc: SparkwireError) -> SparkwireError:
        """The error to report for a failed query: a watcher may know the precise cause
        (the task that failed first, the worker that died), so stop the query and give the
        watchers a moment to say so."""
        self._coordinator.cancel(self.query_id)
        deadline = time.monotonic() + _FAILURE_GRACE
        for thread in self._watchers:
            thread.join(max(0.0, deadline - time.monotonic()))
        return self._failure if self._failure is not None else exc

    def _lost(self, stage: int, task: int, exc: SparkwireError) -> TaskFailed:
        address = self._placement[stage][task]
        name = self._coordinator.cluster.names.get(address, address)
        return TaskFailed(
            f"worker {name} ({address}) failed or was lost running stage {stage} task {task}: {exc}"
        )

    def _watch(self, address: str, tasks: list[tuple[int, int]]) -> None:
        """Read each task's status partition on one worker, in delivery order."""
        try:
            for stage, task in tasks:
                try:
                    with self._read(stage, task, STATUS_PARTITION) as reader:
                        table = reader.read_all()
                except (TransportError, Timeout) as exc:
                    raise self._lost(stage, task, exc) from exc
                with self._lock:
                    stats = self.metrics.stages[stage]
                    stats.done += 1
                    if table.num_rows:
                        row = table.to_pylist()[0]
                        stats.rows += row["rows_out"]
                        stats.bytes += row["bytes_out"]
                        self.metrics.add("task_setup", row["setup_seconds"])
                        self.metrics.add("task_run", row["seconds"] - row["setup_seconds"])
                        self.metrics.tasks_per_worker[row["worker"]] += 1
                if self._progress is not None:
                    self._progress(self.metrics)
        except QueryCancelled:
            return  # the query ended; whoever cancelled it reports why
        except SparkwireError as exc:
            with self._lock:
                if self._closed:
                    return
                if self._failure is None:
                    self._failure = exc
            self._coordinator.cancel(self.query_id)

    def _wait_for_status(self) -> None:
        """After the last batch, let the watchers record the final metrics (bounded)."""
        deadline = time.monotonic() + self._coordinator.settings.timeouts.shutdown
        for thread in self._watchers:
            thread.join(max(0.0, deadline - time.monotonic()))
        if self._failure is not None:
            raise self._failure

    def close(self) -> None:
        """Cancel the query on every worker and free its partitions; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self.metrics.seconds = time.perf_counter() - self.metrics.started
        self._coordinator.cancel(self.query_id)
        if self._reader is not None:
            self._reader.close()
        for thread in self._watchers:
            if thread is not threading.current_thread():
                thread.join(self._coordinator.settings.timeouts.shutdown)



def _exchanges(fragment: Operator) -> list[int]:
    """Producer stages a fragment reads, in stage order."""
    return sorted({node.stage for node in operators(fragment) if isinstance(node, Exchange)})


def _narrow_scan(fragment: Operator, splits: tuple[FileSplit, ...]) -> Operator:
    """The fragment with its ParquetScan (a stage holds at most one) restricted to one
    task's splits."""
    return transform_up(
        fragment,
        lambda op: op.model_copy(update={"splits": splits}) if isinstance(op, ParquetScan) else op,
    )
