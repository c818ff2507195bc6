"""The partition store: where a worker's tasks put their output until consumers read it.

Producers never wait for consumers: a batch that does not fit the memory budget is spilled
to the task's spill file as an Arrow IPC stream, so a producer always finishes and an
exchange can never deadlock, whatever the plan shape and slot count. Readers stream a
partition while it is still being written, in write order, from memory or from disk.
A query's partitions live until ``drop_query`` (the coordinator calls it when the query
ends, succeeds, fails or is cancelled); readers still waiting then get ``QueryCancelled``.

The store also holds this worker's *copies* of other workers' partitions that several of its
tasks read (``create_copy``; filled and shared by ``worker.shared_inputs``): written like any
output, so they count against the same budget once and spill beyond it, and dropped with
their query like any output, whatever happened to the tasks that read them.

An output's partitions cost memory before any row arrives (``PARTITION_BYTES`` each, the
bookkeeping of one partition), counted with the batches from ``create`` until the output is
dropped, and at most half the budget: a plan of many tasks of thousands of partitions each
is refused with a clear error, where it once grew a 512 MiB worker by 1.4 GB that no budget
saw. (Bookkeeping cannot spill, so a store full of batches takes it beyond its budget, by
half at most, and spills the batches that come next.)
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from sparkwire.transport.base import PartitionKey
from sparkwire.transport.errors import ConnectionLost, PartitionNotFound, QueryCancelled, SparkwireError, Timeout
from sparkwire.transport.stream import PartitionReader

_DROPPED_REMEMBERED = 4096
#: What one output partition holds before any row (its entry, lists and condition share):
#: 6.3M empty partitions grew a worker by 1.37 GB, 218 bytes each, rounded up.
PARTITION_BYTES = 256


@dataclass(frozen=True, slots=True)
class _Spilled:
    offset: int
    length: int
    nbytes: int


@dataclass
class _Partition:
    schema: pa.Schema | None = None
    entries: list[pa.RecordBatch | _Spilled] = field(default_factory=list)
    done: bool = False


class TaskOutput:
    """The write side of one task's partitions; owned by the thread running the task."""

    def __init__(self, store: PartitionStore, query_id: str, stage: int, task: int,
                 partitions: list[int], attempt: int = 0) -> None:
        self._store = store
        self.query_id, self.stage, self.task, self.attempt = query_id, stage, task, attempt
        self.cond = threading.Condition()
        self.partitions = {p: _Partition() for p in partitions}
        self.error: SparkwireError | None = None
        self.dropped = False
        self.memory_bytes = 0
        self.partition_bytes = 0  # of ``memory_bytes``: its partitions' bookkeeping
        self._spill_path: Path | None = None
        self._spill_file: int | None = None
        self._spill_size = 0

    @property
    def spilled_bytes(self) -> int:
        """Bytes of this output written to its spill file: what its status reports."""
        return self._spill_size

    # -- producer side -----------------------------------------------------------------
    def start(self, schema: pa.Schema, partitions: list[int] | None = None) -> None:
        """Declare the schema of ``partitions`` (default: all) before writing to them."""
        with self.cond:
            for p in self.partitions if partitions is None else partitions:
                self.partitions[p].schema = schema
            self.cond.notify_all()

    def write(self, partition: int, batch: pa.RecordBatch) -> None:
        nbytes = batch.nbytes
        entry: pa.RecordBatch | _Spilled = batch
        if not self._store._reserve(nbytes):
            entry = self._spill(batch)
        with self.cond:
            if self.dropped:
                if isinstance(entry, pa.RecordBatch):
                    self._store._release(nbytes)
                raise QueryCancelled(f"query {self.query_id} was cancelled")
            if isinstance(entry, pa.RecordBatch):
                self.memory_bytes += nbytes
            self.partitions[partition].entries.append(entry)
            self.cond.notify_all()

    def hold(self, nbytes: int) -> bool:
        """Count ``nbytes`` the task holds on their way to its partitions (``worker.pieces``)
        against the store's budget, as written ones are, until ``let_go``; False, counting
        nothing, when the budget has no room. Dropping the output frees them too."""
        if not self._store._reserve(nbytes):
            return False
        with self.cond:
            if self.dropped:
                self._store._release(nbytes)
                raise QueryCancelled(f"query {self.query_id} was cancelled")
            self.memory_bytes += nbytes
        return True

    def let_go(self, nbytes: int) -> None:
        """``nbytes`` that ``hold`` counted are no longer held; a no-op once dropped, which
        freed them."""
        with self.cond:
            if self.dropped:
                return
            self.memory_bytes -= nbytes
        self._store._release(nbytes)

    def finish(self, partitions: list[int] | None = None) -> None:
        with self.cond:
            for p in self.partitions if partitions is None else partitions:
                self.partitions[p].done = True
            self.cond.notify_all()

    def fail(self, error: SparkwireError) -> bool:
        """Fail the readers of every partition; a no-op once every partition is finished:
        the output is complete, and a later error (bookkeeping after the task) cannot make
        it wrong, so readers still streaming it must not see one. Whether they see it."""
        with self.cond:
            failed = self.error is None and not all(p.done for p in self.partitions.values())
            if failed:
                self.error = error
            self.cond.notify_all()
        return failed

    def _spill(self, batch: pa.RecordBatch) -> _Spilled:
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, batch.schema) as writer:
            writer.write_batch(batch)
        data = sink.getvalue()
        with self.cond:
            if self._spill_file is None:
                fd, name = tempfile.mkstemp(prefix=f"{self.query_id}-{self.stage}-{self.task}-",
                                            suffix=".arrows", dir=self._store.spill_dir)
                self._spill_file, self._spill_path = fd, Path(name)
            offset = self._spill_size
            os.pwrite(self._spill_file, data, offset)
            self._spill_size += data.size
        self._store.spilled_bytes += data.size
        return _Spilled(offset, data.size, batch.nbytes)

    # -- reader side -------------------------------------------------------------------
    def iterate(self, partition: int, idle_timeout: float) -> tuple[pa.Schema, Iterator[pa.RecordBatch]]:
        schema, entries = self.iterate_entries(partition, idle_timeout)
        return schema, (batch for batch, _ in entries)

    def iterate_entries(self, partition: int, idle_timeout: float,
                        ) -> tuple[pa.Schema, Iterator[tuple[pa.RecordBatch, bool]]]:
        """``iterate``, each batch with whether the store holds it in memory (``False``: read
        back from the spill file, a copy of the reader's own)."""
        part = self.partitions[partition]
        with self.cond:
            self._wait(lambda: part.schema is not None, idle_timeout, partition)
            assert part.schema is not None
            return part.schema, self._entries(part, partition, idle_timeout)

    def _entries(self, part: _Partition, partition: int, idle_timeout: float,
                 ) -> Iterator[tuple[pa.RecordBatch, bool]]:
        index = 0
        while True:
            with self.cond:
                self._wait(lambda: index < len(part.entries) or part.done, idle_timeout, partition)
                if index >= len(part.entries):
                    return
                entry = part.entries[index]
            index += 1
            if isinstance(entry, pa.RecordBatch):
                yield entry, True
            else:
                yield self._unspill(entry), False

    def _wait(self, ready: Callable[[], bool], idle_timeout: float, partition: int) -> None:
        """Wait (holding ``cond``) until ``ready()``, raising the task's fate if it ends first."""
        deadline = time.monotonic() + idle_timeout
        while True:
            if self.dropped:
                raise QueryCancelled(f"query {self.query_id} was cancelled")
            if self.error is not None:
                raise self.error
            if ready():
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Timeout(
                    f"no data for partition {partition} of stage {self.stage} task {self.task} "
                    f"of query {self.query_id} within {idle_timeout:g}s"
                )
            self.cond.wait(remaining)

    def _unspill(self, entry: _Spilled) -> pa.RecordBatch:
        with self.cond:
            if self.dropped or self._spill_file is None:
                raise QueryCancelled(f"query {self.query_id} was cancelled")
            data = os.pread(self._spill_file, entry.length, entry.offset)
        return pa.ipc.open_stream(pa.py_buffer(data)).read_next_batch()

    def _drop(self) -> None:
        with self.cond:
            self.dropped = True
            for part in self.partitions.values():
                part.entries.clear()
            freed, self.memory_bytes = self.memory_bytes, 0
            bookkeeping, self.partition_bytes = self.partition_bytes, 0
            if self._spill_file is not None:
                os.close(self._spill_file)
                self._spill_file = None
                if self._spill_path is not None:
                    self._spill_path.unlink(missing_ok=True)
            self.cond.notify_all()
        self._store._release(freed, bookkeeping)


