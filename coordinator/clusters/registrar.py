"""Worker registration for workers the coordinator did not start itself (Spark tasks).

The driver runs a ``Registrar``: a TCP listener on the driver's address. A hosted worker
connects, sends its ``WorkerAnnouncement`` as one JSON line, and keeps the connection open
as its *lifeline*: when the registrar closes it the worker shuts down, and when the worker
dies the registrar sees the connection drop and reports the worker lost. Announcements are
validated by pydantic and size-limited; nothing received is evaluated.
"""

from __future__ import annotations

import selectors
import socket
import threading
from collections.abc import Iterator

from pydantic import ValidationError

from sparkwire.coordinator.config import Settings
from sparkwire.coordinator.clusters.hosting import HostedWorker, WorkerAnnouncement

MAX_ANNOUNCEMENT_BYTES = 64 * 1024
_POLL_SECONDS = 0.2


class Registrar:
    """Accepts up to ``expected`` registrations; watches each lifeline until closed."""

    def __init__(self, host: str, expected: int) -> None:
        self._expected = expected
        self._listener = socket.create_server((host, 0))
        self._listener.setblocking(False)
        self.address: tuple[str, int] = (host, self._listener.getsockname()[1])
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._listener, selectors.EVENT_READ)
        self._pending: dict[socket.socket, bytearray] = {}
        self._workers: dict[socket.socket, WorkerAnnouncement] = {}
        self._lost: dict[str, str] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="sparkwire-registrar", daemon=True)
        self._thread.start()

    def announcements(self) -> list[WorkerAnnouncement]:
        with self._lock:
            return list(self._workers.values())

    def lost(self) -> dict[str, str]:
        with self._lock:
            return dict(self._lost)

    def _loop(self) -> None:
        while not self._stop.is_set():
            for key, _ in self._selector.select(_POLL_SECONDS):
                if key.fileobj is self._listener:
                    self._accept()
                else:
                    self._readable(key.fileobj)  # type: ignore[arg-type]

    def _accept(self) -> None:
        try:
            conn, _ = self._listener.accept()
        except BlockingIOError:
            return
        conn.setblocking(False)
        self._pending[conn] = bytearray()
        self._selector.register(conn, selectors.EVENT_READ)

    def _readable(self, conn: socket.socket) -> None:
        try:
            data = conn.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if conn in self._workers:
            if not data:  # the worker process is gone
                announcement = self._workers[conn]
                with self._lock:
                    self._lost[announcement.worker_id] = "its registration connection dropped"
                self._drop(conn)
            return
        buffer = self._pending[conn]
        buffer.extend(data)
        if not data or len(buffer) > MAX_ANNOUNCEMENT_BYTES:
            self._drop(conn)
        elif b"\n" in buffer:
            self._register(conn, bytes(buffer.split(b"\n", 1)[0]))

    def _register(self, conn: socket.socket, line: bytes) -> None:
        del self._pending[conn]
        try:
            announcement = WorkerAnnouncement.model_validate_json(line)
        except ValidationError:
            self._drop(conn)
            return
        with self._lock:
            known = {a.worker_id for a in self._workers.values()}
            if len(self._workers) >= self._expected or announcement.worker_id in known:
                accepted = False
            else:
                self._workers[conn] = announcement
                accepted = True
        if not accepted:  # a retried Spark task or a stranger: it stops at once
            self._drop(conn)

    def _drop(self, conn: socket.socket) -> None:
        self._pending.pop(conn, None)
        self._selector.unregister(conn)
        conn.close()

    def close(self) -> None:
        """Close every lifeline (hosted workers stop) and the listener; idempotent."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._thread.join(5 * _POLL_SECONDS + 1)
        for conn in [*self._pending, *self._workers]:
            conn.close()
        self._selector.close()
        self._listener.close()


def serve_registered(index: int, registrar: tuple[str, int], settings_json: str) -> Iterator[int]:
    """Body of one Spark task: host a worker, register it, serve until the lifeline closes.

    Runs in the executor's Python worker, after PySpark's fork, so the transport's sockets
    and threads belong to this process.
    """
    settings = Settings.model_validate_json(settings_json)
    with socket.create_connection(registrar, timeout=30) as lifeline:
        host = lifeline.getsockname()[0]  # this executor's address on the route to the driver
        hosted = HostedWorker(settings, f"spark-worker-{index}", host=host)
        try:
            lifeline.sendall(hosted.announcement.model_dump_json().encode() + b"\n")
            lifeline.settimeout(1.0)
            while True:
                try:
                    if not lifeline.recv(1):
                        break  # the driver closed the lifeline: stop serving
                except TimeoutError:
                    continue
                except OSError:
                    break
        finally:
            hosted.close()
    yield index
