"""The ZeroMQ transport: workers on any hosts, partitions as Arrow IPC frames, flow-controlled.

Capabilities: not zero copy (a batch is written once as Arrow IPC, in C++ with the GIL
released, then ZeroMQ sends that buffer as it is and the reader maps the received frame),
crosses processes and hosts; ``max_inflight_bytes`` is a reader's credit window. The messages
are ``transport.wire``'s.

Options (keyword arguments, from config ``SPARKWIRE_TRANSPORT__OPTIONS__<NAME>``):

- ``host``: the interface ``serve()`` binds when given no address (default ``127.0.0.1``;
  the port is the OS's choice);
- ``credit_bytes``: a reader's window, bytes sent but not yet consumed (default 64 MiB);
- ``idle_timeout``: seconds a client waits without hearing from its server, and for the
  connection handshake, before ``ConnectionLost`` (default 30);
- ``heartbeat``: seconds between a server's pings to the clients it works for and between
  ZMTP heartbeats (default 1; at most half of ``idle_timeout``);
- ``max_streams``: streams and calls one server runs at once; more are refused with an error,
  never queued, so a full pool cannot deadlock readers (default 256).

Threads: a server is one ROUTER socket with one I/O thread, the only thread that touches it,
plus a bounded pool of worker threads for the service's blocking calls (``submit``, ``open``,
batch iteration); they hand messages to it through a bounded outbox and a wake-up socket pair.
A client is one DEALER (one connection per client/server pair; every call and stream is
multiplexed on it) with its own I/O thread; callers wait on per-call inboxes.

A peer that is gone is noticed three ways: the client's socket monitor reports the disconnect
(closed or killed process), ZMTP heartbeats drop a silent connection (host gone), and a client
that has not heard from its server for ``idle_timeout`` although the server pings every
``heartbeat`` while it works for it gives up (wedged process). A lost connection stays lost:
the client fails every pending call and reader with ``ConnectionLost``. A server learns that a
client is gone when a send to it (a ping at the latest) fails (``ROUTER_MANDATORY``; ZMTP
heartbeats drop silent clients) and closes that client's streams, releasing their producers.

To carry batches another way (the shm transport: ``ipc://`` endpoints, batches in shared
memory), reuse ``ZmqServer`` and ``ZmqClient`` with another ``wire.PayloadCodec``.
"""

from __future__ import annotations

import functools
import itertools
import logging
import re
import socket
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import zmq
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from zmq.utils.monitor import recv_monitor_message

from transport import wire
from transport.base import Capabilities, PartitionKey, TransportClient, WorkerService, WorkerTransport
from transport.errors import (
    ConfigError,
    ConnectionLost,
    PlanRejected,
    ProtocolError,
    SparkwireError,
    TransportError,
    error_from_code,
)
from transport.stream import PartitionReader

_log = logging.getLogger(__name__)

_DEFAULT_CREDIT = 64 << 20
_OUTBOX = 1024          # messages waiting for an I/O thread; senders block beyond
_DRAIN = 256            # messages read per poll round before sending what is queued
_STOP_TIMEOUT = 5.0     # how long close() waits for an I/O thread
_ADDRESS = re.compile(r"tcp://[A-Za-z0-9.\-]{1,253}:[0-9]{1,5}")
# Anything but a successful handshake means the worker is gone or was never there (a
# client never reconnects, so even a retried connect is a failure).
_MONITORED = (zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_DISCONNECTED | zmq.EVENT_CLOSED
              | zmq.EVENT_CONNECT_RETRIED | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL
              | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL | zmq.EVENT_HANDSHAKE_FAILED_AUTH)


class ZmqOptions(BaseModel):
    """The transport's options, validated once when the transport is created."""

    model_config = ConfigDict(extra="forbid")

    host: str = Field("127.0.0.1", pattern=r"^[A-Za-z0-9.\-]{1,253}$")
    credit_bytes: int = Field(_DEFAULT_CREDIT, ge=wire.MIN_CHARGE, le=1 << 40)
    idle_timeout: float = Field(30.0, gt=0, le=3600)
    heartbeat: float = Field(1.0, gt=0, le=60)
    max_streams: int = Field(256, ge=1, le=4096)

    @model_validator(mode="after")
    def _heartbeat_within_idle_timeout(self) -> ZmqOptions:
        if self.heartbeat * 2 > self.idle_timeout:
            raise ValueError("heartbeat must be at most half of idle_timeout")
        return self


def _heartbeats(sock: zmq.Socket[bytes], options: ZmqOptions) -> None:
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.HEARTBEAT_IVL, int(options.heartbeat * 1000))
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, int(options.idle_timeout * 1000))
    sock.setsockopt(zmq.HEARTBEAT_TTL, int(options.idle_timeout * 1000))


class _SocketThread:
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
            self._thread.join(_STOP_TIMEOUT)
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


