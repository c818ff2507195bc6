"""How a task reads its exchange inputs, and what that reading did.

A task reads each producer partition its plan names in turn, through the client of the
worker serving it, or from its own worker's copy when other tasks of the worker read the
partition too (``shared_inputs``). A fragment with joins gets an input whole, as a table,
when it ends within what is left of the worker's whole-input share (``whole``); other inputs
stream (``stream``). ``TaskReads`` keeps what the task's reading did: the task's status
reports its rows and bytes, and its failure names an input at fault rather than DuckDB.
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

import pyarrow as pa

from sparkwire.coordinator.taskplan import InputPartition, TaskPlan
from sparkwire.coordinator.worker.memory import ByteBudget
from sparkwire.coordinator.worker.shared_inputs import Provenance, SharedInputs
from sparkwire.transport.base import PartitionKey, TransportClient
from sparkwire.transport.errors import QueryCancelled, TaskFailed
from sparkwire.transport.stream import PartitionReader

__all__ = ["ExchangeInputs", "TaskReads", "input_keys"]

_Item = TypeVar("_Item")


@dataclass(eq=False)
class TaskReads:
    """One task's reading of its inputs: the readers it opened (closed when the task is
    cancelled), the first error reading them raised, the rows and bytes it read (bytes by
    producer stage and ``TransportClient.route``: the UI draws them on the stage graph's
    edges), and its bytes of the worker's whole-input share."""

    query_id: str
    cancelled: threading.Event
    readers: list[PartitionReader] = field(default_factory=list)
    error: BaseException | None = None
    rows: int = 0
    bytes: Counter[tuple[int, str]] = field(default_factory=Counter)
    held: int = 0

    def reading(self, items: Iterator[_Item]) -> Iterator[_Item]:
        """``items`` of an input, what reading them raises kept as ``error``: DuckDB reports
        it as its own failure, which would hide that an input was at fault."""
        try:
            yield from items
        except Exception as exc:  # not GeneratorExit: DuckDB closing the stream is no cause
            self.error = exc
            raise

    def opened(self, open_input: Callable[[], PartitionReader]) -> PartitionReader:
        """An input opened, closed when the task is cancelled; a failure to open it is the
        task's ``error``."""
        try:
            reader = open_input()
        except Exception as exc:
            self.error = exc
            raise
        self.readers.append(reader)
        return reader

    def close(self) -> None:
        """Close every input opened (the task was cancelled)."""
        for reader in list(self.readers):
            reader.close()


def input_keys(plan: TaskPlan) -> list[PartitionKey]:
    """The producer partitions a task reads, as keys."""
    return [PartitionKey(plan.query_id, part.stage, part.task, part.partition, part.attempt)
            for part in plan.inputs]


class ExchangeInputs:
    """A worker's way to its tasks' exchange inputs: ``client`` for a producer's address,
    its shared partitions, its whole-input share, and how long to wait for a producer."""

    def __init__(self, client: Callable[[str], TransportClient], shared: SharedInputs,
                 whole_inputs: ByteBudget, timeout: float) -> None:
        self._client = client
        self._shared = shared
        self._whole_inputs = whole_inputs
        self._timeout = timeout

    def whole(self, reads: TaskReads, parts: list[InputPartition]) -> pa.Table | pa.RecordBatchReader:
        """An input whole, as a table, when it ends within what is left of the worker's
        whole-input share; else a stream of the batches read so far and the rest, each let
        go once DuckDB has read it (their bytes stay taken until the task ends: given back
        at once, other tasks' inputs took them while these were still held, and a 128 MiB
        worker peaked over its bound in ``test_memory``). DuckDB orders a
        fragment's joins by its inputs' sizes and knows a table's rows but not a stream's:
        TPC-H Q7's last stage joined 1.8M lineitem rows to orders before the two nations
        that keep 1 row in 12 (210 ms against 55 ms). A build side is read whole before
        probing anyway; a large input still streams. A batch of a shared partition that
        the store holds in memory takes nothing: the store counts it once for every task
        (``SharedInputs``). The caller gives ``reads.held`` back when the task ends."""
        schema, batches = self._batches(reads, parts)
        held: deque[pa.RecordBatch] = deque()
        for batch, in_store in batches:
            held.append(batch)
            cost = 0 if in_store else batch.nbytes
            if not self._whole_inputs.take(cost):
                rest = (batch for batch, _ in batches)
                return pa.RecordBatchReader.from_batches(schema, _drained(held, rest))
            reads.held += cost
        return pa.Table.from_batches(held, schema=schema)

    def stream(self, reads: TaskReads, parts: list[InputPartition]) -> pa.RecordBatchReader:
        """One Arrow stream over every producer partition a task reads from a stage."""
        schema, batches = self._batches(reads, parts)
        return pa.RecordBatchReader.from_batches(schema, (batch for batch, _ in batches))

    def _batches(self, reads: TaskReads, parts: list[InputPartition],
                 ) -> tuple[pa.Schema, Iterator[tuple[pa.RecordBatch, bool]]]:
        """The batches of every producer partition in ``parts``, in order, each with whether
        the worker's store holds it already (a shared partition's copy); what reading them
        raises is the task's ``error``."""

        def open_part(part: InputPartition) -> tuple[PartitionReader, Callable[[], Provenance]]:
            key = PartitionKey(reads.query_id, part.stage, part.task, part.partition, part.attempt)
            client = self._client(part.address)
            provenance: Callable[[], Provenance] = lambda: (client.route, False)

            def open_input() -> PartitionReader:
                nonlocal provenance
                reader, provenance = self._shared.read(key, client, self._timeout)
                return reader

            return reads.opened(open_input), provenance

        first, first_provenance = open_part(parts[0])

        def batches() -> Iterator[tuple[pa.RecordBatch, bool]]:
            for index, part in enumerate(parts):
                reader, provenance = (first, first_provenance) if index == 0 else open_part(part)
                if not reader.schema.equals(first.schema):
                    raise TaskFailed(
                        f"producer stage {part.stage} task {part.task} wrote schema "
                        f"{reader.schema} but task 0 wrote {first.schema}"
                    )
                for batch in reader:
                    if reads.cancelled.is_set():
                        raise QueryCancelled(f"query {reads.query_id} was cancelled")
                    route, in_store = provenance()
                    reads.rows += batch.num_rows
                    reads.bytes[part.stage, route] += batch.nbytes
                    yield batch, in_store

        return first.schema, reads.reading(batches())


def _drained(held: deque[pa.RecordBatch], rest: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The ``held`` batches, each dropped from it as it is handed on, then ``rest``."""
    while held:
        yield held.popleft()
    yield from rest