class PartitionStore:
    """All task outputs of one worker, bounded by ``memory_budget`` bytes in memory."""

    def __init__(self, memory_budget: int, spill_dir: Path, idle_timeout: float) -> None:
        self.memory_budget = memory_budget
        self.spill_dir = spill_dir
        self.idle_timeout = idle_timeout
        self.memory_bytes = 0
        self.partition_bytes = 0  # of ``memory_bytes``: the outputs' partitions' bookkeeping
        self.spilled_bytes = 0
        self._tasks: dict[tuple[str, int, int, int], TaskOutput] = {}  # query, stage, task, attempt
        # Recently dropped queries, so a late open() fails fast instead of waiting; bounded.
        self._dropped: OrderedDict[str, None] = OrderedDict()
        # Task outputs kept as a cache's chunks (``pin``), by cache id and chunk: they
        # outlive their query and go with ``drop_query(cache_id)``.
        self._pinned: dict[tuple[str, int], TaskOutput] = {}
        # Copies of other workers' partitions (``create_copy``), by query: one partition each.
        self._copies: dict[str, list[TaskOutput]] = {}
        self._cond = threading.Condition()
        self._closed = False

    def create(self, query_id: str, stage: int, task: int, partitions: list[int],
               attempt: int = 0) -> TaskOutput:
        with self._cond:
            if self._closed:
                raise ConnectionLost("the worker is closing")
            if query_id in self._dropped:
                raise QueryCancelled(f"query {query_id} was cancelled")
            key = (query_id, stage, task, attempt)
            if key in self._tasks:
                raise SparkwireError(
                    f"task {stage}/{task} attempt {attempt} of query {query_id} already exists")
            output = self._output(query_id, stage, task, partitions, attempt)
            self._tasks[key] = output
            self._cond.notify_all()
            return output

    def _output(self, query_id: str, stage: int, task: int, partitions: list[int],
                attempt: int) -> TaskOutput:
        """A new output, its partitions' bookkeeping counted against the budget: at most half
        of it may go to bookkeeping (batches beyond the rest spill; bookkeeping cannot), but
        for one output's, which a store of any size takes (1 MiB at ``MAX_PARTITIONS``)."""
        overhead = len(partitions) * PARTITION_BYTES
        with self._cond:
            if self.partition_bytes and self.partition_bytes + overhead > self.memory_budget // 2:
                raise SparkwireError(
                    f"task {stage}/{task} of query {query_id} would hold {len(partitions)} output "
                    f"partitions ({overhead >> 10} KiB before any row), more than is left of "
                    f"the half of the worker's {self.memory_budget >> 20} MiB partition store "
                    f"that partitions may take ({self.partition_bytes >> 20} MiB held); plan "
                    "fewer partitions or give worker.memory more")
            self.partition_bytes += overhead
            self.memory_bytes += overhead  # with the batches: new ones spill sooner
        output = TaskOutput(self, query_id, stage, task, partitions, attempt)
        output.memory_bytes = output.partition_bytes = overhead  # freed with it (``_drop``)
        return output

    def create_copy(self, key: PartitionKey) -> TaskOutput:
        """An empty output of one partition (0) to hold this worker's copy of ``key``, a
        partition another worker serves. It is no output of this worker's (``open`` never
        finds it) and lives until ``drop_output`` or its query is dropped."""
        with self._cond:
            if self._closed:
                raise ConnectionLost("the worker is closing")
            if key.query_id in self._dropped:
                raise QueryCancelled(f"query {key.query_id} was cancelled")
            output = self._output(key.query_id, key.stage, key.task, [0], key.attempt)
            self._copies.setdefault(key.query_id, []).append(output)
            return output

    def drop_output(self, output: TaskOutput) -> None:
        """Drop one copy (``create_copy``) before its query ends; its readers get
        ``QueryCancelled``, its memory and spill file are freed. Dropping twice is a no-op."""
        with self._cond:
            copies = self._copies.get(output.query_id, [])
            if output not in copies:
                return
            copies.remove(output)
            if not copies:
                del self._copies[output.query_id]
        output._drop()

    def open(self, key: PartitionKey, timeout: float) -> PartitionReader:
        deadline = time.monotonic() + timeout
        with self._cond:
            while (output := self._tasks.get(
                    (key.query_id, key.stage, key.task, key.attempt))) is None:
                if self._closed:
                    raise ConnectionLost("the worker is closing")
                if key.query_id in self._dropped:
                    raise QueryCancelled(f"query {key.query_id} was cancelled")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise PartitionNotFound(f"partition {key} did not appear within {timeout:g}s")
                self._cond.wait(remaining)
        if key.partition not in output.partitions:
            raise PartitionNotFound(f"task {key.stage}/{key.task} has no partition {key.partition}")
        schema, batches = output.iterate(key.partition, self.idle_timeout)
        return PartitionReader(schema, batches)

    def pin(self, cache_id: str, chunk: int, output: TaskOutput) -> None:
        """Keep ``output`` as chunk ``chunk`` of cache ``cache_id`` beyond its query; its
        memory stays counted in the budget (and spills like any other output)."""
        with self._cond:
            if self._closed:
                raise ConnectionLost("the worker is closing")
            self._pinned[(cache_id, chunk)] = output

    def open_pinned(self, cache_id: str, chunk: int) -> PartitionReader:
        """Chunk ``chunk`` of a cache, read from its start."""
        with self._cond:
            output = self._pinned.get((cache_id, chunk))
        if output is None:
            raise PartitionNotFound(
                f"chunk {chunk} of {cache_id} is not held here (a worker lost it, or it was "
                "unpersisted); the next query on the cache computes it again")
        schema, batches = output.iterate(0, self.idle_timeout)
        return PartitionReader(schema, batches)

    def drop_query(self, query_id: str) -> None:
        """Drop a query's outputs, but those pinned to a cache; or a cache's chunks."""
        with self._cond:
            self._dropped[query_id] = None
            while len(self._dropped) > _DROPPED_REMEMBERED:
                self._dropped.popitem(last=False)
            outputs = [t for k, t in self._tasks.items() if k[0] == query_id]
            for output in outputs:
                del self._tasks[(output.query_id, output.stage, output.task, output.attempt)]
            kept = {id(t) for t in self._pinned.values()}
            outputs = [t for t in outputs if id(t) not in kept]
            for key in [k for k in self._pinned if k[0] == query_id]:
                outputs.append(self._pinned.pop(key))
            outputs += self._copies.pop(query_id, [])
            self._cond.notify_all()
        for output in outputs:
            output._drop()

    def partitions_held(self) -> int:
        """Partitions of running queries' tasks, of cached chunks and of copies."""
        with self._cond:
            copies = [t for held in self._copies.values() for t in held]
            outputs = {id(t): t for t in (*self._tasks.values(), *self._pinned.values(), *copies)}
            return sum(len(t.partitions) for t in outputs.values())

    def close(self) -> None:
        """Drop every output, and wake every ``open`` still waiting for a task: a call
        blocked here would hold its server's shutdown (and, at exit, the interpreter's)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            queries = {k[0] for k in self._tasks} | {k[0] for k in self._pinned} | set(self._copies)
        for query_id in queries:
            self.drop_query(query_id)

    def _reserve(self, nbytes: int) -> bool:
        with self._cond:
            if self.memory_bytes + nbytes > self.memory_budget:
                return False
            self.memory_bytes += nbytes
            return True

    def _release(self, nbytes: int, partition_bytes: int = 0) -> None:
        with self._cond:
            self.memory_bytes -= nbytes
            self.partition_bytes -= partition_bytes
