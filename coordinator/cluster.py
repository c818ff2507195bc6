"""Clusters: a set of workers reachable through one transport.

``Cluster`` is what the coordinator needs: worker addresses, pooled clients, and a *driver*
worker in the coordinator's own process that publishes in-memory data (``createDataFrame``)
to the other workers through the same transport. ``LocalCluster`` runs every worker as an
object in this process, which is the embedded default and the test harness.
"""

from __future__ import annotations

import threading
from typing import Protocol

from coordinator.config import Settings
from coordinator.worker import Worker
from transport.base import Server, TransportClient, WorkerTransport
from transport.registry import create_transport
from transport.closing import Closeable


class Cluster(Protocol):
    addresses: list[str]
    names: dict[str, str]  # address -> worker id, for error messages and metrics
    driver: Worker
    driver_address: str

    def client(self, address: str) -> TransportClient: ...

    def close(self) -> None: ...


class LocalCluster(Closeable):
    """``n`` in-process workers plus the driver, all served by one transport instance.

    Any transport works: over the memory transport this is the embedded default; over a
    socket transport it exercises real sockets inside one process.
    """

    def __init__(self, settings: Settings, transport: WorkerTransport | None = None) -> None:
        self.settings = settings
        self.transport = transport or create_transport(
            settings.transport.kind, settings.transport.options
        )
        self._lock = threading.Lock()
        self._clients: dict[str, TransportClient] = {}
        self._servers: list[Server] = []
        self._all: list[Worker] = []  # the workers, then the driver
        self._closed = False
        try:
            for name in [*(f"worker-{i}" for i in range(settings.workers)), "driver"]:
                self._all.append(Worker(name, settings, self.client))
                self._servers.append(self.transport.serve(self._all[-1]))
        except BaseException:
            self.close()
            raise
        self.workers, self.driver = self._all[:-1], self._all[-1]
        self.addresses = [server.address for server in self._servers[:-1]]
        self.driver_address = self._servers[-1].address
        self.names = {s.address: w.worker_id for s, w in zip(self._servers, self._all, strict=True)}

    def client(self, address: str) -> TransportClient:
        with self._lock:
            client = self._clients.get(address)
            if client is None:
                client = self._clients[address] = self.transport.connect(address)
            return client

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            clients, self._clients = list(self._clients.values()), {}
        for server in self._servers:
            server.close()
        for worker in self._all:
            worker.close()
        for client in clients:
            client.close()
        self.transport.close()

