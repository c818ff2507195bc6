"""``serve(session)``: a Spark Connect server on a sparkwire session.

gRPC runs each call on a thread of a fixed pool (``threads``, 8 by default); at most
``queued`` more calls wait for one, and a call beyond that is refused with gRPC's
``RESOURCE_EXHAUSTED`` rather than queued without bound. An ``ExecutePlan`` holds its thread
while its result streams, so the pool leaves room for the ``Interrupt`` that stops one.

Loopback only: the protocol's token and TLS (issue 37) are not implemented yet, so a host
another machine could reach is refused (``transport.security.is_loopback``).
"""

from __future__ import annotations

import threading
from concurrent import futures

import grpc
from pyspark.sql.connect.proto import base_pb2_grpc

from sparkwire.coordinator.connect.service import ConnectService
from sparkwire.coordinator.session import Session
from sparkwire.transport.closing import Closeable
from sparkwire.transport.errors import ConfigError
from sparkwire.transport.security import is_loopback

#: PySpark's client accepts messages up to 128 MiB; a local relation it sends can be that big.
MESSAGE_BYTES = 128 << 20
#: How long ``close`` lets running calls finish before cancelling them, in seconds.
CLOSE_GRACE_S = 5.0


class ConnectServer(Closeable):
    """A running Spark Connect server; ``address`` is what ``SparkSession.builder.remote``
    takes. A context manager; closing twice is safe. The session stays the caller's."""

    def __init__(self, session: Session, host: str, port: int, threads: int, queued: int) -> None:
        if not is_loopback(host):
            raise ConfigError(f"refusing to serve Spark Connect on {host}: sparkwire's Spark Connect "
                              "server has no token or TLS yet, so it binds a loopback address only")
        self.service = ConnectService(session)
        self._server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=threads, thread_name_prefix="sparkwire-connect"),
            maximum_concurrent_rpcs=threads + queued,
            options=[("grpc.max_receive_message_length", MESSAGE_BYTES),
                     ("grpc.max_send_message_length", MESSAGE_BYTES)],
        )
        base_pb2_grpc.add_SparkConnectServiceServicer_to_server(self.service, self._server)
        self.host = host
        self.port: int = self._server.add_insecure_port(f"{host}:{port}")
        if self.port == 0:
            raise ConfigError(f"could not bind {host}:{port} for Spark Connect")
        self._lock = threading.Lock()
        self._closed = False
        self._server.start()

    @property
    def address(self) -> str:
        """``sc://host:port``, for ``SparkSession.builder.remote``."""
        return f"sc://{self.host}:{self.port}"

    def wait(self, timeout: float | None = None) -> bool:
        """Blocks until the server stops or ``timeout`` seconds pass; whether it stopped."""
        return not self._server.wait_for_termination(timeout)  # gRPC answers whether it timed out

    def close(self) -> None:
        """Interrupts the running operations, then stops within ``CLOSE_GRACE_S``."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self.service.operations.interrupt()
        self._server.stop(CLOSE_GRACE_S).wait(CLOSE_GRACE_S + 1)


def serve(session: Session, port: int = 0, host: str = "127.0.0.1", *,
          threads: int = 8, queued: int = 16) -> ConnectServer:
    """A Spark Connect server on ``session`` at ``host:port`` (``port=0``: any free one,
    read back from ``.port``)."""
    return ConnectServer(session, host, port, threads, queued)
