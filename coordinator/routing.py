"""Partition routing: which producer partitions one consumer task reads. One formula, here.

- shuffle and range (P partitions, M producer tasks, P consumer tasks): consumer ``p``
  reads partition ``p`` of every producer task;
- coalesce (M producer tasks → C consumer tasks): consumer ``c`` reads partition 0 of
  producer tasks ``[c*M//C, (c+1)*M//C)``;
- broadcast: every consumer reads partition 0 of every producer task (stored once);
- result: the coordinator reads partition 0 of every final task, in task order;
- a whole read (``Exchange.whole``) of any boundary: every partition of every producer task,
  whatever the consumer task;
- a stage re-planned at its barrier (``adaptive``) says per task what it reads of each
  shuffle input (a ``Read``, Spark's ``ShufflePartitionSpec``): partitions ``[start, end)``
  of every producer task (Spark's ``CoalescedPartitionSpec``), or of producer tasks
  ``[first, last)`` only (``PartialReducerPartitionSpec``, a skewed partition split).
"""

from __future__ import annotations

from dataclasses import dataclass

from sparkwire.planner.logical.staged import Boundary


@dataclass(frozen=True, slots=True)
class Read:
    """What one consumer task of a re-planned stage reads of one shuffle input: partitions
    ``partitions`` of producer tasks ``producers`` (None: every producer task)."""

    partitions: range
    producers: range | None = None


def route(boundary: Boundary, producers: int, consumers: int, consumer: int,
          whole: bool = False, read: Read | None = None) -> list[tuple[int, int]]:
    """``(producer task, partition)`` pairs that consumer task ``consumer`` reads, in order."""
    if not 0 <= consumer < consumers:
        raise ValueError(f"consumer {consumer} outside [0, {consumers})")
    if read is not None:
        tasks = range(producers) if read.producers is None else read.producers
        return [(task, p) for p in read.partitions for task in tasks]
    if whole:
        return [(task, p) for task in range(producers) for p in range(boundary.partitions)]
    if boundary.kind in ("shuffle", "range"):
        if consumers != boundary.partitions:
            raise ValueError(
                f"shuffle into {boundary.partitions} partitions read by {consumers} tasks"
            )
        return [(task, consumer) for task in range(producers)]
    if boundary.kind == "coalesce":
        start, stop = consumer * producers // consumers, (consumer + 1) * producers // consumers
        return [(task, 0) for task in range(start, stop)]
    # broadcast, and the result read by the coordinator (a single consumer)
    return [(task, 0) for task in range(producers)]
