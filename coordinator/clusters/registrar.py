"""Worker registration for workers the coordinator did not start itself (Spark tasks).

The driver runs a ``Registrar``: a TCP listener on the driver's address. On each connection
it sends a random challenge line; a hosted worker answers with one JSON line, a
``Registration``: its ``WorkerAnnouncement`` and a proof, an HMAC of the challenge and the
announcement under a key derived from the cluster secret. A connection that answers wrongly
or not within ``_ANSWER_SECONDS`` is dropped, so a stranger on the network can neither
register a worker of its own nor replay a worker's answer. The worker keeps the connection
open as its *lifeline*: when the registrar closes it the worker shuts down, and when the
worker dies the registrar sees the connection drop and reports the worker lost, until Spark
retries its task and the worker registers again under its id (``SparkCluster.ensure_workers``
then points the cluster at its new address). Answers are
validated by pydantic and size-limited; nothing received is evaluated.
"""

from __future__ import annotations

import hmac
import secrets
import selectors
import socket
import threading
import time
from collections.abc import Iterator

from pydantic import BaseModel, ConfigDict, Field

from sparkwire.coordinator.config import Settings
from sparkwire.coordinator.clusters.hosting import HostedWorker, WorkerAnnouncement
from sparkwire.transport.errors import ConnectionLost
from sparkwire.transport.security import Credentials

MAX_ANNOUNCEMENT_BYTES = 64 * 1024
_CHALLENGE_BYTES = 32
_ANSWER_SECONDS = 30.0
_POLL_SECONDS = 0.2


class Registration(BaseModel):
    """A worker's answer to the registrar's challenge (one JSON line)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    announcement: str = Field(max_length=MAX_ANNOUNCEMENT_BYTES)  # WorkerAnnouncement JSON
    proof: str = Field(default="", max_length=128)  # "" with security off


class Registrar:
    """Accepts up to ``expected`` registrations; watches each lifeline until closed.

    ``credentials``: the cluster's; None (security off) accepts any well-formed answer.
    """

    def __init__(self, host: str, expected: int, credentials: Credentials | None) -> None:
        self._expected = expected
        self._credentials = credentials
        self._listener = socket.create_server((host, 0))
        self._listener.setblocking(False)
        self.address: tuple[str, int] = (host, self._listener.getsockname()[1])
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._listener, selectors.EVENT_READ)
        self._pending: dict[socket.socket, tuple[bytes, float, bytearray]] = {}
        self._workers: dict[socket.socket, WorkerAnnouncement] = {}
        self._lost: dict[str, str] = {}
        self._losses = 0  # lifelines that broke, ever
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="sparkwire-registrar", daemon=True)
        self._thread.start()

    def announcements(self) -> list[WorkerAnnouncement]:
        with self._lock:
            return list(self._workers.values())

    def lost(self) -> dict[str, str]:
        """Workers lost and not registered again: id -> reason."""
        with self._lock:
            return dict(self._lost)

    def losses(self) -> int:
        with self._lock:
            return self._losses

    def _loop(self) -> None:
        while not self._stop.is_set():
            for key, _ in self._selector.select(_POLL_SECONDS):
                if key.fileobj is self._listener:
                    self._accept()
                else:
                    self._readable(key.fileobj)  # type: ignore[arg-type]
            now = time.monotonic()
            for conn in [c for c, (_, since, _) in self._pending.items()
                         if now - since > _ANSWER_SECONDS]:
                self._drop(conn)  # silent: it must not hold a connection forever

    def _accept(self) -> None:
        try:
            conn, _ = self._listener.accept()
        except BlockingIOError:
            return
        challenge = secrets.token_bytes(_CHALLENGE_BYTES)
        try:
            conn.sendall(challenge.hex().encode() + b"\n")  # small: fits any socket buffer
        except OSError:
            conn.close()
            return
        conn.setblocking(False)
        self._pending[conn] = (challenge, time.monotonic(), bytearray())
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
                with self._lock:
                    announcement = self._workers.pop(conn)
                    self._lost[announcement.worker_id] = "its registration connection dropped"
                    self._losses += 1
                self._drop(conn)
            return
        challenge, _, buffer = self._pending[conn]
        buffer.extend(data)
        if not data or len(buffer) > 2 * MAX_ANNOUNCEMENT_BYTES:
            self._drop(conn)
        elif b"\n" in buffer:
            self._register(conn, challenge, bytes(buffer.split(b"\n", 1)[0]))

    def _register(self, conn: socket.socket, challenge: bytes, line: bytes) -> None:
        del self._pending[conn]
        try:
            registration = Registration.model_validate_json(line)
            if self._credentials is not None and not hmac.compare_digest(
                    registration.proof,
                    self._credentials.proof(challenge, registration.announcement.encode())):
                raise ValueError("wrong proof")
            announcement = WorkerAnnouncement.model_validate_json(registration.announcement)
        except ValueError:  # ValidationError is one
            self._drop(conn)
            return
        with self._lock:
            live = {a.worker_id for a in self._workers.values()}
            accepted = len(self._workers) < self._expected and announcement.worker_id not in live
            if accepted:  # a first registration, or a lost worker's Spark task retried
                self._workers[conn] = announcement
                self._lost.pop(announcement.worker_id, None)
        if not accepted:  # a duplicate, or one too many: it stops at once
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
    credentials = settings.transport.security.credentials()
    with socket.create_connection(registrar, timeout=_ANSWER_SECONDS) as lifeline:
        host = lifeline.getsockname()[0]  # this executor's address on the route to the driver
        challenge = bytes.fromhex(_read_line(lifeline, 2 * _CHALLENGE_BYTES + 1).decode())
        hosted = HostedWorker(settings, f"spark-worker-{index}", host=host)
        try:
            announcement = hosted.announcement.model_dump_json()
            proof = credentials.proof(challenge, announcement.encode()) if credentials else ""
            registration = Registration(announcement=announcement, proof=proof)
            lifeline.sendall(registration.model_dump_json().encode() + b"\n")
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


def _read_line(conn: socket.socket, limit: int) -> bytes:
    """One line of at most ``limit`` bytes (the socket's timeout bounds the wait)."""
    line = bytearray()
    while not line.endswith(b"\n"):
        chunk = conn.recv(1)
        if not chunk or len(line) >= limit:
            raise ConnectionLost("the registrar closed the connection or sent garbage")
        line += chunk
    return bytes(line[:-1])
