"""The zmq transport's server: one worker's service on a ROUTER socket.

Threads: one I/O thread owns the socket (``zmq_io.SocketThread``); a bounded pool of worker
threads runs the service's blocking calls (``submit``, ``open``, batch iteration), at most
``max_streams`` at once: more are refused with an error, never queued, so a full pool cannot
deadlock readers. Each stream is a ``flow.StreamPump`` on a worker thread.

While it works for a client the server pings it every ``heartbeat``. It learns that a client
is gone when a send to it (a ping at the latest) fails (``ROUTER_MANDATORY``; ZMTP heartbeats
drop silent clients) and closes that client's streams, releasing their producers.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import zmq

from sparkwire.transport import wire
from sparkwire.transport.base import WorkerService
from sparkwire.transport.errors import ConfigError, ProtocolError, SparkwireError, TransportError
from sparkwire.transport.flow import StreamPump
from sparkwire.transport.ipc import PayloadCodec
from sparkwire.transport.stream import PartitionReader
from sparkwire.transport.zmq_auth import Curve
from sparkwire.transport.zmq_io import SocketThread, ZmqOptions, heartbeats

_log = logging.getLogger(__name__)


class ZmqServer:
    """One worker's service on a ROUTER socket."""

    def __init__(self, context: zmq.Context[Any], service: WorkerService, endpoint: str,
                 codec: PayloadCodec, options: ZmqOptions, curve: Curve | None) -> None:
        sock = context.socket(zmq.ROUTER)
        if curve is not None:
            curve.serve(sock)
        heartbeats(sock, options)
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
        self._work: dict[tuple[bytes, int], StreamPump | None] = {}  # calls map to None
        self._closed = False
        self._ping = wire.encode(wire.Ping())
        self._io = SocketThread(sock, f"sparkwire-zmq-server {self.address}", self._on_message,
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
        pump: StreamPump | None = None
        job: Callable[[], None]
        if isinstance(request, wire.Open):
            pump = StreamPump(request.id, request.credit, self._codec,
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

    def _stream(self, peer: bytes, request: wire.Open, pump: StreamPump) -> None:
        """On a worker thread: the whole life of one partition stream."""
        try:
            pump.run(lambda: self._open(request))
        finally:
            self._done(peer, request.id)

    def _open(self, request: wire.Open) -> PartitionReader:
        """The partition a stream sends; a subclass may see its end before the reader does."""
        return self._service.open(request.key, request.timeout)

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
