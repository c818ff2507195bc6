"""The coordinator's one status channel: how it hears that tasks ended and that workers died.

Every worker tells the driver how each task ended (``taskplan.TaskStatus``, delivered to
``TaskPlan.report_to``), as Spark's executors send their status updates to the driver's
endpoint. The driver's worker hands them to this channel (``Worker.take_statuses``), and one
thread passes them on, in the order they came, to the query they belong to. The same thread
asks the cluster for its losses every ``LIVENESS_TICK`` while a query listens, so a worker
that dies is noticed within a tick even when no status and no read tells of it.

Before it there was a thread per worker and query, each blocked in a read of its tasks'
status partitions in turn: 16 threads made, and a stream opened per task, for every query at
16 workers. Now a query costs no thread, and a session holds one while queries run (it ends
once none listens, so an idle session holds none).

Every wait here is bounded: the thread waits a tick at most for the next status, ``flush``
its timeout, ``close`` the shutdown timeout. A listener's handler runs on the channel's
thread, so it must not wait for the channel itself.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Protocol

from sparkwire.coordinator.taskplan import TaskStatus
from sparkwire.transport.closing import Closeable

_log = logging.getLogger(__name__)

#: Seconds between two looks at the cluster's losses while queries listen. A killed worker
#: process is seen at the first look after its death; a Spark lifeline is polled every 0.2 s.
LIVENESS_TICK = 0.05


class StatusListener(Protocol):
    """What a running query does with what the channel hears (``execution.QueryResult``)."""

    def on_status(self, status: TaskStatus) -> None:
        """A task of this query ended, well or not."""

    def on_loss(self) -> None:
        """The cluster lost a worker (its ``losses()`` grew) since the last look."""


class StatusChannel(Closeable):
    """Statuses from the driver's worker to the queries listening, and the cluster's losses.

    ``put`` is called from any thread (the driver's server threads, or an in-process worker's
    task slot); handlers run on the channel's own thread, one at a time.
    """

    def __init__(self, losses: Callable[[], int], tick: float = LIVENESS_TICK,
                 shutdown: float = 10.0) -> None:
        self._losses = losses
        self._tick = tick
        self._shutdown = shutdown
        self._queue: queue.SimpleQueue[TaskStatus | threading.Event | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._listeners: dict[str, StatusListener] = {}
        self._thread: threading.Thread | None = None
        self._closed = False

    def put(self, status: TaskStatus) -> None:
        """A status as the driver received it; dropped when no query listens for it (the
        query ended, and its tasks' news with it)."""
        with self._lock:
            if status.query_id not in self._listeners:
                return
        self._queue.put(status)

    def listen(self, query_id: str, listener: StatusListener) -> None:
        """Send ``query_id``'s statuses and the cluster's losses to ``listener`` until
        ``forget``; starts the channel's thread if none runs."""
        with self._lock:
            if self._closed:
                return
            self._listeners[query_id] = listener
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="sparkwire-status",
                                                daemon=True)
                self._thread.start()

    def forget(self, query_id: str) -> None:
        """No more news for ``query_id``; idempotent."""
        with self._lock:
            self._listeners.pop(query_id, None)

    def flush(self, timeout: float) -> bool:
        """Wait until what was put before this call has been handled, ``timeout`` seconds at
        most; whether it was. Immediate when no thread runs (nothing is waiting)."""
        handled = threading.Event()
        with self._lock:  # the thread ends under the lock too, setting what it leaves behind
            if self._thread is None or self._thread is threading.current_thread():
                return True
            self._queue.put(handled)
        return handled.wait(timeout)

    def _run(self) -> None:
        """Pass statuses on, and look at the losses every tick, until no query listens."""
        seen: int | None = None  # a first look tells every listener: a loss may predate it
        look_at = time.monotonic()
        while True:
            with self._lock:
                if not self._listeners or self._closed:
                    self._thread = None
                    self._drop_queued()
                    return
            try:
                item = self._queue.get(timeout=max(0.0, look_at - time.monotonic()))
            except queue.Empty:
                item = None
            if isinstance(item, threading.Event):
                item.set()
            elif item is not None:
                with self._lock:
                    listener = self._listeners.get(item.query_id)
                if listener is not None:
                    self._handle(listener.on_status, item)
            if time.monotonic() >= look_at:
                look_at = time.monotonic() + self._tick
                losses = self._losses()
                if losses != seen:
                    seen = losses
                    with self._lock:
                        listeners = list(self._listeners.values())
                    for listener in listeners:
                        self._handle(listener.on_loss)

    def _drop_queued(self) -> None:
        """Empty the queue as the thread ends: statuses nobody listens for any more, and
        ``flush`` calls to answer."""
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if isinstance(item, threading.Event):
                item.set()

    @staticmethod
    def _handle(handler: Callable[..., None], *args: object) -> None:
        """Run a listener's handler; whatever it raises is logged, never the channel's end:
        the thread serves every query of the session."""
        try:
            handler(*args)
        except Exception:  # noqa: BLE001 - one query's bug must not deafen the others
            _log.exception("a status handler raised")

    def close(self) -> None:
        """Stop listening for every query and end the thread (bounded); idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._listeners.clear()
            thread = self._thread
        self._queue.put(None)  # wakes the thread, which sees it is closed
        if thread is not None and thread is not threading.current_thread():
            thread.join(self._shutdown)
