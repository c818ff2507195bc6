"""``QueryResult``: one query of a staged plan running on a cluster, and its result stream.

It places every task (``scheduler``), delivers the task plans producers-first, hears how
each task ended from the session's status channel (``status``: the statuses workers send
the driver, and the cluster's losses), and streams the final stage's partitions to the
caller. When a worker is lost mid-query, the tasks it took with it, and those still reading
from them, run again as new attempts (``scheduler.Scheduler.recover``), and readers move to
the new attempts; a failure without a lost worker fails the query. A task that failed on its
data or plan (a ``QueryError``: a division by zero in ANSI mode, a bad cast) fails the query
at once, whoever sees it first, the result's reader or the status channel: it would fail
again anywhere, so there is no news of a lost worker to wait for. Closing the result, early
or at its end, cancels the query on every worker at once, which stops running tasks and
frees their partitions. The calls it makes go through the ``Calls`` its coordinator
(``query_coordinator.QueryCoordinator``) gives it; nothing here knows which transport
carries them.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from typing import Protocol

import pyarrow as pa

from sparkwire.coordinator import delivery
from sparkwire.coordinator.adaptive import Policy, replan
from sparkwire.coordinator.clusters.base import Cluster
from sparkwire.coordinator.config import Settings
from sparkwire.coordinator.metrics import Progress, QueryMetrics, QueryObserver, StageMetrics, tell
from sparkwire.coordinator.runs import task_plan
from sparkwire.coordinator.scheduler import Run, Scheduler
from sparkwire.coordinator.status import StatusChannel
from sparkwire.coordinator.taskplan import TaskStatus, encode_message, encode_tasks
from sparkwire.planner.logical.staged import StagedPlan
from sparkwire.transport.base import PartitionKey
from sparkwire.transport.closing import Closeable
from sparkwire.transport.errors import (ConnectionLost, QueryCancelled, QueryError, SparkwireError,
                                       TaskFailed, Timeout, TransportError, error_from_code)
from sparkwire.transport.stream import PartitionReader

_log = logging.getLogger(__name__)


# After the result stream fails, how long the status channel gets to report a better cause.
# Not paid for a ``QueryError``: that is the cause.
_FAILURE_GRACE = 2.0
# How long a failure that may be a lost worker's doing (a task that could not read its
# inputs, a worker that stopped answering) waits for the cluster to notice a dead worker. A
# killed process is reaped at the first poll and a Spark lifeline is polled every 0.2 s.
_LIVENESS_GRACE = 0.5


class Calls(Protocol):
    """What a query asks of its coordinator (``query_coordinator.QueryCoordinator``): the
    cluster and settings, the status channel, deliveries, the live workers, a cancel, and
    who observes its queries (None: nobody)."""

    cluster: Cluster
    settings: Settings
    statuses: StatusChannel
    observer: QueryObserver | None

    def deliver_each(self, messages: dict[str, list[tuple[bytes, str]]]) -> None: ...

    def live_workers(self) -> list[str]: ...

    def cancel(self, query_id: str) -> None: ...

    def finished(self, query_id: str) -> None: ...


class QueryResult(Closeable):
    """The result stream of one query: ``schema``, iteration, ``metrics``, ``close()``.

    It listens on the status channel (``status.StatusListener``): ``on_status`` records a
    finished run or handles a failed one, ``on_loss`` handles the runs of a lost worker as
    failed ones. Those run on the channel's thread, the result's reading on the caller's;
    ``_recovering`` keeps the two from recovering, or releasing held stages, at once.

    A stage held at a barrier (``adaptive``) is released once its shuffle producers have
    all finished: planned again from their per-partition sizes (``policy``), then delivered
    with the stages waiting on it (``_release``, after each finished run).
    """

    def __init__(self, coordinator: Calls, query_id: str, plan: StagedPlan,
                 scheduler: Scheduler, progress: Progress | None, losses: int,
                 policy: Policy | None = None, tags: frozenset[str] = frozenset()) -> None:
        self._coordinator = coordinator
        self._cluster = coordinator.cluster
        self.query_id = query_id
        self._scheduler = scheduler
        self._policy = policy
        self._tags = tags
        # Per finished producer task of a held stage's inputs, its bytes per partition.
        self._sizes: dict[tuple[int, int], tuple[int, ...]] = {}
        self.metrics = QueryMetrics(
            query_id, {s.id: StageMetrics(s.id, s.tasks, s.output.kind) for s in plan.stages})
        self._progress = progress
        self._observer = coordinator.observer
        #: What ended the query when the reader saw it first (``_failure`` is the channel's).
        self._ended_by: BaseException | None = None
        self._lock = threading.Lock()
        # Notified when a run is heard of or the query fails or closes (``_wait_for_status``).
        self._heard = threading.Condition(self._lock)
        self._recovering = threading.RLock()  # a release that fails to deliver recovers
        self._losses = losses  # the cluster's losses already recovered from
        self._losses_at_start = losses
        # The current run of each task whose status has not come yet.
        self._awaited: dict[tuple[int, int], Run] = {}
        self._failure: SparkwireError | None = None
        self._dispatched = False  # every plan delivered: progress may be reported
        self._complete = False
        self._closed = False
        self._reader: PartitionReader | None = None

    def start(self) -> None:
        """Deliver every task, listen for their statuses, and open the result's first
        partition."""
        runs = self._scheduler.runs()
        tell(self._observer, lambda o: o.query_started(self.query_id, self._plan, self._tags))
        self._coordinator.statuses.listen(self.query_id, self)
        self._deliver(runs)
        self.metrics.add("dispatch", time.perf_counter() - self.metrics.started)
        with self._lock:
            self._dispatched = True
            done = any(stage.done for stage in self.metrics.stages.values())
        if done:
            self._report_progress()
        waiting = time.perf_counter()
        try:
            self._await_planned(self._plan.final.id)
            first, run = self._open_result(0)
        except SparkwireError as exc:
            self._ended_by = self._cause(exc)
            raise self._ended_by from exc
        self._reader = PartitionReader(first.schema, self._batches(first, run, waiting))

    @property
    def _plan(self) -> StagedPlan:
        """The plan as it runs (``Scheduler.plan``): released stages with their task counts."""
        return self._scheduler.plan

    def placement(self, stage: int, task: int) -> str:
        """The address of the worker that ran (the current attempt of) a task."""
        return self._scheduler.run(stage, task).address

    @property
    def schema(self) -> pa.Schema:
        assert self._reader is not None
        return self._reader.schema

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        assert self._reader is not None
        return iter(self._reader)

    # -- delivering runs and hearing of them ------------------------------------------------
    def _deliver(self, runs: list[Run]) -> None:
        """Each worker's runs in one ``Tasks`` message (or a few, each well under the plan
        size limit), in the given order: a round trip per worker, not per task, and the
        workers' round trips at once. Their statuses are awaited from before the first is
        sent, so none comes unexpected."""
        with self._lock:
            self._awaited.update(((run.stage, run.task), run) for run in runs)
        tell(self._observer, lambda o: o.runs_delivered(self.query_id, runs))
        by_worker: dict[str, list[bytes]] = {}
        cores = self._cluster.cores
        for run in runs:
            by_worker.setdefault(run.address, []).append(encode_message(task_plan(
                self._scheduler, run, self.query_id, self._cluster.driver_address, cores)))
        self._coordinator.deliver_each({
            address: [(encode_tasks(batch), f"{len(batch)} task(s)")
                      for batch in delivery.messages(plans)]
            for address, plans in by_worker.items()
        })

    def on_status(self, status: TaskStatus) -> None:
        """A run ended (``status.StatusListener``): a success is recorded; a ``QueryError``
        fails the query; another failure is recovered from if a worker was lost, else it
        fails the query. A status counts once, for the run awaited: a superseded attempt's
        is ignored."""
        with self._lock:
            run = self._awaited.get((status.stage, status.task))
            if run is None or run.attempt != status.attempt or self._closed:
                return
            if status.error is None:
                del self._awaited[(run.stage, run.task)]
                self._heard.notify_all()
        tell(self._observer, lambda o: o.task_ended(self.query_id, status))
        try:
            if status.error is None:
                self._scheduler.finished(run)
                self._record(status)
                self._release()
                return
            error = error_from_code(status.error_code or TaskFailed.code, status.error)
            if isinstance(error, QueryError):
                raise error  # the data's or the plan's fault: the query fails now
            if not self._recover(run):
                raise error
            self._settle(run)
        except SparkwireError as exc:
            self._fail(exc)

    def on_loss(self) -> None:
        """The cluster lost a worker (``status.StatusListener``): a run awaited on a worker
        that is gone is handled as a failed one, as a read of it would have failed: what the
        worker took with it runs again, unless the result's reader recovered already."""
        try:
            for run in self._awaited_on_lost_workers():
                if not self._recover(run):
                    raise self._lost(run, ConnectionLost("the cluster lost it"))
                self._settle(run)
        except SparkwireError as exc:
            self._fail(exc)

    def _settle(self, run: Run) -> None:
        """No status is to come for ``run`` (recovery took care of it): stop awaiting it."""
        with self._lock:
            if self._awaited.get((run.stage, run.task)) == run:
                del self._awaited[(run.stage, run.task)]
                self._heard.notify_all()

    def interrupt(self, reason: str) -> bool:
        """Stop the query as ``SparkSession.interrupt*`` does: its reader gets
        ``QueryCancelled(reason)``, every worker cancels its tasks (DuckDB interrupted). True
        if it was still running."""
        with self._lock:
            running = not (self._closed or self._complete or self._failure is not None)
        if running:
            self._fail(QueryCancelled(reason, condition="SPARK_JOB_CANCELLED"))
        return running

    def _fail(self, exc: SparkwireError) -> None:
        """The query fails with ``exc``, unless it failed or closed already: stop it
        everywhere, and wake the reader."""
        with self._lock:
            if self._closed or self._failure is not None:
                return
            self._failure = exc
            self._heard.notify_all()
        self._coordinator.cancel(self.query_id)

    def _record(self, status: TaskStatus) -> None:
        """Count a finished run's status in the metrics, and report progress."""
        with self._lock:
            stats = self.metrics.stages[status.stage]
            stats.done += 1
            stats.rows += status.rows_out
            stats.bytes += status.bytes_out
            if status.partition_bytes:
                self._sizes[(status.stage, status.task)] = status.partition_bytes
            stats.batches += status.batches_out
            self.metrics.add("task_setup", status.setup_seconds)
            self.metrics.add("task_run", status.seconds - status.setup_seconds)
            self.metrics.tasks_per_worker[status.worker] += 1
            self.metrics.bytes_in.update(status.bytes_in)
            dispatched = self._dispatched
        if dispatched:
            self._report_progress()

    def _report_progress(self) -> None:
        """Call the progress callback, from the first status heard once every plan was
        delivered: a task may end while others are still being delivered, and a callback
        that acted on it then (a test killing a worker, say) would meet a query still
        starting, which begins again under a new id rather than recovering."""
        if self._progress is not None:
            try:
                self._progress(self.metrics)
            except Exception:  # noqa: BLE001 - the caller's callback must not stop the channel
                _log.exception("the progress callback of query %s raised", self.query_id)

    # -- stages held at a barrier ---------------------------------------------------------
    def _release(self) -> None:
        """Deliver the held stages whose producers have all finished, planned again from
        what they wrote (``adaptive.replan``), and the stages that waited on them."""
        with self._recovering:
            while not (self._closed or self._failure is not None) and (ready := self._scheduler.ready()):
                runs: list[Run] = []
                for stage in ready:
                    replanned = None
                    if stage in self._scheduler.barriers and self._policy is not None:
                        sizes = {p: [self._sizes.get((p, t), ()) or (0,) * self._plan.stages[p].output.partitions
                                     for t in range(self._plan.stages[p].tasks)]
                                 for p in self._scheduler.barriers[stage]}
                        replanned = replan(self._plan, stage, sizes, self._policy)
                    runs += self._scheduler.release(stage, replanned.reads if replanned else None)
                    with self._lock:
                        stats = self.metrics.stages[stage]
                        stats.tasks = self._plan.stages[stage].tasks
                        stats.notes = list(replanned.notes) if replanned else []
                        self._heard.notify_all()
                    tell(self._observer, lambda o: o.stage_planned(self.query_id, stage, stats.tasks, stats.notes))
                try:
                    self._deliver(runs)
                except TaskFailed:
                    for run in runs:
                        if not self._recover(run):
                            raise

    def _await_planned(self, stage: int) -> None:
        """Wait until ``stage`` is released (its runs exist), the query fails or closes; at
        most the ``idle`` timeout from the last status heard."""
        idle = self._coordinator.settings.timeouts.idle
        with self._heard:
            while not self._scheduler.is_planned(stage):
                if self._failure is not None:
                    raise self._failure
                if self._closed:
                    raise QueryCancelled(f"query {self.query_id} was closed")
                if not self._heard.wait(idle):
                    raise Timeout(f"stage {stage} of query {self.query_id} was not released "
                                  f"within {idle} s of the last task status")

    # -- after a loss ----------------------------------------------------------------------
    def worker_lost(self, since: int | None = None) -> bool:
        """Whether the cluster lost a worker since it had ``since`` losses (default: since
        this query's last recovery), waiting a short grace for the news: a failure is often
        seen before the death is."""
        since = self._losses if since is None else since
        deadline = time.monotonic() + _LIVENESS_GRACE
        while self._cluster.losses() <= since:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)
        return True

    def _recover(self, run: Run) -> bool:
        """After ``run`` failed: whether that is taken care of, because the run was
        superseded, or a worker was lost and what it took with it runs again (including
        ``run``). A final task whose rows reached the caller is the reader's to report.
        Raises when recovery itself fails (no worker left, too many attempts)."""
        with self._recovering:
            if not self._scheduler.is_current(run) or self._complete or self._closed:
                return True  # superseded, or nobody wants the rest of the result
            if run.stage == self._plan.final.id and self._scheduler.has_streamed(run.task):
                return True
            if not self.worker_lost():
                return False
            self._losses = self._cluster.losses()
            names = {a: self._cluster.names.get(a, a) for a in self._cluster.addresses}
            live = self._coordinator.live_workers()  # replaces a dead worker under a new address
            lost = {address: name for address, name in names.items() if address not in live}
            tell(self._observer, lambda o: o.workers_lost(self.query_id, lost))
            runs = self._scheduler.recover(live)
            self._deliver(runs)
            self.metrics.reruns += len(runs)
            self.metrics.attempts = max([self.metrics.attempts, *(r.attempt + 1 for r in runs)])
            return not self._scheduler.is_current(run)

    def _awaited_on_lost_workers(self) -> list[Run]:
        """The awaited runs whose worker is gone: dead, or replaced under a new address."""
        live = {*self._cluster.addresses, self._cluster.driver_address} - set(self._cluster.dead())
        with self._lock:
            return [run for run in self._awaited.values() if run.address not in live]

    # -- the result --------------------------------------------------------------------
    def _read(self, run: Run, partition: int = 0) -> PartitionReader:
        key = PartitionKey(self.query_id, run.stage, run.task, partition, run.attempt)
        timeout = self._coordinator.settings.timeouts.partition_wait
        return self._cluster.client(run.address).read(key, timeout)

    def _open_result(self, task: int) -> tuple[PartitionReader, Run]:
        """A reader of final task ``task``'s current run, recovering from losses first."""
        while True:
            run = self._scheduler.run(self._plan.final.id, task)
            try:
                return self._read(run), run
            except QueryError:
                raise
            except (TransportError, Timeout, TaskFailed) as exc:
                if not self._recover(run):
                    raise self._lost(run, exc) from exc

    def _batches(self, first: PartitionReader, run: Run, waiting: float) -> Iterator[pa.RecordBatch]:
        streaming = None
        try:
            for task in range(self._plan.final.tasks):
                reader = first
                if task:
                    reader, run = self._open_result(task)
                while True:
                    try:
                        with reader:
                            for batch in reader:
                                if streaming is None:
                                    streaming = time.perf_counter()
                                    self.metrics.add("first_batch", streaming - waiting)
                                if batch.num_rows:
                                    self._scheduler.streamed(task)
                                yield batch
                        break
                    except QueryError:
                        raise
                    except (TransportError, Timeout, TaskFailed) as exc:
                        if self._scheduler.has_streamed(task):
                            raise self._not_again(run, exc) from exc
                        if not self._recover(run):
                            raise self._lost(run, exc) from exc
                        reader, run = self._open_result(task)
            with self._lock:
                self._complete = True
            self._wait_for_status()
            if streaming is not None:
                self.metrics.add("stream", time.perf_counter() - streaming)
        except SparkwireError as exc:
            self._ended_by = self._cause(exc)
            raise self._ended_by from exc
        finally:
            self.close()

    def _not_again(self, run: Run, exc: SparkwireError) -> SparkwireError:
        """The error for a final task whose stream failed after its rows reached the caller."""
        if not self.worker_lost(self._losses_at_start):
            return exc
        name = self._cluster.names.get(run.address, run.address)
        return TaskFailed(
            f"{exc} — worker {name} ({run.address}) or a producer of stage {run.stage} task "
            f"{run.task} was lost after that task had returned rows, so it is not run again "
            "(that would return those rows twice)"
        )

    def _cause(self, exc: SparkwireError) -> SparkwireError:
        """The error to report for a failed query: a ``QueryError`` seen first, by the reader
        or the status channel, is it; otherwise a status on its way may know the precise
        cause (the task that failed first), so stop the query and give the channel a moment
        to hand on what it holds."""
        with self._lock:
            if self._failure is None and isinstance(exc, QueryError):
                self._failure = exc
            failure = self._failure
        self._coordinator.cancel(self.query_id)
        if isinstance(failure, (QueryError, QueryCancelled)):  # nothing more precise to wait for
            return failure
        self._coordinator.statuses.flush(_FAILURE_GRACE)
        with self._lock:
            return self._failure if self._failure is not None else exc

    def _lost(self, run: Run, exc: SparkwireError) -> TaskFailed:
        name = self._cluster.names.get(run.address, run.address)
        return TaskFailed(
            f"worker {name} ({run.address}) failed or was lost running stage {run.stage} "
            f"task {run.task}: {exc}"
        )

    def _wait_for_status(self) -> None:
        """After the last batch, wait for the statuses still to come, for the final metrics
        (bounded by the shutdown timeout: a status lost on its way costs that, no more)."""
        with self._heard:
            self._heard.wait_for(lambda: not self._awaited or self._failure is not None,
                                 self._coordinator.settings.timeouts.shutdown)
            failure = self._failure
        if failure is not None:
            raise failure

    def close(self) -> None:
        """Stop listening, cancel the query on every worker and free its partitions;
        idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._heard.notify_all()
        self.metrics.seconds = time.perf_counter() - self.metrics.started
        tell(self._observer, lambda o: o.query_ended(self.query_id, self.metrics,
                                             self._failure or self._ended_by))
        self._coordinator.statuses.forget(self.query_id)
        self._coordinator.finished(self.query_id)
        self._coordinator.cancel(self.query_id)
        if self._reader is not None:
            self._reader.close()
