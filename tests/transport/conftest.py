"""Fixtures for the transport conformance suite: every registered transport, one service.

The service is deliberately tiny (a partition store plus a plan log) so the suite tests the
transport, not the worker. A transport joins the suite by being registered.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from coordinator.store import PartitionStore
from transport.base import PartitionKey, Server, TransportClient, WorkerTransport
from transport.errors import PlanRejected
from transport.registry import available_transports, create_transport
from transport.stream import PartitionReader


class StoreService:
    """A WorkerService over a real PartitionStore; plans are logged, not run."""

    def __init__(self, spill_dir: Path, memory_budget: int = 1 << 30) -> None:
        self.store = PartitionStore(memory_budget, spill_dir, idle_timeout=5.0)
        self.plans: list[bytes] = []
        self.cancelled: list[str] = []
        self.open_error: Exception | None = None

    def submit(self, plan: bytes) -> None:
        if not plan.startswith(b"{"):
            raise PlanRejected("task plan is not valid JSON")
        self.plans.append(plan)

    def open(self, key: PartitionKey, timeout: float) -> PartitionReader:
        if self.open_error is not None:
            raise self.open_error
        return self.store.open(key, timeout)

    def cancel(self, query_id: str) -> None:
        self.cancelled.append(query_id)
        self.store.drop_query(query_id)


@pytest.fixture(params=sorted(available_transports()))
def transport(request: pytest.FixtureRequest) -> Iterator[WorkerTransport]:
    with create_transport(request.param) as instance:
        yield instance


@pytest.fixture
def service() -> Iterator[StoreService]:
    with tempfile.TemporaryDirectory(prefix="sparkwire-conformance-") as spill:
        svc = StoreService(Path(spill))
        yield svc
        svc.store.close()


@pytest.fixture
def served(transport: WorkerTransport, service: StoreService) -> Iterator[tuple[Server, TransportClient]]:
    server = transport.serve(service)
    client = transport.connect(server.address)
    yield server, client
    client.close()
    server.close()
