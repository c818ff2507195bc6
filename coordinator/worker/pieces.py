"""A task's output on its way into the partition store: batches gathered before they are cut
into the task's partitions, so that each partition gets few, large pieces.

DuckDB hands a task its rows in batches of ``engine.batch_rows``; a shuffle into P
partitions cut each one at once into P pieces of ``batch_rows / P`` rows. Every piece costs
as much as a whole batch wherever it goes: a store entry and its reader's wake-up, an IPC
message and its frame over zmq, Flight or shm (25-60 us a batch against 1 us in memory,
``benchmarks/results/transports.json``), a chunk in the consumer's DuckDB scan; and every
batch cut costs a sort and a Python loop over the runs. Gathered first, the batches of a task
are cut once per ``partitions * piece_bytes`` bytes (or ``partitions * batch_rows`` rows,
whichever comes first), so a piece is about ``piece_bytes`` (``worker.piece_bytes``) or
``batch_rows`` rows, whatever P is. A batch that fills the target alone, as every batch of a
1-partition output does, goes at once, as before.

Why gather whole batches rather than each partition's pieces: a piece is a zero-copy slice of
the batch it was cut from and keeps that batch alive whole, so pieces of many batches held per
partition would hold every one of those batches while counting only their slices; the same
bytes must be held for the same piece size either way, and gathered, the bytes held are the
bytes counted. The gathered batches are cut as one table (``split_by_partition``): one
sort of their partition column, and the ``take`` that orders their rows joins them too, so
cutting 3.1M rows 16 ways costs about what it did batch by batch (90-105 ms on this busy
machine), where concatenating the batches first cost 15-20 % more.

Bounded: the gathered bytes are counted in the partition store's share like written output
(``TaskOutput.hold``), at most ``most`` of them per task (``MemoryPlan.gather``); a batch the
store has no room for is cut and written at once with what was gathered, as it always was
(the store spills it). They are let go when the task ends, however it ends, and dropping the
query (a cancel) frees them with the rest of its output.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import TracebackType

import pyarrow as pa

from sparkwire.coordinator.worker.partitioning import one_batch, split_by_partition
from sparkwire.coordinator.worker.store import TaskOutput

__all__ = ["PieceTarget", "Pieces"]


@dataclass(frozen=True, slots=True)
class PieceTarget:
    """How large a piece a task's output aims at: ``piece_bytes`` (0: cut every batch as it
    comes) or ``piece_rows`` rows, gathering at most ``most`` bytes to get there."""

    piece_bytes: int
    piece_rows: int
    most: int


class Pieces:
    """The write side of one task's output: ``write`` the query's batches, ``flush`` when
    they end; a context manager, whose exit lets go of whatever is still gathered.

    ``partitions`` is None for an output of one partition that carries no partition column
    (coalesce, broadcast, result); else the batches carry it, and are cut by it."""

    def __init__(self, output: TaskOutput, partitions: int | None, target: PieceTarget) -> None:
        self._output = output
        self._partitions = partitions
        ways = partitions or 1
        self._flush_bytes = min(ways * target.piece_bytes, target.most)
        self._flush_rows = ways * target.piece_rows
        self._gathered: list[pa.RecordBatch] = []
        self._rows = 0
        self._held = 0
        #: What was written to the store: rows and bytes of each partition (the coordinator
        #: plans the consumers from them, ``coordinator.adaptive``), and batches (pieces).
        self.partition_rows = [0] * ways
        self.partition_bytes = [0] * ways
        self.batches = 0

    @property
    def rows(self) -> int:
        return sum(self.partition_rows)

    @property
    def bytes(self) -> int:
        return sum(self.partition_bytes)

    def write(self, batch: pa.RecordBatch) -> None:
        if not batch.num_rows:
            return
        nbytes = batch.nbytes
        if (self._held + nbytes < self._flush_bytes and self._rows + batch.num_rows < self._flush_rows
                and self._output.hold(nbytes)):
            self._gathered.append(batch)
            self._rows += batch.num_rows
            self._held += nbytes
            return
        self._gathered.append(batch)
        self.flush()

    def flush(self) -> None:
        """Cut what is gathered into its partitions and write the pieces."""
        if not self._gathered:
            return
        batches, self._gathered, self._rows = self._gathered, [], 0
        self._let_go()
        rows = batches[0] if len(batches) == 1 else pa.Table.from_batches(batches)
        del batches
        pieces = ([(0, one_batch(rows))] if self._partitions is None
                  else split_by_partition(rows, self._partitions))
        for partition, piece in pieces:
            self._output.write(partition, piece)
            self.partition_rows[partition] += piece.num_rows
            self.partition_bytes[partition] += piece.nbytes
            self.batches += 1

    def _let_go(self) -> None:
        held, self._held = self._held, 0
        self._output.let_go(held)

    def __enter__(self) -> Pieces:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._gathered.clear()
        self._rows = 0
        self._let_go()
