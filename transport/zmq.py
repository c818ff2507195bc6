"""The ZeroMQ transport: workers on any hosts, partitions as Arrow buffers in frames, flow-controlled.

Capabilities: not zero copy (the kernel copies into and out of the socket), but no copy of
ours: ZeroMQ sends a batch's own buffers as frames and the reader rebuilds the batch around
the received frames (``transport.buffers``); crosses processes and hosts, authenticates;
``max_inflight_bytes`` is a reader's credit window. Security (``transport.security``, on by default): CURVE with an allow-list of client
keys (``transport.zmq_auth``). The messages
are ``transport.wire``'s, batches are encoded by ``transport.buffers``, streams flow-controlled by
``transport.flow``.

Options (keyword arguments, from config ``SPARKWIRE_TRANSPORT__OPTIONS__<NAME>``; validated by
``zmq_io.ZmqOptions``):

- ``host``: the interface ``serve()`` binds when given no address (default ``127.0.0.1``;
  the port is the OS's choice);
- ``credit_bytes``: a reader's window, bytes sent but not yet consumed (default 64 MiB);
- ``idle_timeout``: seconds a client waits without hearing from its server, and for the
  connection handshake, before ``ConnectionLost`` (default 30);
- ``heartbeat``: seconds between a server's pings to the clients it works for and between
  ZMTP heartbeats (default 1; at most half of ``idle_timeout``);
- ``max_streams``: streams and calls one server runs at once; more are refused with an error,
  never queued, so a full pool cannot deadlock readers (default 256);
- ``io_threads``: ZeroMQ's I/O threads in this process (default 0: one per four CPUs, 1 to 4,
  ``zmq_io.auto_io_threads``).

Parts: ``zmq_server.ZmqServer`` (a ROUTER socket, its I/O thread and a bounded worker pool;
how it notices gone clients), ``zmq_client.ZmqClient`` (a DEALER, one connection per
client/server pair with every call and stream multiplexed on it; how it notices a gone
server), ``zmq_io`` (options, socket settings, the I/O thread). This transport owns their
ZeroMQ context and closes what it made.

To carry batches another way (the shm transport: ``ipc://`` endpoints, batches in shared
memory), reuse ``ZmqServer`` and ``ZmqClient`` with another ``ipc.PayloadCodec``.
"""

from __future__ import annotations

import logging
import re
import threading
import weakref
from dataclasses import replace
from typing import Any

import zmq
from pydantic import ValidationError

from sparkwire.transport.base import Capabilities, WorkerService, WorkerTransport
from sparkwire.transport.errors import ConfigError
from sparkwire.transport.buffers import BufferCodec
from sparkwire.transport.ipc import PayloadCodec
from sparkwire.transport.security import Security, check_exposure
from sparkwire.transport.zmq_auth import Curve
from sparkwire.transport.zmq_client import ZmqClient
from sparkwire.transport.zmq_io import DEFAULT_CREDIT, STOP_TIMEOUT, ZmqOptions
from sparkwire.transport.zmq_server import ZmqServer

_log = logging.getLogger(__name__)

_ADDRESS = re.compile(r"tcp://[A-Za-z0-9.\-]{1,253}:[0-9]{1,5}")


def _tcp_on(host: str) -> str:
    """The address on interface ``host`` at a port the OS chooses."""
    return f"tcp://{host}:0"


class ZmqTransport(WorkerTransport):
    """ZeroMQ ROUTER/DEALER over TCP; options in the module docstring."""

    name = "zmq"
    capabilities = Capabilities(zero_copy=False, crosses_processes=True, crosses_hosts=True,
                                max_inflight_bytes=DEFAULT_CREDIT, authenticates=True,
                                window_option="credit_bytes")

    def __init__(self, security: Security | None = None, **options: Any) -> None:
        try:
            self._options = ZmqOptions(**options)
        except ValidationError as exc:
            raise ConfigError(f"bad options for the {self.name} transport: {exc}") from None
        self._security = security or Security()
        credentials = self._security.credentials()
        self._curve = Curve(credentials) if credentials is not None else None
        # The window is an option, so this instance's capabilities say which one it uses.
        self.capabilities = replace(
            type(self).capabilities, max_inflight_bytes=self._options.credit_bytes)
        self._codec: PayloadCodec = BufferCodec()
        # ours, never the global instance
        self._context: zmq.Context[Any] = zmq.Context(self._options.context_io_threads())
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
        endpoint = _tcp_on(self._options.host) if address is None else self._checked(address)
        check_exposure(endpoint[len("tcp://"):].rpartition(":")[0], self._security)
        if endpoint.endswith(":0"):
            endpoint = endpoint[:-1] + "*"  # ZeroMQ's spelling of an OS-chosen port
        return ZmqServer(self._context, service, endpoint, self._codec, self._options,
                         self._guarded())

    def _guarded(self) -> Curve | None:
        """The CURVE keys for a new server, its authenticator running first."""
        if self._curve is not None:
            self._curve.guard(self._context)
        return self._curve

    def _client(self, address: str) -> ZmqClient:
        """A new client, once its handshake succeeded; a subclass may connect elsewhere."""
        return ZmqClient(self._context, self._checked(address), self._codec, self._options,
                         self._curve)

    def address_on(self, host: str) -> str | None:
        # Typed as the contract's, not ``str``: the shm transport, a subclass, names no host.
        return _tcp_on(host)

    def connect(self, address: str) -> ZmqClient:
        with self._lock:
            self._check_open()
        client = self._client(address)
        client.route = self.name  # zmq, or shm for the subclass
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
        if self._curve is not None:
            self._curve.close()
        # term() waits for every socket to be closed; never let a stuck one hang the caller.
        terminator = threading.Thread(target=self._context.term, name="sparkwire-zmq-term", daemon=True)
        terminator.start()
        terminator.join(STOP_TIMEOUT)
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
