"""Each Spark Connect ``session_id`` its own sparkwire session, as Spark gives each client
session its own ``SparkSession``: its temporary views and runtime config (``spark.conf``)
are its own, while the cluster, and the queries' workers, are the server's
(``Session.newSession``); so are the relations it had translated lately (``translated``).

Bounded two ways, since any client can make up session ids: at most ``limit`` sessions at
once (a new one beyond that is refused with ``RESOURCE_EXHAUSTED`` rather than evicting one
in use), and a session nobody used for ``idle_s`` seconds is closed, looked for whenever a
session is asked for (no thread of its own). A session with a call in progress is never
idle. ``ReleaseSession`` closes one at once. A closed session's id is refused afterwards
with Spark's ``INVALID_HANDLE.SESSION_CLOSED`` (the client would otherwise get a fresh,
empty session without noticing); the most recent ``limit`` such ids are remembered.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sparkwire.coordinator.connect.errors import SessionClosed, TooManySessions
from sparkwire.coordinator.connect.kept import KeptFrames
from sparkwire.coordinator.connect.operations import Operations
from sparkwire.coordinator.connect.relations import Relation, Relations
from sparkwire.coordinator.connect.translated import Translated
from sparkwire.planner.api.dataframe import DataFrame

if TYPE_CHECKING:
    from sparkwire.coordinator.session import Session


@dataclass
class ClientSession:
    """One client's session: its sparkwire session, its running operations, the frames it
    persisted or checkpointed, and the id the server answers with (the client checks it
    never changes)."""

    session: Session
    operations: Operations
    kept: KeptFrames = field(default_factory=KeptFrames)
    translated: Translated = field(default_factory=Translated)
    server_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    calls: int = 0
    last_used: float = field(default_factory=time.monotonic)

    def frame(self, rel: Relation) -> DataFrame:
        """``rel`` as a DataFrame of this session: translated once while the session's
        settings, views and kept frames stay as they were (``translated``)."""
        session = self.session
        state = (session.settings, self.kept.version, tuple(session.views.items()))
        return self.translated.frame(rel, state, lambda: Relations(session, self.kept).frame(rel))


class ClientSessions:
    """The client sessions of one server, each a ``root.newSession()``."""

    def __init__(self, root: Session, limit: int, idle_s: float) -> None:
        if limit < 1 or idle_s <= 0:
            raise ValueError("a Spark Connect server needs room for one session and a positive idle timeout")
        self._root = root
        self._limit = limit
        self._idle_s = idle_s
        self._lock = threading.Lock()
        self._open: dict[str, ClientSession] = {}
        self._closed: OrderedDict[str, None] = OrderedDict()

    @contextmanager
    def use(self, session_id: str) -> Iterator[ClientSession]:
        """The session of ``session_id`` (made on first use), held as in use for the body."""
        expired = self._expire()
        for client in expired:
            _close(client)
        with self._lock:
            client = self._open.get(session_id) or self._start(session_id)
            client.calls += 1
        try:
            yield client
        finally:
            with self._lock:
                client.calls -= 1
                client.last_used = time.monotonic()

    def _start(self, session_id: str) -> ClientSession:
        """Called with the lock held."""
        if session_id in self._closed:
            raise SessionClosed(session_id)
        if len(self._open) >= self._limit:
            raise TooManySessions(
                f"this Spark Connect server holds its maximum of {self._limit} sessions; "
                "stop one (spark.stop()) or wait for an idle one to time out")
        session = self._root.newSession()
        client = ClientSession(session, Operations(session))
        self._open[session_id] = client
        return client

    def release(self, session_id: str) -> ClientSession | None:
        """Closes the session of ``session_id``, interrupting what it runs; its id is refused
        from then on. The session closed, None if it was not open."""
        with self._lock:
            client = self._forget(session_id)
        if client is not None:
            _close(client)
        return client

    def close(self) -> None:
        """Closes every session; idempotent."""
        with self._lock:
            clients = [self._forget(session_id) for session_id in list(self._open)]
        for client in clients:
            if client is not None:
                _close(client)

    def __len__(self) -> int:
        with self._lock:
            return len(self._open)

    def _expire(self) -> list[ClientSession]:
        """Forgets the sessions idle for ``idle_s``; they are closed outside the lock."""
        now = time.monotonic()
        with self._lock:
            idle = [session_id for session_id, client in self._open.items()
                    if client.calls == 0 and now - client.last_used >= self._idle_s]
            return [client for client in map(self._forget, idle) if client is not None]

    def _forget(self, session_id: str) -> ClientSession | None:
        """Called with the lock held."""
        client = self._open.pop(session_id, None)
        self._closed[session_id] = None
        while len(self._closed) > self._limit:
            self._closed.popitem(last=False)
        return client


def _close(client: ClientSession) -> None:
    client.operations.interrupt()
    client.session.close()