class ZmqServer:
    """One worker's service on a ROUTER socket."""

    def __init__(self, context: zmq.Context[Any], service: WorkerService, endpoint: str,
                 codec: wire.PayloadCodec, options: ZmqOptions) -> None:
        sock = context.socket(zmq.ROUTER)
        _heartbeats(sock, options)
        sock.setsockopt(zmq.ROUTER_MANDATORY, 1)  # sending to a gone peer fails: we release it
        sock.setsockopt(zmq.SNDHWM, 0)  # outgoing data is bounded by credit, never dropped
        sock.setsockopt(zmq.MAXMSGSIZE, wire.MAX_PLAN_BYTES)
        try:
            sock.bind(endpoint)
        except zmq.ZMQError as exc:
            sock.close(linger=0)
            raise ConfigError(f"cannot serve at {endpoint}: {exc}") from exc
        self.address: str = sock.getsockopt_string(zmq.LAST_ENDPOINT)
        self._service, self._codec, self._options = service, codec, options
        self._pool = ThreadPoolExecutor(options.max_streams, thread_name_prefix="sparkwire-zmq-work")
        self._lock = threading.Lock()
        self._work: dict[tuple[bytes, int], wire.StreamPump | None] = {}  # calls map to None
        self._closed = False
        self._ping = wire.encode(wire.Ping())
        self._io = _SocketThread(sock, f"sparkwire-zmq-server {self.address}", self._on_message,
                                 self._on_unsendable, self._ping_peers, options.heartbeat)
        self._io.start()

    def _on_message(self, frames: list[zmq.Frame]) -> None:
        peer, body = frames[0].bytes, [frame.buffer for frame in frames[1:]]
        try:
            request, payload = wire.parse_request(body)
        except ProtocolError as exc:
            self._io.send([peer, *wire.error_reply(wire.salvage_id(body), exc)])
            return
        key = (peer, request.id)
        if isinstance(request, wire.Credit | wire.Close):
            self._steer(key, request)
            return
        pump: wire.StreamPump | None = None
        job: Callable[[], None]
        if isinstance(request, wire.Open):
            pump = wire.StreamPump(request.id, request.credit, self._codec,
                                   lambda frames: self._io.send([peer, *frames]))
            job = functools.partial(self._stream, peer, request, pump)
        else:
            job = functools.partial(self._call, peer, request, payload)
        with self._lock:
            if key in self._work:
                refusal: SparkwireError | None = ProtocolError(f"id {request.id} is already in use")
            elif len(self._work) >= self._options.max_streams:
                refusal = TransportError(f"worker at {self.address} is busy: "
                                         f"{len(self._work)} streams and calls running")
            else:
                refusal = None
                self._work[key] = pump
        if refusal is None:
            self._pool.submit(job)
        else:
            self._io.send([peer, *wire.error_reply(request.id, refusal)])

    def _steer(self, key: tuple[bytes, int], request: wire.Credit | wire.Close) -> None:
        """Flow control and early close reach a running stream's pump."""
        with self._lock:
            pump = self._work.get(key)
        if pump is None:  # a call's id, or a stream that ended meanwhile
            return
        if isinstance(request, wire.Credit):
            pump.grant(request.bytes)
        else:
            pump.close()

    def _stream(self, peer: bytes, request: wire.Open, pump: wire.StreamPump) -> None:
        """On a worker thread: the whole life of one partition stream."""
        try:
            pump.run(lambda: self._service.open(request.key, request.timeout))
        finally:
            self._done(peer, request.id)

    def _call(self, peer: bytes, request: wire.Deliver | wire.Cancel, payload: list[wire.Frame]) -> None:
        """On a worker thread: the service's call, then its reply."""
        try:
            if isinstance(request, wire.Deliver):
                self._service.submit(bytes(payload[0]))
            else:
                self._service.cancel(request.query_id)
            reply = wire.encode(wire.Ok(id=request.id))
        except Exception as exc:
            reply = wire.error_reply(request.id, exc)
        finally:
            self._done(peer, request.id)
        self._io.send([peer, *reply])

    def _done(self, peer: bytes, request_id: int) -> None:
        with self._lock:
            self._work.pop((peer, request_id), None)

    def _ping_peers(self) -> None:
        """Tell every client we work for that we are alive; a failed send reveals a gone one."""
        with self._lock:
            peers = {peer for peer, _ in self._work}
        for peer in peers:
            self._io.send([peer, *self._ping])

    def _on_unsendable(self, frames: list[wire.Frame]) -> None:
        peer = bytes(frames[0])
        with self._lock:
            pumps = [p for (p_peer, _), p in self._work.items() if p_peer == peer and p]
        for pump in pumps:
            pump.close()

    def close(self) -> None:
        """Stop serving; worker threads still inside the service finish on their own."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if not self._io.stop():  # first, so that no new stream starts
            _log.warning("the I/O thread of the server at %s did not stop", self.address)
        with self._lock:
            pumps = [pump for pump in self._work.values() if pump is not None]
        for pump in pumps:
            pump.close()
        self._pool.shutdown(wait=False, cancel_futures=True)


class ZmqClient(TransportClient):
    """A DEALER connection to one worker; calls and streams are multiplexed by id."""

    def __init__(self, context: zmq.Context[Any], address: str, codec: wire.PayloadCodec,
                 options: ZmqOptions, routing_id: bytes | None = None) -> None:
        self._address, self._codec, self._window = address, codec, options.credit_bytes
        self._liveness = wire.Liveness(f"worker at {address}", options.idle_timeout)
        self._ids = itertools.count()
        self._lock = threading.Lock()
        self._inboxes: dict[int, wire.Inbox] = {}
        self._lost: SparkwireError | None = None
        self._closed = False
        self._decided = threading.Event()  # the handshake succeeded or failed
        sock = context.socket(zmq.DEALER)
        _heartbeats(sock, options)
        sock.setsockopt(zmq.SNDHWM, 0)
        sock.setsockopt(zmq.RCVHWM, 0)  # incoming data is bounded by credit, never dropped
        sock.setsockopt(zmq.RECONNECT_IVL, -1)  # a lost connection stays lost
        if routing_id is not None:  # lets a server tell this client apart (the shm transport)
            sock.setsockopt(zmq.ROUTING_ID, routing_id)
        self._monitor = sock.get_monitor_socket(_MONITORED)
        try:
            sock.connect(address)
        except zmq.ZMQError as exc:
            sock.disable_monitor()
            self._monitor.close(linger=0)
            sock.close(linger=0)
            raise ConfigError(f"cannot connect to {address}: {exc}") from exc
        self._io = _SocketThread(sock, f"sparkwire-zmq-client {address}", self._on_message,
                                 self._on_unsendable, extra={self._monitor: self._on_event},
                                 on_exit=self._on_exit)
        self._io.start()
        if not self._decided.wait(options.idle_timeout) or self._lost is not None:
            self.close()
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
            if event != zmq.EVENT_HANDSHAKE_SUCCEEDED:
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

    def _register(self, request_id: int, window: int | None = None) -> wire.Inbox:
        inbox = wire.Inbox(self._liveness, window)
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
        receiver = wire.StreamReceiver(stream_id, inbox, self._window, self._codec,
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


class ZmqTransport(WorkerTransport):
    """ZeroMQ ROUTER/DEALER over TCP; options in the module docstring."""

    name = "zmq"
    capabilities = Capabilities(zero_copy=False, crosses_processes=True, crosses_hosts=True,
                                max_inflight_bytes=_DEFAULT_CREDIT)

    def __init__(self, **options: Any) -> None:
        try:
            self._options = ZmqOptions(**options)
        except ValidationError as exc:
            raise ConfigError(f"bad options for the {self.name} transport: {exc}") from None
        # The window is an option, so this instance's capabilities say which one it uses.
        self.capabilities = replace(  # type: ignore[misc]
            type(self).capabilities, max_inflight_bytes=self._options.credit_bytes)
        self._codec: wire.PayloadCodec = wire.InlineCodec()
        self._context: zmq.Context[Any] = zmq.Context()  # ours, never the global instance
        self._lock = threading.Lock()
        self._closed = False
        self._owned: weakref.WeakSet[ZmqServer | ZmqClient] = weakref.WeakSet()

    def serve(self, service: WorkerService, address: str | None = None) -> ZmqServer:
        with self._lock:
            self._check_open()
            server = self._server(service, address)
            self._owned.add(server)
        return server

    def _server(self, service: WorkerService, address: str | None) -> ZmqServer:
        """A new server; a subclass may serve elsewhere (the shm transport: ``ipc://``)."""
        endpoint = self.address_on(self._options.host) if address is None else self._checked(address)
        if endpoint.endswith(":0"):
            endpoint = endpoint[:-1] + "*"  # ZeroMQ's spelling of an OS-chosen port
        return ZmqServer(self._context, service, endpoint, self._codec, self._options)

    def _client(self, address: str) -> ZmqClient:
        """A new client, once its handshake succeeded; a subclass may connect elsewhere."""
        return ZmqClient(self._context, self._checked(address), self._codec, self._options)

    def address_on(self, host: str) -> str:
        return f"tcp://{host}:0"

    def connect(self, address: str) -> ZmqClient:
        with self._lock:
            self._check_open()
        client = self._client(address)
        with self._lock:
            closed = self._closed
            self._owned.add(client)
        if closed:  # close() ran while we waited for the handshake
            client.close()
            self._check_open()
        return client

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            owned = list(self._owned)
        for item in owned:
            item.close()
        # term() waits for every socket to be closed; never let a stuck one hang the caller.
        terminator = threading.Thread(target=self._context.term, name="sparkwire-zmq-term", daemon=True)
        terminator.start()
        terminator.join(_STOP_TIMEOUT)
        if terminator.is_alive():
            _log.warning("the zmq context of transport %s did not terminate", id(self))

    def _check_open(self) -> None:
        if self._closed:
            raise ConfigError(f"the {self.name} transport is closed")

    @staticmethod
    def _checked(address: str) -> str:
        if not _ADDRESS.fullmatch(address):
            raise ConfigError(f"zmq transport address must look like tcp://HOST:PORT: {address!r}")
        return address
