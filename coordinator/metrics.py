"""What a query did and where its time went, as the coordinator counts it while the query
runs (``coordinator.execution``) and hands it to progress callbacks and ``last_metrics``.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from sparkwire.coordinator.scheduler import Run
    from sparkwire.coordinator.taskplan import TaskStatus
    from sparkwire.planner.logical.staged import StagedPlan


@dataclass
class StageMetrics:
    """One stage: its tasks (as run: a stage planned again at its barrier may run fewer or
    more than planned), how many finished, the rows and bytes they wrote, and what adaptive
    execution did to it (``adaptive``: "coalesced 16 partitions into 3 tasks", ...)."""

    stage: int
    tasks: int
    boundary: str
    done: int = 0
    rows: int = 0
    bytes: int = 0
    notes: list[str] = field(default_factory=list)
    #: Batches its tasks wrote (a shuffle's pieces): what readers receive one by one.
    batches: int = 0


@dataclass
class QueryMetrics:
    """What a query did: per stage, rows, bytes and batches crossing its output boundary;
    and where its time went (``phases``, seconds): ``dispatch`` (task plans encoded and
    delivered), ``first_batch`` (from then to the first result batch), ``stream`` (the rest
    of the result), and summed over tasks, ``task_setup`` (a cursor and inputs registered) and
    ``task_run`` (the query, reading inputs and writing partitions)."""

    query_id: str
    stages: dict[int, StageMetrics]
    tasks_per_worker: Counter[str] = field(default_factory=Counter)
    started: float = field(default_factory=time.perf_counter)
    seconds: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)
    attempts: int = 1  # the most runs any task took: more than one after a worker loss
    reruns: int = 0  # task runs beyond the first, all tasks together (``scheduler``)
    #: Bytes tasks read from producers, by the way they travelled (``TransportClient.route``:
    #: memory, shm, zmq, flight; a hybrid cluster's reads split between shm and the network;
    #: ``local``: a worker process reading its own partitions, ``Worker.served_at``;
    #: ``shared``: a batch of a partition a worker fetched once for several of its tasks,
    #: read by all but the first, so the other routes sum to the bytes that moved).
    bytes_in: Counter[str] = field(default_factory=Counter)

    def add(self, phase: str, seconds: float) -> None:
        self.phases[phase] = self.phases.get(phase, 0.0) + seconds


Progress = Callable[[QueryMetrics], None]

_log = logging.getLogger(__name__)


class QueryObserver(Protocol):
    """Told what each query does as it happens, beside ``Progress`` (``coordinator.ui``'s
    recorder is one). Called on the query's own threads (the caller's, the status
    channel's): an observer must only append to bounded structures and return, never wait,
    and never raise (a raise is logged and the query goes on)."""

    def query_started(self, query_id: str, plan: StagedPlan, tags: frozenset[str]) -> None:
        """A query starts running ``plan`` (a new id when a start is tried again)."""

    def runs_delivered(self, query_id: str, runs: Sequence[Run]) -> None:
        """Task runs were handed to their workers (first runs, released stages, re-runs)."""

    def task_ended(self, query_id: str, status: TaskStatus) -> None:
        """A run of the query ended, well or not, as its worker reported it."""

    def workers_lost(self, query_id: str, lost: Mapping[str, str]) -> None:
        """The query found the workers ``lost`` (address: name) gone, dead or replaced under
        a new address, before running again what they took with them."""

    def stage_planned(self, query_id: str, stage: int, tasks: int, notes: Sequence[str]) -> None:
        """A stage held at its barrier was planned again (``adaptive``) to ``tasks`` tasks."""

    def query_ended(self, query_id: str, metrics: QueryMetrics, error: BaseException | None) -> None:
        """The query closed: at its end, early, or failed with ``error``."""


def tell(observer: QueryObserver | None, what: Callable[[QueryObserver], None]) -> None:
    """Tell ``observer`` ``what`` happened, if there is one; what it raises is logged,
    never the query's failure."""
    if observer is None:
        return
    try:
        what(observer)
    except Exception:  # noqa: BLE001 - an observer's bug must not fail the query
        _log.exception("a query observer raised")
