"""The zmq transport's client: a DEALER connection to one worker.

One connection per client/server pair; every call and stream is multiplexed on it by id,
with its own I/O thread (``zmq_io.SocketThread``); callers wait on per-call inboxes
(``flow.Inbox``), readers are ``flow.StreamReceiver``s.

A server that is gone is noticed three ways: the socket monitor reports the disconnect
(closed or killed process), ZMTP heartbeats drop a silent connection (host gone), and a client
that has not heard from its server for ``idle_timeout`` although the server pings every
``heartbeat`` while it works for it gives up (wedged process). A lost connection stays lost:
the client fails every pending call and reader with ``ConnectionLost``.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from typing import Any

import zmq
from zmq.utils.monitor import recv_monitor_message

from sparkwire.transport import wire
from sparkwire.transport.base import PartitionKey, TransportClient
from sparkwire.transport.errors import (
    ConfigError,
    ConnectionLost,
    PlanRejected,
    ProtocolError,
    SparkwireError,
    Unauthenticated,
    error_from_code,
)
from sparkwire.transport.flow import Inbox, Liveness, StreamReceiver
from sparkwire.transport.ipc import PayloadCodec
from sparkwire.transport.stream import PartitionReader
from sparkwire.transport.zmq_auth import Curve
from sparkwire.transport.zmq_io import SocketThread, ZmqOptions, heartbeats

_log = logging.getLogger(__name__)

# Anything but a successful handshake means the worker is gone or was never there (a
# client never reconnects, so even a retried connect is a failure).
_MONITORED = (zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_DISCONNECTED | zmq.EVENT_CLOSED
              | zmq.EVENT_CONNECT_RETRIED | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
              | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL | zmq.EVENT_HANDSHAKE_FAILED_AUTH)
# With CURVE, a server holding another key pair fails the handshake without detail.
_FAILED = (zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL, zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL)


class ZmqClient(TransportClient):
    """A DEALER connection to one worker; calls and streams are multiplexed by id."""

    def __init__(self, context: zmq.Context[Any], address: str, codec: PayloadCodec,
                 options: ZmqOptions, curve: Curve | None, routing_id: bytes | None = None) -> None:
        self._address, self._codec, self._window = address, codec, options.credit_bytes
        self._liveness = Liveness(f"worker at {address}", options.idle_timeout)
        self._ids = itertools.count()
        self._lock = threading.Lock()
        self._inboxes: dict[int, Inbox] = {}
        self._lost: SparkwireError | None = None
        self._closed = False
        self._decided = threading.Event()  # the handshake succeeded or failed
        sock = context.socket(zmq.DEALER)
        heartbeats(sock, options)
        sock.setsockopt(zmq.SNDHWM, 0)
        sock.setsockopt(zmq.RCVHWM, 0)  # incoming data is bounded by credit, never dropped
        sock.setsockopt(zmq.RECONNECT_IVL, -1)  # a lost connection stays lost
        if routing_id is not None:  # lets a server tell this client apart (the shm transport)
            sock.setsockopt(zmq.ROUTING_ID, routing_id)
        self._secured = curve is not None
        if curve is not None:
            curve.connect(sock)
        self._monitor = sock.get_monitor_socket(_MONITORED)
        try:
            sock.connect(address)
        except zmq.ZMQError as exc:
            sock.disable_monitor()
            self._monitor.close(linger=0)
            sock.close(linger=0)
            raise ConfigError(f"cannot connect to {address}: {exc}") from exc
        self._io = SocketThread(sock, f"sparkwire-zmq-client {address}", self._on_message,
                                self._on_unsendable, extra={self._monitor: self._on_event},
                                on_exit=self._on_exit)
        self._io.start()
        if not self._decided.wait(options.idle_timeout) or self._lost is not None:
            self.close()
            if isinstance(self._lost, Unauthenticated):
                raise self._lost
            raise ConnectionLost(f"no worker answers at {address}")

    # -- I/O thread ----------------------------------------------------------------------------
    def _on_message(self, frames: list[zmq.Frame]) -> None:
        self._liveness.heard = time.monotonic()
        try:
            header, payload = wire.parse_reply([frame.buffer for frame in frames])
        except ProtocolError as exc:
            self._lose(exc)  # a server we cannot understand cannot be trusted further
            return
        if isinstance(header, wire.Ping):
            return
        if header.id is None:  # the server could not tell which call: fail them all
            self._fail_pending(error_from_code(header.code, header.message))
            return
        with self._lock:
            inbox = self._inboxes.get(header.id)
            if inbox is not None and isinstance(header, wire.Ok | wire.Error | wire.End):
                del self._inboxes[header.id]
        if (inbox is None or not inbox.put(header, payload)) and isinstance(header, wire.Batch):
            self._codec.discard(payload)

    def _on_event(self) -> None:
        while self._monitor.poll(0):
            event = recv_monitor_message(self._monitor)["event"]
            if event == zmq.EVENT_HANDSHAKE_FAILED_AUTH or (self._secured and event in _FAILED):
                self._lose(Unauthenticated(f"the worker at {self._address} refused the handshake: "
                                           "other credentials, or not a sparkwire worker"))
            elif event != zmq.EVENT_HANDSHAKE_SUCCEEDED:
                self._lose(ConnectionLost(f"lost the connection to the worker at {self._address}"))
            self._decided.set()

    def _on_unsendable(self, frames: list[wire.Frame]) -> None:
        self._lose(ConnectionLost(f"cannot send to the worker at {self._address}"))

    def _on_exit(self) -> None:
        self._lose(ConnectionLost(f"the client for {self._address} stopped"))
        self._io.socket.disable_monitor()

    # -- any thread ----------------------------------------------------------------------------
    def _lose(self, error: SparkwireError) -> None:
        """The connection is gone for good: fail what is pending and all that follows."""
        with self._lock:
            if self._lost is None:
                self._lost = error
        self._fail_pending(error)

    def _fail_pending(self, error: SparkwireError) -> None:
        with self._lock:
            inboxes = list(self._inboxes.values())
            self._inboxes.clear()
        for inbox in inboxes:
            inbox.fail(error)

    def _register(self, request_id: int, window: int | None = None) -> Inbox:
        inbox = Inbox(self._liveness, window)
        with self._lock:
            if self._lost is not None:
                raise error_from_code(self._lost.code, str(self._lost))
            self._inboxes[request_id] = inbox
        return inbox

    def _forget(self, request_id: int) -> None:
        with self._lock:
            self._inboxes.pop(request_id, None)

    def _call(self, header: wire.Deliver | wire.Cancel, *payload: wire.Frame) -> None:
        inbox = self._register(header.id)
        try:
            self._io.send(wire.encode(header, *payload))
            inbox.take()
        finally:
            self._forget(header.id)

    def deliver(self, plan: bytes) -> None:
        if len(plan) > wire.MAX_PLAN_BYTES:
            raise PlanRejected(f"task plan of {len(plan)} bytes exceeds {wire.MAX_PLAN_BYTES}")
        self._call(wire.Deliver(id=next(self._ids)), bytes(plan))

    def cancel(self, query_id: str) -> None:
        self._call(wire.Cancel.of(id=next(self._ids), query_id=query_id))

    def read(self, key: PartitionKey, timeout: float) -> PartitionReader:
        stream_id = next(self._ids)
        request = wire.Open.of(id=stream_id, key=key, timeout=min(max(timeout, 0.0), wire.MAX_TIMEOUT),
                               credit=self._window)
        inbox = self._register(stream_id, self._window)
        receiver = StreamReceiver(stream_id, inbox, self._window, self._codec,
                                  self._io.send, self._forget)
        self._io.send(wire.encode(request))
        return receiver.open()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._lose(ConnectionLost(f"the client for {self._address} is closed"))
        if not self._io.stop():
            _log.warning("the I/O thread of the client for %s did not stop", self._address)
