"""``Recorder``: what every query on a cluster did, for the UI and the metrics endpoint.

It is the coordinator's ``metrics.QueryObserver``: the query's own threads call it as
things happen (a query starts, runs are delivered, a task ends, workers are found lost, a
stage is planned again, the query closes), beside the ``Progress`` callback and through no other path. Each call
takes one lock, appends to bounded structures and returns: no JSON, no HTML, no waiting.
The HTTP threads copy what they show under the same lock (``records.*_view``) and do the
rest outside it.

A finished query's record is handed to ``finished`` (``history.History``'s queue), whose
thread swaps it for its JSON (``compact``) and writes it to ``ui.history_dir`` when set;
``load`` takes back what an earlier driver wrote.

Each worker's memory as its latest task run ended (``Memory``) is kept per worker name, as
many as the cluster has had.

Bounds: running queries are as many as run; finished ones are kept up to
``history_queries`` and ``history_bytes`` (``records.QueryRecord.size``), the oldest
dropped first; per query, ``tasks_per_query`` task runs and ``events_per_query`` events.
Live clients follow a bounded feed of changes (``changes_since``): one that falls more
than the feed behind is told so, and drops out rather than holding anything up.
"""

from __future__ import annotations

import getpass
import json
import threading
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sparkwire.coordinator.config import UiSettings
from sparkwire.coordinator.metrics import QueryMetrics
from sparkwire.coordinator.scheduler import Run
from sparkwire.coordinator.taskplan import TaskStatus
from sparkwire.coordinator.ui.records import (EDGE_BYTES, EVENT_BYTES, LOST, MAX_TEXT,
                                              TASK_BYTES, Kept, QueryRecord, TaskRecord, kept,
                                              kept_row, new_query, query_row, query_view)
from sparkwire.planner.logical.staged import StagedPlan

#: Changes a live client may fall behind before it is dropped.
FEED = 4096


