"""Partition routing: which producer partitions one consumer task reads. One formula, here.

- shuffle and range (P partitions, M producer tasks, P consumer tasks): consumer ``p``
  reads partition ``p`` of every producer task;
- coalesce (M producer tasks → C consumer tasks): consumer ``c`` reads partition 0 of
  producer tasks ``[c*M//C, (c+1)*M//C)``;
- broadcast: every consumer reads partition 0 of every producer task (stored once);
- result: the coordinator reads partition 0 of every final task, in task order;
- a whole read (``Exchange.whole``) of any boundary: every partition of every producer task,
  whatever the consumer task.
"""

from __future__ import annotations

from sparkwire.planner.logical.staged import Boundary


def route(boundary: Boundary, producers: int, consumers: int, consumer: int,
          whole: bool = False) -> list[tuple[int, int]]:
    """``(producer task, partition)`` pairs that consumer task ``consumer`` reads, in order."""
    if not 0 <= consumer < consumers:
        raise ValueError(f"consumer {consumer} outside [0, {consumers})")
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
