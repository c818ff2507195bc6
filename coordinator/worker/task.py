"""A task as its worker holds it from its plan's arrival to its end: the plan, its compiled
query and output, and what stops it (``cancel``) wherever it is then: waiting in the queue,
reading its inputs, or in DuckDB."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from sparkwire.coordinator.taskplan import TaskPlan
from sparkwire.coordinator.worker.compile import CompiledFragment
from sparkwire.coordinator.worker.engine import TaskEngine
from sparkwire.coordinator.worker.inputs import TaskReads
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
