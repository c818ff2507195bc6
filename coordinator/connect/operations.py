"""The operations (``ExecutePlan`` calls) running now, so ``Interrupt`` can find them by id,
by tag or all.

Each running operation's thread carries a session job tag of its own operation id, beside
the client's tags (``Session.addTag`` tags are per thread), so an interrupt is our
``Session.interruptTag``: the query fails with ``SPARK_JOB_CANCELLED`` and its tasks are
cancelled on every worker. An interrupt can arrive while the operation is still being
planned, before any query of it runs; it is marked here too, and the operation checks the
mark before it starts its query and between result batches. Holding only running
operations, the table is as bounded as the server's thread pool.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sparkwire.transport.errors import QueryCancelled

if TYPE_CHECKING:
    from sparkwire.coordinator.session import Session

_TAG_PREFIX = "spark-connect-operation-"


@dataclass
class _Operation:
    tags: frozenset[str]
    interrupted: bool = field(default=False)


class Operations:
    """The running operations of one server on ``session``."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self._lock = threading.Lock()
        self._running: dict[str, _Operation] = {}

    @contextmanager
    def running(self, operation_id: str, tags: list[str]) -> Iterator[None]:
        """Runs the body as operation ``operation_id`` on this thread, under ``tags``."""
        own = _TAG_PREFIX + operation_id
        with self._lock:
            self._running[operation_id] = _Operation(frozenset(tags))
        for tag in (*tags, own):
            self._session.addTag(tag)
        try:
            yield
        finally:
            for tag in (*tags, own):
                self._session.removeTag(tag)
            with self._lock:
                self._running.pop(operation_id, None)

    def check(self, operation_id: str) -> None:
        """Raises ``QueryCancelled`` if ``operation_id`` was interrupted."""
        with self._lock:
            operation = self._running.get(operation_id)
            interrupted = operation is not None and operation.interrupted
        if interrupted:
            raise QueryCancelled("[OPERATION_CANCELED] Operation has been canceled.",
                                 condition="OPERATION_CANCELED")

    def interrupt(self, *, operation_id: str | None = None, tag: str | None = None) -> list[str]:
        """Interrupts the operations with that id, or that tag, or (neither given) all;
        their ids."""
        with self._lock:
            chosen = [op for op, state in self._running.items()
                      if (operation_id is None or op == operation_id) and (tag is None or tag in state.tags)]
            for op in chosen:
                self._running[op].interrupted = True
        for op in chosen:
            self._session.interruptTag(_TAG_PREFIX + op)
        return chosen
