"""The worker: validates task plans, runs them in DuckDB, and serves their partitions.

``Worker`` implements ``transport.base.WorkerService``, so every transport serves the same
object; it never learns which transport carries its calls. Tasks wait in a bounded FIFO
queue and run on ``task_slots`` threads. Because the coordinator delivers producers before
their consumers and a producer never waits for a consumer (the store spills instead), FIFO
order alone keeps any plan shape from deadlocking, whatever the number of slots.

When a task ends, its worker tells the driver how (``taskplan.TaskStatus`` delivered to
``TaskPlan.report_to``): its metrics on success, its error on failure, the one the task's
readers see. That is how the coordinator learns progress and failures, on one channel
(``coordinator.status``) rather than a read per task. The driver's own worker hands the
statuses it receives to that channel (``take_statuses``). A failure of the task's own query
is a ``QueryError`` (its data or plan is at fault: the query fails at once); one reading its
inputs is a plain ``TaskFailed`` (a producer's worker may be lost: the coordinator looks),
unless the producer's own was a ``QueryError``, which passes on unchanged
(``Worker._failure``).
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeAlias, assert_never

import pyarrow as pa

from sparkwire.coordinator.config import Settings
from sparkwire.coordinator.worker.engine import Databases, EngineError, EngineInterrupted
from sparkwire.coordinator.worker.admission import FairQueue, QueueFull
from sparkwire.coordinator.worker.disclosure import redact
from sparkwire.coordinator.worker.memory import ByteBudget, MemoryPlan, resident_bytes
from sparkwire.coordinator.worker.files import check_files, check_output_directory
from sparkwire.coordinator.worker.opened import files_per_task, raise_open_files_limit
from sparkwire.coordinator.worker.writer import WRITE_SCHEMA, write_task
from sparkwire.coordinator.worker.pieces import Pieces, PieceTarget
from sparkwire.coordinator.worker.compile import (
    PARTITION_COLUMN,
    CachedTable,
    CompiledFragment,
    ExchangeTable,
    LocalTable,
    RowGroupTable,
    compile_task,
)
from sparkwire.coordinator.worker.inputs import ExchangeInputs, input_keys
from sparkwire.coordinator.worker.shared_inputs import SharedInputs
from sparkwire.coordinator.worker.spill import new_spill_dir
from sparkwire.coordinator.worker.store import PartitionStore
from sparkwire.coordinator.worker.task import Task
from sparkwire.coordinator.membership import MembershipCheck
from sparkwire.coordinator.taskplan import (Members, TaskPlan, Tasks, TaskStatus,
                                            decode_message, encode_message)
from sparkwire.planner.logical.plan import Aggregate, Join, SetOperation, Sort, Window, operators
from sparkwire.transport.base import PartitionKey, TransportClient
from sparkwire.transport.memory import InProcessClient
from sparkwire.transport.errors import (
    PlanRejected,
    QueryCancelled,
    QueryError,
    SparkwireError,
    TaskFailed,
    as_library_error,
)
from sparkwire.transport.stream import PartitionReader

_log = logging.getLogger(__name__)

#: The route of reads of a worker's own partitions (``Worker.served_at``).
LOCAL_ROUTE = "local"


#: Operators that read all their input before their first row out (a set operation's
#: ``UNION ALL`` aside, which is rare in a narrow stage).
_BLOCKING = (Aggregate, Join, SetOperation, Sort, Window)

#: What a task's query reads as one table: Arrow data (a stream or in hand), or Parquet
#: row groups that DuckDB reads itself.
_Source: TypeAlias = pa.Table | pa.RecordBatchReader | RowGroupTable


def _in_hand(source: _Source) -> bool:
    """Whether reading ``source`` waits on no other task: anything but a stream."""
    return not isinstance(source, pa.RecordBatchReader)


class Worker:
    """A worker's whole state: its queue, slots, partition store and peer connections."""

    def __init__(
        self,
        worker_id: str,
        settings: Settings,
        connect: Callable[[str], TransportClient],
        own_process: bool = False,
    ) -> None:
        """``own_process``: the worker is alone in its process (``HostedWorker``), so the
        process's resident set is its own to report with each task's status."""
        self.worker_id = worker_id
        self.own_process = own_process
        self.settings = settings
        self._connect = connect
        self._own_dir = new_spill_dir(settings.worker.spill_dir or Path(tempfile.gettempdir()),
                                      worker_id)
        # Partitions spill beside, not among, the DuckDB databases' spill directories.
        (self._own_dir / "partitions").mkdir()
        memory = MemoryPlan.of(settings.worker)
        self.store = PartitionStore(memory.store, self._own_dir / "partitions", settings.timeouts.idle)
        self._shared = SharedInputs(self.store)
        # Resolved by the cluster where it knows the machine (``ClusterBase``); else here.
        engine = settings.worker.engine.model_copy(update={"threads": settings.worker.threads()})
        self._engines = Databases(  # wide: as many threads as the worker runs when busy
            engine, engine.temp_directory or self._own_dir, memory.engine,
            wide_threads=engine.threads + settings.worker.task_slots - 1)
        self._piece_target = PieceTarget(int(settings.worker.piece_bytes),
                                         engine.batch_rows, memory.gather)
        self._whole_inputs = ByteBudget(memory.whole_input)
        raise_open_files_limit()  # a task holds its files open while it runs (``opened``)
        self._max_files = files_per_task(settings.worker.task_slots)
        self._inputs = ExchangeInputs(self._client, self._shared, self._whole_inputs,
                                      settings.timeouts.partition_wait)
        self._queue: FairQueue[Task] = FairQueue(settings.worker.max_queued_tasks,
                                                  settings.worker.max_queued_per_query)
        self._lock = threading.Lock()
        self._running: dict[str, set[Task]] = {}
        self._clients: dict[str, TransportClient] = {}
        self._address: str | None = None  # where this worker is served, once it is
        self._local: dict[str, list[pa.Table]] = {}
        #: Where producer partitions may be read from (``taskplan.Members``); none until told.
        self._members: frozenset[str] = frozenset()
        self._membership = MembershipCheck(settings.transport.security.coordinator_key)
        #: Where statuses delivered here go (``take_statuses``): the driver's only.
        self._statuses: Callable[[TaskStatus], None] | None = None
        self.completed: deque[dict[str, object]] = deque(maxlen=10_000)
        self._closed = False
        self._slots = [
            threading.Thread(target=self._slot, name=f"{worker_id}-slot-{i}", daemon=True)
            for i in range(settings.worker.task_slots)
        ]
        for thread in self._slots:
            thread.start()

    # -- WorkerService ------------------------------------------------------------------
    def submit(self, plan: bytes) -> None:
        message = decode_message(plan)
        if isinstance(message, Members):
            with self._lock:
                self._members = self._membership.take(message)
            return
        if isinstance(message, TaskStatus):
            if self._statuses is None:
                raise PlanRejected(f"worker {self.worker_id} takes no task statuses: it is no driver")
            self._statuses(message)
            return
        plans = message.plans if isinstance(message, Tasks) else (message,)
        accepted = [self._accept(task_plan) for task_plan in plans]  # all valid, or none queued
        # Every task's inputs expected before any task is queued, so that a task starting
        # before the next is queued knows the next reads its partitions too (``SharedInputs``).
        for task_plan, _ in accepted:
            self._shared.expect(input_keys(task_plan))
        for index, (task_plan, compiled) in enumerate(accepted):
            try:
                self._enqueue(task_plan, compiled)
            except BaseException:
                for unqueued, _ in accepted[index:]:
                    self._shared.release(input_keys(unqueued))
                raise

    def _accept(self, task_plan: TaskPlan) -> tuple[TaskPlan, CompiledFragment]:
        """The plan compiled, once everything it names is allowed; else ``PlanRejected``."""
        addresses = {part.address for part in task_plan.inputs}
        if task_plan.report_to is not None and task_plan.report_to != self._address:
            addresses.add(task_plan.report_to)  # reporting to itself (the driver's) dials nothing
        with self._lock:
            strangers = addresses - self._members
        if strangers:
            raise PlanRejected(
                f"the task plan reads from or reports to {len(strangers)} address(es) that are "
                f"not members of the cluster, e.g. {min(strangers)!r}"
            )
        try:
            compiled = compile_task(task_plan.fragment, task_plan.output, task_plan.ansi,
                                    task_plan.time_zone, task_plan.task)
        except (ValueError, TypeError) as exc:
            raise PlanRejected(f"cannot compile task plan: {exc}") from None
        except RecursionError:
            raise PlanRejected("cannot compile task plan: it nests too deep") from None
        check_files(compiled.files, self.settings.worker.engine.data_roots, self._max_files)
        if compiled.write is not None:
            check_output_directory(compiled.write.directory, self.settings.worker.engine.data_roots)
        read = {t.stage for t in compiled.tables if isinstance(t, ExchangeTable)}
        named = {part.stage for part in task_plan.inputs}
        if read != named:
            raise PlanRejected(
                f"the fragment reads stages {sorted(read)} but the inputs name stages {sorted(named)}"
            )
        return task_plan, compiled

    def _enqueue(self, task_plan: TaskPlan, compiled: CompiledFragment) -> None:
        data = list(range(task_plan.output.partitions))
        output = self.store.create(task_plan.query_id, task_plan.stage, task_plan.task,
                                   data, task_plan.attempt)
        if task_plan.keep is not None:
            self.store.pin(task_plan.keep, task_plan.task, output)
        try:
            self._queue.put(task_plan.query_id, Task(task_plan, compiled, output))
        except QueueFull as full:
            error = SparkwireError(f"worker {self.worker_id} is busy: {full}")
            output.fail(error)
            raise error from None

    def open(self, key: PartitionKey, timeout: float) -> PartitionReader:
        return self.store.open(key, timeout)

    def cancel(self, query_id: str) -> None:
        with self._lock:
            running = list(self._running.pop(query_id, ()))
        for task in running:
            task.cancel()
        self.store.drop_query(query_id)
        self._shared.drop_query(query_id)

    def memory_in_use(self) -> int:
        """The bytes this worker's accounting holds now (``memory``): its partition store's
        batches and bookkeeping, and its tasks' whole inputs. DuckDB's share is its own
        business (bounded by its ``memory_limit``) and not counted."""
        return self.store.memory_bytes + self._whole_inputs.held

    def take_statuses(self, receive: Callable[[TaskStatus], None]) -> None:
        """Hand every ``TaskStatus`` delivered to this worker to ``receive``: this worker is
        the driver's, the address task plans report to (``coordinator.status``)."""
        self._statuses = receive

    # -- local data published by the driver ---------------------------------------------
    def publish(self, source_id: str, chunks: list[pa.Table]) -> None:
        """Hold in-memory data (``createDataFrame``) that ``LocalSource`` tasks here read."""
        with self._lock:
            self._local[source_id] = chunks

    def unpublish(self, source_id: str) -> None:
        with self._lock:
            self._local.pop(source_id, None)

    # -- running tasks ------------------------------------------------------------------
    def _slot(self) -> None:
        """Run queued tasks until the worker closes. Whatever one task raises fails that
        task, never the slot: a slot that died would leave its queue unserved."""
        while (task := self._queue.get()) is not None:
            if task.output.dropped:
                self._shared.release(input_keys(task.plan))
                continue
            with self._lock:
                self._running.setdefault(task.plan.query_id, set()).add(task)
            deadline = threading.Timer(self.settings.timeouts.task, self._overran, (task,))
            deadline.daemon = True
            deadline.start()
            try:
                self._run(task)
            except BaseException as exc:  # noqa: BLE001 - the slot must outlive any task
                _log.exception("worker %s: task %s/%s/%s failed outside its run",
                               self.worker_id, task.plan.query_id, task.plan.stage, task.plan.task)
                with contextlib.suppress(Exception):
                    message = redact(f"{type(exc).__name__}: {exc}", task.compiled.files)
                    self._fail(task, TaskFailed(f"worker {self.worker_id}: {message}"))
            finally:
                deadline.cancel()
                self._whole_inputs.give(task.reads.held)
                self._shared.release(input_keys(task.plan))
                with self._lock:
                    peers = self._running.get(task.plan.query_id)
                    if peers is not None:
                        peers.discard(task)
                        if not peers:
                            del self._running[task.plan.query_id]

    def _overran(self, task: Task) -> None:
        """``task`` ran past ``timeouts.task``: it fails, then is stopped like a cancelled one."""
        limit = self.settings.timeouts.task
        self._fail(task, QueryError(
            f"worker {self.worker_id}, stage {task.plan.stage}, task {task.plan.task}: ran longer "
            f"than timeouts.task ({limit:g} s) and was stopped"))
        task.cancel()

    def _run(self, task: Task) -> None:
        plan, output = task.plan, task.output
        started = time.perf_counter()
        data = list(range(plan.output.partitions))
        try:
            # A narrow task whose query sees all its input before its first row out reads
            # its inputs whole first: with them in hand it waits on no other task, so it may
            # take the wide database (``Databases``). One that would stream rows out as they
            # come streams them in: reading first would only delay its first row.
            wide = plan.narrow and self._engines.widens
            inputs = self._inputs_of(task, whole=wide and any(
                isinstance(node, _BLOCKING) for node in operators(plan.fragment)))
            with self._engines.task(wide=wide and all(_in_hand(s) for _, s in inputs)) as engine:
                task.engine = engine
                if task.cancelled.is_set():
                    raise QueryCancelled(f"query {plan.query_id} was cancelled")
                engine.open_files(task.compiled.files, task.compiled.file_lists)
                for name, source in inputs:
                    if isinstance(source, RowGroupTable):
                        engine.register_row_groups(name, source.splits)
                    else:
                        engine.register(name, source)
                setup = time.perf_counter() - started
                result = engine.run(task.compiled.sql, task.compiled.bounded_calls)
                schema = result.schema
                batches: Iterable[pa.RecordBatch] = result
                if task.compiled.write is not None:  # the rows go to a file; its name out
                    batches = [write_task(task.compiled.write, plan.task, result.schema, result,
                                          self.settings.worker.engine.data_roots)]
                    schema = WRITE_SCHEMA
                shuffle = plan.output.kind in ("shuffle", "range")
                if shuffle:
                    schema = schema.remove(schema.get_field_index(PARTITION_COLUMN))
                output.start(schema, data)
                with Pieces(output, plan.output.partitions if shuffle else None,
                            self._piece_target) as pieces:
                    for batch in batches:
                        pieces.write(batch)
                    pieces.flush()
                seconds, threads = time.perf_counter() - started, engine.threads
            # Finished once its database is let go: a narrow reader waiting for this output
            # then finds the worker idle and may run wide (``Databases``).
            output.finish(data)
        except QueryCancelled:
            return
        except BaseException as exc:  # noqa: BLE001 - every failure must reach the readers
            if task.cancelled.is_set():
                return
            self._fail(task, self._failure(task, exc))
            return
        self._report(plan, task.succeeded(
            self.worker_id, pieces, shuffle, seconds, setup, self.memory_in_use(),
            resident_bytes() if self.own_process else None))
        self.completed.append(
            {"query_id": plan.query_id, "stage": plan.stage, "task": plan.task,
             "rows_out": pieces.rows, "bytes_out": pieces.bytes, "seconds": seconds,
             "threads": threads}
        )

    def _fail(self, task: Task, error: SparkwireError) -> None:
        """The task failed with ``error``: its readers see it, and so does the coordinator;
        unless its output was complete already (it was reported so)."""
        if task.output.fail(error):
            self._report(task.plan, TaskStatus.failed(task.plan, self.worker_id, error))

    def _report(self, plan: TaskPlan, status: TaskStatus) -> None:
        """Tell the coordinator how ``plan``'s task ended, at ``plan.report_to``. Logged, not
        raised, when that fails: a driver out of reach has lost the query anyway, and the
        coordinator bounds its wait for a status that never comes."""
        if plan.report_to is None:
            return
        try:
            self._client(plan.report_to).deliver(encode_message(status))
        except SparkwireError as exc:
            _log.warning("worker %s: cannot report stage %s task %s of query %s to %s: %s",
                         self.worker_id, plan.stage, plan.task, plan.query_id, plan.report_to, exc)

    def _failure(self, task: Task, exc: BaseException) -> TaskFailed:
        """What a failed task tells its readers. A failure of its own query (DuckDB refused a
        value, a cast, the plan) is a ``QueryError``: it would fail again anywhere, so the
        coordinator fails the query at once. One reading an input is a plain ``TaskFailed``,
        which the coordinator recovers from if a worker was lost; unless the producer itself
        reported a ``QueryError``, passed on as it is: it names the task at the root."""
        cause = task.reads.error
        if isinstance(cause, QueryError):
            return cause
        own = cause is None and isinstance(exc, EngineError) and not isinstance(exc, EngineInterrupted)
        message = redact(str(as_library_error(cause or exc)), task.compiled.files)
        where = f"worker {self.worker_id}, stage {task.plan.stage}, task {task.plan.task}"
        return (QueryError if own else TaskFailed)(f"{where}: {message}")

    def _inputs_of(self, task: Task, whole: bool) -> list[tuple[str, _Source]]:
        """Every table the compiled query reads, under the compiler's names, to register;
        exchange inputs whole where they are small (``ExchangeInputs.whole``) when the
        fragment joins (DuckDB then orders its joins by their rows) or ``whole`` asks,
        others as streams, so a fragment that joins nothing starts on its first batch."""
        plan = task.plan
        whole = whole or any(isinstance(node, Join) for node in operators(plan.fragment))
        inputs: list[tuple[str, _Source]] = []
        for table in task.compiled.tables:
            match table:
                case ExchangeTable():
                    parts = [p for p in plan.inputs if p.stage == table.stage]
                    inputs.append((table.name, self._inputs.whole(task.reads, parts) if whole
                                   else self._inputs.stream(task.reads, parts)))
                case LocalTable():
                    with self._lock:
                        chunks = self._local.get(table.source_id)
                    if chunks is None or plan.task >= len(chunks):
                        raise TaskFailed(f"local source {table.source_id} chunk {plan.task} is not here")
                    inputs.append((table.name, chunks[plan.task]))
                case RowGroupTable():
                    inputs.append((table.name, table))
                case CachedTable():
                    chunk = table.cache_id, plan.task
                    reader = task.reads.opened(lambda: self.store.open_pinned(*chunk))
                    inputs.append((table.name, pa.RecordBatchReader.from_batches(
                        reader.schema, task.reads.reading(iter(reader)))))
                case _:
                    assert_never(table)
        return inputs

    def served_at(self, address: str) -> None:
        """This worker is served at ``address``: its tasks read partitions from there in this
        process, the producer's own batches, never through the transport. Spark reads local
        shuffle blocks the same way; with two worker processes it is half of every shuffle's
        bytes, which would otherwise cross a socket to this same process and back."""
        self._address = address

    def _client(self, address: str) -> TransportClient:
        with self._lock:
            client = self._clients.get(address)
            if client is None:
                client = self._clients[address] = (
                    InProcessClient(lambda: self, address, LOCAL_ROUTE) if address == self._address
                    else self._connect(address))
            return client

    def close(self) -> None:
        """Stop the slots, cancel what runs, drop every partition, remove the spill dir."""
        if self._closed:
            return
        self._closed = True
        with self._lock:
            running = [t for tasks in self._running.values() for t in tasks]
            clients = list(self._clients.values())
            self._clients.clear()
        for task in running:
            task.cancel()
        self._queue.close()  # what is left is dropped with the store
        for thread in self._slots:
            thread.join(self.settings.timeouts.shutdown)
        self.store.close()
        self._shared.close()
        self._engines.close()
        for client in clients:
            client.close()
        shutil.rmtree(self._own_dir, ignore_errors=True)