class Recorder:
    """Bounded records of the queries on one cluster (``metrics.QueryObserver``)."""

    def __init__(self, settings: UiSettings, clock: Callable[[], float] = time.time) -> None:
        self._settings = settings
        self._clock = clock
        self._user = _user()
        self._cond = threading.Condition(threading.Lock())
        self._running: dict[str, QueryRecord] = {}
        #: Finished queries, oldest first: records until the history thread compacts them.
        self._finished: OrderedDict[str, QueryRecord | Kept] = OrderedDict()
        self._finished_bytes = 0
        self._seq = 0
        self._feed: deque[tuple[int, str]] = deque(maxlen=FEED)
        #: Totals since the recorder started, for ``/metrics`` (never dropped with history).
        self.totals: Counter[str] = Counter()
        self.bytes_in: Counter[str] = Counter()
        #: Per worker name: ("tasks", "failed", "bytes_out", "bytes_in", "spill") totals.
        self.per_worker: Counter[tuple[str, str]] = Counter()
        #: Per worker name: its memory as its latest task run ended (``Memory``).
        self.memory: dict[str, Memory] = {}
        #: Told each finished query's record, after the lock (``history.History``); must
        #: not wait.
        self.finished: Callable[[QueryRecord], None] | None = None

    # -- metrics.QueryObserver: on the query's threads ------------------------------------
    def query_started(self, query_id: str, plan: StagedPlan, tags: frozenset[str]) -> None:
        record = new_query(query_id, plan, self._user, tags, self._clock(),
                           self._settings.events_per_query)
        with self._cond:
            self._running[query_id] = record
            record.events.append((record.started, "started", -1, -1, 0))
            self.totals["queries_started"] += 1
            self._changed(query_id)

    def runs_delivered(self, query_id: str, runs: Sequence[Run]) -> None:
        now = self._clock()
        with self._cond:
            record = self._running.get(query_id)
            if record is None:
                return
            room = self._settings.tasks_per_query - len(record.tasks)
            for run in runs:
                if run.attempt:
                    record.reruns += 1
                    self.totals["task_reruns"] += 1
                    record.events.append((now, "rerun", run.stage, run.task, run.attempt))
                if room > 0:
                    record.tasks[(run.stage, run.task, run.attempt)] = TaskRecord(
                        run.stage, run.task, run.attempt, run.address, now)
                    room -= 1
                else:
                    record.tasks_dropped += 1
            self._changed(query_id)

    def task_ended(self, query_id: str, status: TaskStatus) -> None:
        now = self._clock()
        with self._cond:
            record = self._running.get(query_id)
            if record is None:
                return
            task = record.tasks.get((status.stage, status.task, status.attempt))
            if task is not None:
                task.worker, task.ended = status.worker, now
                task.started = now - status.seconds
                task.rows, task.bytes, task.spill = status.rows_out, status.bytes_out, status.spill_bytes
                task.error = None if status.error is None else status.error[:MAX_TEXT]
            if status.error is None:
                stage = record.stages[status.stage]
                stage.done += 1
                stage.rows += status.rows_out
                stage.bytes += status.bytes_out
                stage.seconds += status.seconds
                self.totals["tasks_succeeded"] += 1
                self.totals["rows_out"] += status.rows_out
                self.totals["bytes_out"] += status.bytes_out
                self.totals["spill_bytes"] += status.spill_bytes
                worker = status.worker
                for route, nbytes in status.bytes_in.items():  # a route or two: no Counter.update
                    self.bytes_in[route] += nbytes
                    record.bytes_in[route] += nbytes
                    self.per_worker[worker, "bytes_in"] += nbytes
                for producer, route, nbytes in status.stage_bytes_in:
                    record.edges[producer, status.stage, route] += nbytes
                if status.memory_bytes is not None:
                    self.memory[worker] = Memory(status.memory_bytes, status.rss_bytes, now)
                self.per_worker[worker, "tasks"] += 1
                self.per_worker[worker, "bytes_out"] += status.bytes_out
                self.per_worker[worker, "spill"] += status.spill_bytes
            else:
                self.totals["tasks_failed"] += 1
                self.per_worker[status.worker, "failed"] += 1
            record.events.append((now, "task ended" if status.error is None else "task failed",
                                  status.stage, status.task, status.attempt))
            self._changed(query_id)

    def workers_lost(self, query_id: str, lost: Mapping[str, str]) -> None:
        now = self._clock()
        with self._cond:
            record = self._running.get(query_id)
            if record is None:
                return
            for task in record.tasks.values():
                if task.address in lost and task.ended is None:
                    task.ended, task.error = now, LOST
            for address, name in lost.items():
                record.lost.append((address, name))
                record.size += EVENT_BYTES + len(address) + len(name)
                record.events.append((now, f"worker lost: {name}"[:MAX_TEXT], -1, -1, 0))
            self._changed(query_id)

    def stage_planned(self, query_id: str, stage: int, tasks: int, notes: Sequence[str]) -> None:
        with self._cond:
            record = self._running.get(query_id)
            if record is None:
                return
            planned = record.stages[stage]
            planned.tasks = tasks
            planned.notes = tuple(dict.fromkeys((*planned.notes, *notes)))  # the planner's first
            record.events.append((self._clock(), "stage planned", stage, -1, 0))
            self._changed(query_id)

    def query_ended(self, query_id: str, metrics: QueryMetrics, error: BaseException | None) -> None:
        now = self._clock()
        with self._cond:
            record = self._running.pop(query_id, None)
            if record is None:
                return
            done = all(stage.done >= stage.tasks for stage in record.stages)
            record.state = "failed" if error is not None else "finished" if done else "closed"
            record.ended = now
            if error is not None:
                record.error = f"{type(error).__name__}: {error}"[:MAX_TEXT]
                record.size += len(record.error)
            record.events.append((now, record.state, -1, -1, 0))
            record.size += (TASK_BYTES * len(record.tasks) + EVENT_BYTES * len(record.events)
                            + EDGE_BYTES * len(record.edges))
            self.totals[f"queries_{record.state}"] += 1
            self._finished[query_id] = record
            self._finished_bytes += record.size
            self._evict()
            self._changed(query_id)
        if self.finished is not None:
            self.finished(record)

    # -- for the history thread -----------------------------------------------------------
    def compact(self, record: QueryRecord) -> bytes:
        """A finished query's JSON; its record, while still kept, swapped for that JSON and
        its row (``records.kept``). A finished record never changes, so its view and JSON
        are made outside the lock."""
        view = query_view(record)
        line = json.dumps(view, separators=(",", ":")).encode()
        entry, size = kept(view, line)
        with self._cond:
            if self._finished.get(record.id) is record:
                self._finished[record.id] = entry
                self._finished_bytes += size - record.size
        return line

    def load(self, entries: Sequence[tuple[dict[str, Any], bytes]]) -> None:
        """Queries a driver before this one finished (``history_files.read_back``), oldest
        first, kept as if they had just finished here, within the same bounds."""
        with self._cond:
            for view, line in entries:
                if view["id"] in self._finished or view["id"] in self._running:
                    continue
                entry, size = kept(view, line)
                self._finished[view["id"]] = entry
                self._finished_bytes += size
                self.totals["queries_loaded"] += 1
            self._evict()

    # -- bounds ---------------------------------------------------------------------------
    def _evict(self) -> None:
        """Drop the oldest finished queries past either bound (under the lock)."""
        while self._finished and (len(self._finished) > self._settings.history_queries
                                  or self._finished_bytes > self._settings.history_bytes):
            _, gone = self._finished.popitem(last=False)
            self._finished_bytes -= gone.size if isinstance(gone, QueryRecord) else _size(gone)
            self.totals["queries_evicted"] += 1

    def _changed(self, query_id: str) -> None:
        """Note a change for the live clients and wake them (under the lock)."""
        self._seq += 1
        self._feed.append((self._seq, query_id))
        self._cond.notify_all()

    @property
    def history_bytes(self) -> int:
        """The estimated bytes of the finished queries kept."""
        with self._cond:
            return self._finished_bytes

    # -- for the HTTP threads -------------------------------------------------------------
    def changes_since(self, seq: int, timeout: float) -> tuple[int, set[str] | None]:
        """Wait up to ``timeout`` for changes after ``seq``: the latest sequence number and
        the queries changed since, or None for them when the feed no longer reaches back to
        ``seq`` (the client fell behind)."""
        with self._cond:
            self._cond.wait_for(lambda: self._seq > seq, timeout)
            if self._seq == seq:
                return seq, set()
            if self._feed[0][0] > seq + 1:
                return self._seq, None
            return self._seq, {query_id for number, query_id in self._feed if number > seq}

    @property
    def seq(self) -> int:
        with self._cond:
            return self._seq

    def queries(self) -> list[dict[str, Any]]:
        """Every query kept, running first, then the finished ones, newest first."""
        with self._cond:
            records = [*self._running.values(), *reversed(self._finished.values())]
            return [_row(record) for record in records]

    def query(self, query_id: str) -> dict[str, Any] | None:
        """One query whole; None when it is not (or no longer) kept."""
        with self._cond:
            record = self._running.get(query_id) or self._finished.get(query_id)
            if isinstance(record, QueryRecord):
                return query_view(record)
        return None if record is None else json.loads(record[1])  # JSON made outside the lock

    def row(self, query_id: str) -> dict[str, Any] | None:
        """One query's row, as the list shows it; None when not kept."""
        with self._cond:
            record = self._running.get(query_id) or self._finished.get(query_id)
            return None if record is None else _row(record)

    def counts(self) -> Counts:
        """A consistent copy of the totals, for one scrape of ``/metrics``."""
        with self._cond:
            open_runs: Counter[str] = Counter(
                task.address for record in self._running.values()
                for task in record.tasks.values() if task.ended is None)
            return Counts(Counter(self.totals), Counter(self.bytes_in), Counter(self.per_worker),
                          open_runs, len(self._running), len(self._finished), dict(self.memory))


@dataclass(frozen=True)
class Counts:
    """The recorder's totals at one moment (``Recorder.counts``)."""

    totals: Counter[str]
    bytes_in: Counter[str]
    #: Per (worker name, what): tasks, failed, bytes_out, bytes_in, spill.
    per_worker: Counter[tuple[str, str]]
    #: Per worker address: task runs delivered there and not ended, of the running queries
    #: (those kept: ``tasks_per_query``); beyond its slots, they wait in its queue.
    open_runs: Counter[str]
    running: int
    kept: int
    #: Per worker name: its memory as its latest task run ended.
    memory: dict[str, Memory]


@dataclass(frozen=True, slots=True)
class Memory:
    """A worker's memory as one of its task runs ended (``TaskStatus.memory_bytes``): the
    bytes its accounting held, its process's resident set (None for a worker inside the
    driver, whose process is not its own), and when it was heard."""

    tracked: int
    rss: int | None
    at: float


def _row(record: QueryRecord | Kept) -> dict[str, Any]:
    return query_row(record) if isinstance(record, QueryRecord) else kept_row(record)


def _size(entry: Kept) -> int:
    return kept(entry[0], entry[1])[1]


def _user() -> str:
    """The user the driver runs as, shown with each query; "unknown" where the OS has none."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
