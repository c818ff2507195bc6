"""The in-memory transport: workers are objects in one process.

Capabilities: zero copy (a reader receives the very ``RecordBatch`` objects the producer
wrote), no process or host crossing. It is the embedded default and the test harness, so it
honours the same contract as the network transports: plans still travel as bytes and are
validated by the worker, service errors are passed through ``as_library_error``, and a
closed server answers ``ConnectionLost``. Its address table lives in the instance, never in
module state, so clusters in one process are isolated from each other.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import TypeVar

from sparkwire.transport.base import (
    Capabilities,
    PartitionKey,
    TransportClient,
    WorkerService,
    WorkerTransport,
)
from sparkwire.transport.errors import ConfigError, ConnectionLost, as_library_error
from sparkwire.transport.stream import PartitionReader

_SCHEME = "mem://"
_T = TypeVar("_T")


class MemoryServer:
    def __init__(self, transport: MemoryTransport, address: str) -> None:
        self._transport = transport
        self.address = address

    def close(self) -> None:
        self._transport._unserve(self.address)


class InProcessClient(TransportClient):
    """Calls a service in this process directly: batches are the producer's own objects.
    ``service`` is looked up on every call, so a server closed meanwhile answers
    ``ConnectionLost``; ``route`` names the way for the metrics (``memory``, or ``local``
    for a worker process reading its own partitions)."""

    reads_in_place = True

    def __init__(self, service: Callable[[], WorkerService], address: str, route: str) -> None:
        self._service = service
        self._address = address
        self.route = route
        self._closed = False

    def _call(self, method: Callable[[WorkerService], _T]) -> _T:
        if self._closed:
            raise ConnectionLost(f"client for {self._address} is closed")
        service = self._service()
        try:
            return method(service)
        except Exception as exc:
            raise as_library_error(exc) from exc

    def deliver(self, plan: bytes) -> None:
        self._call(lambda service: service.submit(bytes(plan)))

    def read(self, key: PartitionKey, timeout: float) -> PartitionReader:
        return self._call(lambda service: service.open(key, timeout))

    def cancel(self, query_id: str) -> None:
        self._call(lambda service: service.cancel(query_id))

    def close(self) -> None:
        self._closed = True


class MemoryTransport(WorkerTransport):
    name = "memory"
    capabilities = Capabilities(zero_copy=True, crosses_processes=False, crosses_hosts=False)

    def __init__(self) -> None:
        self._services: dict[str, WorkerService] = {}
        self._lock = threading.Lock()
        self._names = itertools.count()

    def serve(self, service: WorkerService, address: str | None = None) -> MemoryServer:
        with self._lock:
            if address is None:
                address = f"{_SCHEME}worker-{next(self._names)}"
            if not address.startswith(_SCHEME) or len(address) == len(_SCHEME):
                raise ConfigError(f"memory transport address must look like mem://NAME: {address!r}")
            if address in self._services:
                raise ConfigError(f"{address} is already served")
            self._services[address] = service
        return MemoryServer(self, address)

    def connect(self, address: str) -> InProcessClient:
        self._service(address)  # fail fast on an address nobody serves
        return InProcessClient(lambda: self._service(address), address, self.name)

    def close(self) -> None:
        with self._lock:
            self._services.clear()

    def _service(self, address: str) -> WorkerService:
        with self._lock:
            service = self._services.get(address)
        if service is None:
            raise ConnectionLost(f"no worker is served at {address}")
        return service

    def _unserve(self, address: str) -> None:
        with self._lock:
            self._services.pop(address, None)
