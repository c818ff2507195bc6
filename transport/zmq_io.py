"""ZeroMQ plumbing shared by the zmq transport's server and client: the options, the settings
every socket gets, and the one I/O thread per socket.

ZeroMQ sockets are not thread-safe, so each socket has one thread that touches it
(``SocketThread``); workers and callers hand it messages through a bounded outbox and wake it
through a socket pair. ZMTP heartbeats every ``heartbeat`` drop a connection silent for
``idle_timeout`` (its host is gone).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections import deque
from collections.abc import Callable

import zmq
from pydantic import BaseModel, ConfigDict, Field, model_validator

from sparkwire.transport import wire

_log = logging.getLogger(__name__)

DEFAULT_CREDIT = 64 << 20
_OUTBOX = 1024          # messages waiting for an I/O thread; senders block beyond
_DRAIN = 256            # messages read per poll round before sending what is queued
STOP_TIMEOUT = 5.0      # how long close() waits for an I/O thread


#: I/O threads at most, whatever the cores.
MAX_IO_THREADS = 16


def auto_io_threads() -> int:
    """One I/O thread per four CPUs this process may run on, 1 to 4.

    libzmq pins each connection to one I/O thread: with the default of one, every stream a
    process reads or serves goes through a single thread, so on 16 cores zmq over 4 streams
    reached 0.42x raw TCP (2.3 against 9.4 GB/s, issue 33) while one stream reached 0.91x.
    ZeroMQ's guide sizes them at one per gigabyte a second; a quarter of the cores gives
    the streams of a many-core host their own threads and leaves a 2-core machine at one (a
    second thread there only competes with the tasks for the same cores)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus // 4))


class ZmqOptions(BaseModel):
    """The transport's options (listed in ``transport.zmq``), validated once when the
    transport is created."""

    model_config = ConfigDict(extra="forbid")

    host: str = Field("127.0.0.1", pattern=r"^[A-Za-z0-9.\-]{1,253}$")
    credit_bytes: int = Field(DEFAULT_CREDIT, ge=wire.MIN_CHARGE, le=1 << 40)
    idle_timeout: float = Field(30.0, gt=0, le=3600)
    heartbeat: float = Field(1.0, gt=0, le=60)
    max_streams: int = Field(256, ge=1, le=4096)
    #: ZeroMQ's I/O threads (0: ``auto_io_threads``). A connection is served by one I/O
    #: thread, which does its TCP sends and receives and its CURVE encryption.
    io_threads: int = Field(0, ge=0, le=MAX_IO_THREADS)

    def context_io_threads(self) -> int:
        """The I/O threads the transport's context gets: the option, or ``auto_io_threads``."""
        return self.io_threads or auto_io_threads()

    @model_validator(mode="after")
    def _heartbeat_within_idle_timeout(self) -> ZmqOptions:
        if self.heartbeat * 2 > self.idle_timeout:
            raise ValueError("heartbeat must be at most half of idle_timeout")
        return self


def heartbeats(sock: zmq.Socket[bytes], options: ZmqOptions) -> None:
    """What every socket of ours gets: no lingering on close, ZMTP heartbeats per ``options``."""
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.HEARTBEAT_IVL, int(options.heartbeat * 1000))
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, int(options.idle_timeout * 1000))
    sock.setsockopt(zmq.HEARTBEAT_TTL, int(options.idle_timeout * 1000))


class SocketThread:
    """The one thread that touches a socket.

    Other threads hand it messages through a bounded outbox and wake it through a socket pair
    (ZeroMQ sockets are not thread-safe; a socket pair is). Messages are sent with
    ``copy=False``, so Arrow buffers go to ZeroMQ as they are.
    """

    def __init__(self, sock: zmq.Socket[bytes], name: str,
                 on_message: Callable[[list[zmq.Frame]], None],
                 on_unsendable: Callable[[list[wire.Frame]], None],
                 on_tick: Callable[[], None] = lambda: None, tick: float = 1.0,
                 extra: dict[zmq.Socket[bytes], Callable[[], None]] | None = None,
                 on_exit: Callable[[], None] = lambda: None) -> None:
        self.socket = sock
        self._on_message, self._on_unsendable = on_message, on_unsendable
        self._on_tick, self._tick, self._on_exit = on_tick, tick, on_exit
        self._extra = extra or {}
        self._cond = threading.Condition()
        self._outbox: deque[list[wire.Frame]] = deque()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def send(self, frames: list[wire.Frame]) -> None:
        """Send from any thread; dropped once stopping (the peer then learns it otherwise)."""
        if threading.current_thread() is self._thread:
            self._send_now(frames)
            return
        with self._cond:
            while len(self._outbox) >= _OUTBOX and not self._stopping.is_set():
                self._cond.wait(0.1)
            if self._stopping.is_set():
                return
            idle = not self._outbox
            self._outbox.append(frames)
        if idle:  # else the I/O thread has yet to empty the outbox, and will see this too
            self._wake()

    def stop(self) -> bool:
        """Stop and join the thread (bounded); ``True`` if it closed its sockets."""
        self._stopping.set()
        self._wake()
        if self._thread.is_alive():
            self._thread.join(STOP_TIMEOUT)
        stopped = not self._thread.is_alive()
        if stopped:
            self._wake_r.close()
            self._wake_w.close()
        return stopped

    def _wake(self) -> None:
        try:
            self._wake_w.send(b"\0")
        except OSError:
            pass  # a wake-up is already pending, or the thread is gone

    def _send_now(self, frames: list[wire.Frame]) -> None:
        try:
            self.socket.send_multipart(frames, zmq.NOBLOCK, copy=False)
        except zmq.ZMQError:
            self._on_unsendable(frames)

    def _run(self) -> None:
        poller = zmq.Poller()
        for sock in (self.socket, *self._extra):
            poller.register(sock, zmq.POLLIN)
        poller.register(self._wake_r, zmq.POLLIN)
        next_tick = time.monotonic() + self._tick
        try:
            while not self._stopping.is_set():
                ready = dict(poller.poll(max(0, int((next_tick - time.monotonic()) * 1000))))
                for _ in range(_DRAIN if self.socket in ready else 0):
                    try:
                        frames = self.socket.recv_multipart(zmq.NOBLOCK, copy=False)
                    except zmq.Again:
                        break
                    try:
                        self._on_message(frames)
                    except Exception:  # a bug handling one message must not stop the socket
                        _log.exception("%s: cannot handle a message", self._thread.name)
                for sock, handle in self._extra.items():
                    if sock in ready:
                        handle()
                if self._wake_r.fileno() in ready:
                    try:
                        while self._wake_r.recv(4096):
                            pass
                    except BlockingIOError:
                        pass
                with self._cond:
                    outbox, self._outbox = self._outbox, deque()
                    self._cond.notify_all()
                for message in outbox:
                    self._send_now(message)
                if time.monotonic() >= next_tick:
                    self._on_tick()
                    next_tick = time.monotonic() + self._tick
        except Exception:
            _log.exception("%s failed", self._thread.name)
        finally:
            self._stopping.set()
            try:
                self._on_exit()
            finally:
                for sock in (*self._extra, self.socket):
                    sock.close(linger=0)

