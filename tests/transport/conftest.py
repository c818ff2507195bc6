"""Fixtures for the transport conformance suite: every registered transport, one service.

The services are deliberately tiny (a partition store plus a plan log) so the suite tests the
transport, not the worker. A transport joins the suite by being registered; which tests apply
to it is read from its ``capabilities``, never from its name or class.

- ``served``: a ``StoreService`` in this process, whose store the test writes directly;
- ``worker``: a ``CommandService`` (``remote_service.py``) driven only through the client,
  served in this process (``local``) and, for transports that cross processes, in a child
  process (``remote``);
- ``remote_worker``: a child process of the test's own, which it may stop or kill;
- ``far_worker``: the farthest placement the transport supports (remote if it crosses
  processes, else local), for the expensive tests.

Remote services run as ``python -m tests.transport.remote_service``; every start, read and
stop is bounded, and every process is stopped (lifeline, terminate, kill) also on failure.
"""

from __future__ import annotations

import contextlib
import json
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from sparkwire.coordinator.worker.store import PartitionStore
from tests.transport.remote_service import CommandService
from sparkwire.transport.base import PartitionKey, Server, TransportClient, WorkerTransport
from sparkwire.transport.errors import PlanRejected
from sparkwire.transport.registry import available_transports, create_transport
from sparkwire.transport.stream import PartitionReader
from tests.credentials import SECURITY

REPO = Path(__file__).resolve().parents[2]
START_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0


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


class Worker(NamedTuple):
    """A client of a ``CommandService``, and its process when it runs in another one."""

    client: TransportClient
    process: subprocess.Popen[bytes] | None


@pytest.fixture(params=sorted(available_transports()))
def transport(request: pytest.FixtureRequest) -> Iterator[WorkerTransport]:
    with create_transport(request.param, security=SECURITY) as instance:
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


# -- workers driven by test commands ----------------------------------------------------


@contextlib.contextmanager
def local_worker(transport: WorkerTransport) -> Iterator[Worker]:
    """A ``CommandService`` served by ``transport`` in this process."""
    with tempfile.TemporaryDirectory(prefix="sparkwire-conformance-") as spill:
        svc = CommandService(Path(spill))
        try:
            server = transport.serve(svc)
            try:
                client = transport.connect(server.address)
                try:
                    yield Worker(client, None)
                finally:
                    client.close()
            finally:
                server.close()
        finally:
            svc.close()


@contextlib.contextmanager
def remote_process(name: str, options: dict[str, object] | None = None,
                   prefix: tuple[str, ...] = ()) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``python -m tests.transport.remote_service`` serving over ``name``; always stopped.
    ``prefix`` runs it through another command first (e.g. ``unshare``, another "host")."""
    spill = tempfile.TemporaryDirectory(prefix="sparkwire-remote-")  # ours: removed even after a kill -9
    try:
        proc = subprocess.Popen(
            [*prefix, sys.executable, "-m", "tests.transport.remote_service", "--transport", name,
             "--options", json.dumps(options or {}), "--spill-dir", spill.name,
             "--security", SECURITY.model_dump_json()],
            cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )
    except BaseException:
        spill.cleanup()
        raise
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], START_TIMEOUT)
        if not ready:
            pytest.fail(f"remote service over {name} did not print its address in {START_TIMEOUT:g}s")
        line = proc.stdout.readline()
        if not line:
            pytest.fail(f"remote service over {name} exited with {proc.wait(STOP_TIMEOUT)} before serving")
        yield proc, json.loads(line)["address"]
    finally:
        try:
            stop_process(proc)
        finally:
            spill.cleanup()


def stop_process(proc: subprocess.Popen[bytes]) -> None:
    """Close the lifeline, then terminate, then kill; every wait bounded. Idempotent."""
    if proc.stdin is not None and not proc.stdin.closed:
        with contextlib.suppress(OSError):
            proc.stdin.close()
    for stop, wait in ((None, STOP_TIMEOUT), (proc.terminate, 5.0), (proc.kill, 5.0)):
        if stop is not None:
            stop()
        try:
            proc.wait(wait)
            break
        except subprocess.TimeoutExpired:
            continue
    if proc.stdout is not None:
        proc.stdout.close()


class RemoteServices:
    """One long-lived remote service per transport name, shared by the tests that do not
    stop it (each uses its own query ids); restarted if it died. Starting a process costs
    seconds on a loaded machine, so most remote tests reuse one."""

    def __init__(self) -> None:
        self._running: dict[str, tuple[contextlib.ExitStack, subprocess.Popen[bytes], str]] = {}

    def get(self, name: str) -> tuple[subprocess.Popen[bytes], str]:
        running = self._running.get(name)
        if running is not None and running[1].poll() is None:
            return running[1], running[2]
        if running is not None:
            running[0].close()
        stack = contextlib.ExitStack()
        proc, address = stack.enter_context(remote_process(name))
        self._running[name] = (stack, proc, address)
        return proc, address

    def close(self) -> None:
        running, self._running = list(self._running.values()), {}
        for stack, _, _ in running:
            stack.close()


@pytest.fixture(scope="session")
def remote_services() -> Iterator[RemoteServices]:
    services = RemoteServices()
    try:
        yield services
    finally:
        services.close()


def _needs_processes(transport: WorkerTransport) -> None:
    if not transport.capabilities.crosses_processes:
        pytest.skip(f"{transport.name} does not cross processes")


@contextlib.contextmanager
def _client_of(transport: WorkerTransport, proc: subprocess.Popen[bytes], address: str) -> Iterator[Worker]:
    client = transport.connect(address)
    try:
        yield Worker(client, proc)
    finally:
        client.close()


@contextlib.contextmanager
def shared_remote_worker(transport: WorkerTransport, services: RemoteServices) -> Iterator[Worker]:
    _needs_processes(transport)
    with _client_of(transport, *services.get(transport.name)) as worker:
        yield worker


@pytest.fixture
def remote_worker(transport: WorkerTransport) -> Iterator[Worker]:
    """(client, process) of a ``CommandService`` in a child process of its own, which the
    test may stop or kill; stopped (lifeline, terminate, kill) whatever happens."""
    _needs_processes(transport)
    with remote_process(transport.name) as (proc, address), _client_of(transport, proc, address) as worker:
        yield worker


@pytest.fixture(params=["local", "remote"])
def worker(request: pytest.FixtureRequest, transport: WorkerTransport,
           remote_services: RemoteServices) -> Iterator[Worker]:
    """A ``CommandService`` in this process, then in a (shared) child process where that
    applies. Tests must not stop it; they use ``remote_worker`` for that."""
    if request.param == "local":
        with local_worker(transport) as handle:
            yield handle
    else:
        with shared_remote_worker(transport, remote_services) as handle:
            yield handle


@pytest.fixture
def far_worker(transport: WorkerTransport, remote_services: RemoteServices) -> Iterator[Worker]:
    """The farthest placement the transport supports (for the expensive tests)."""
    if transport.capabilities.crosses_processes:
        with shared_remote_worker(transport, remote_services) as handle:
            yield handle
    else:
        with local_worker(transport) as handle:
            yield handle


def wait_until(predicate: Callable[[], object], timeout: float, interval: float = 0.05) -> bool:
    """Poll ``predicate`` until it is true or ``timeout`` s passed; its last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return bool(value)
        time.sleep(interval)
