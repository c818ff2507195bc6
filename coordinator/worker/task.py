"""A task as its worker holds it from its plan's arrival to its end: the plan, its compiled
query and output, and what stops it (``cancel``) wherever it is then: waiting in the queue,
reading its inputs, or in DuckDB."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field

from sparkwire.coordinator.taskplan import TaskPlan, TaskStatus
from sparkwire.coordinator.worker.compile import CompiledFragment
from sparkwire.coordinator.worker.engine import TaskEngine
from sparkwire.coordinator.worker.inputs import TaskReads
from sparkwire.coordinator.worker.pieces import Pieces
from sparkwire.coordinator.worker.store import TaskOutput

__all__ = ["Task"]


@dataclass(eq=False)  # identity: tasks live in sets
class Task:
    plan: TaskPlan
    compiled: CompiledFragment
    output: TaskOutput
    cancelled: threading.Event = field(default_factory=threading.Event)
    engine: TaskEngine | None = None
    reads: TaskReads = field(init=False)

    def __post_init__(self) -> None:
        self.reads = TaskReads(self.plan.query_id, self.cancelled)

    def cancel(self) -> None:
        self.cancelled.set()
        if self.engine is not None:
            self.engine.interrupt()
        self.reads.close()

    def succeeded(self, worker: str, pieces: Pieces, shuffle: bool, seconds: float, setup: float,
                  memory: int, rss: int | None) -> TaskStatus:
        """The status of this task's run that wrote ``pieces``: its metrics, what it read by
        route and by producer stage, and its worker's memory as it ended (``memory``, and
        ``rss`` where the worker is a process of its own)."""
        plan, read = self.plan, self.reads.bytes
        by_route: Counter[str] = Counter()
        for (_, route), nbytes in read.items():
            by_route[route] += nbytes
        return TaskStatus(
            query_id=plan.query_id, stage=plan.stage, task=plan.task, attempt=plan.attempt,
            worker=worker, rows_in=self.reads.rows, rows_out=pieces.rows, bytes_out=pieces.bytes,
            batches_out=pieces.batches, seconds=seconds, setup_seconds=setup,
            bytes_in=dict(by_route), spill_bytes=self.output.spilled_bytes,
            stage_bytes_in=tuple((stage, route, nbytes) for (stage, route), nbytes in read.items()),
            memory_bytes=memory, rss_bytes=rss,
            partition_rows=tuple(pieces.partition_rows) if shuffle else (),
            partition_bytes=tuple(pieces.partition_bytes) if shuffle else ())
