"""``serve(session)``: a Spark Connect server on a sparkwire session.

gRPC runs each call on a thread of a fixed pool (``threads``, 8 by default); at most
``queued`` more calls wait for one, and a call beyond that is refused with gRPC's
``RESOURCE_EXHAUSTED`` rather than queued without bound. An ``ExecutePlan`` holds its thread
while its result streams, so the pool leaves room for the ``Interrupt`` that stops one.

Who may call: ``security`` (``security.py``). Off loopback a bearer token and TLS are
required and a server without them refuses to start; on loopback a configured token is still
checked. Each client session id gets a sparkwire session of its own (``sessions.py``): at
most ``sessions`` at once, each closed after ``idle_s`` seconds unused.
"""

from __future__ import annotations

import threading
from concurrent import futures

import grpc
from pyspark.sql.connect.proto import base_pb2_grpc

from sparkwire.coordinator.connect.security import TokenCheck, connect_security
from sparkwire.coordinator.connect.service import ConnectService
from sparkwire.coordinator.session import Session
from sparkwire.transport.closing import Closeable
from sparkwire.transport.errors import ConfigError
from sparkwire.transport.security import Security

#: PySpark's client accepts messages up to 128 MiB; a local relation it sends can be that big.
MESSAGE_BYTES = 128 << 20
#: How long ``close`` lets running calls finish before cancelling them, in seconds.
CLOSE_GRACE_S = 5.0
#: Client sessions at once, and how long one may sit unused before it is closed (Spark's
#: ``spark.connect.session.manager.defaultSessionTimeout`` is an hour too).
SESSIONS = 64
IDLE_S = 3600.0


class ConnectServer(Closeable):
    """A running Spark Connect server; ``address`` is what ``SparkSession.builder.remote``
    takes (with ``;token=...`` added when security is on). A context manager; closing twice
    is safe. The session stays the caller's; the client sessions are closed with the server."""

    def __init__(self, session: Session, host: str, port: int, *, threads: int, queued: int,
                 security: Security | None, sessions: int, idle_s: float) -> None:
        guard = connect_security(host, security)
        self.service = ConnectService(session, sessions, idle_s)
        self._server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=threads, thread_name_prefix="sparkwire-connect"),
            interceptors=[TokenCheck(guard.token)] if guard.token is not None else None,
            maximum_concurrent_rpcs=threads + queued,
            options=[("grpc.max_receive_message_length", MESSAGE_BYTES),
                     ("grpc.max_send_message_length", MESSAGE_BYTES)],
        )
        base_pb2_grpc.add_SparkConnectServiceServicer_to_server(self.service, self._server)
        #: The PEM roots a client must trust (None without TLS), and the name the server's
        #: certificate is issued to (None: the host of the address).
        self.tls_roots = guard.roots
        self.server_name = guard.server_name
        self.tls = guard.roots is not None
        # gRPC's local credentials know a client by the name localhost (the stock client too)
        self.host = "localhost" if guard.client_host_local else host
        target = f"{host}:{port}"
        self.port: int = (self._server.add_secure_port(target, guard.credentials)
                          if guard.credentials is not None else self._server.add_insecure_port(target))
        if self.port == 0:
            raise ConfigError(f"could not bind {host}:{port} for Spark Connect")
        self._lock = threading.Lock()
        self._closed = False
        self._server.start()

    @property
    def address(self) -> str:
        """``sc://host:port`` (``/;use_ssl=true`` with TLS), for ``SparkSession.builder.remote``;
        a client adds ``;token=...`` when security is on."""
        return f"sc://{self.host}:{self.port}" + ("/;use_ssl=true" if self.tls else "")

    def wait(self, timeout: float | None = None) -> bool:
        """Blocks until the server stops or ``timeout`` seconds pass; whether it stopped."""
        return not self._server.wait_for_termination(timeout)  # gRPC answers whether it timed out

    def close(self) -> None:
        """Interrupts the running operations, then stops within ``CLOSE_GRACE_S``."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self.service.sessions.close()
        self._server.stop(CLOSE_GRACE_S).wait(CLOSE_GRACE_S + 1)


def serve(session: Session, port: int = 0, host: str = "127.0.0.1", *,
          threads: int = 8, queued: int = 16, security: Security | None = None,
          sessions: int = SESSIONS, idle_s: float = IDLE_S) -> ConnectServer:
    """A Spark Connect server on ``session``'s cluster at ``host:port`` (``port=0``: any
    free one, read back from ``.port``); ``security``: the token and TLS (``security.py``),
    None for none (loopback only)."""
    return ConnectServer(session, host, port, threads=threads, queued=queued, security=security,
                         sessions=sessions, idle_s=idle_s)
