"""Hosting one worker outside the coordinator's process.

``host_worker`` is what every out-of-process worker runs, whether a local process started by
``ProcessCluster`` (``sparkwire worker``) or, later, a task inside a Spark executor: build
the transport *in this process* (after any fork), build the worker, serve it, and announce
a ``WorkerAnnouncement`` so the coordinator can connect and check versions. All workers of a
cluster must run the same versions, since partitioning must hash identically everywhere.
"""

from __future__ import annotations

import os
import socket
from importlib.metadata import PackageNotFoundError, version

from pydantic import BaseModel, ConfigDict, Field

from sparkwire.coordinator.config import Settings
from sparkwire.coordinator.worker.memory import MemoryPlan, tune_process_memory
from sparkwire.coordinator.worker.service import Worker
from sparkwire.transport.base import Server, WorkerTransport
from sparkwire.transport.errors import ConfigError
from sparkwire.transport.registry import create_transport
from sparkwire.transport.security import faces_network

_VERSIONED = ("sparkwire", "duckdb", "pyarrow")


def versions() -> dict[str, str]:
    """Versions that must agree across a cluster."""
    found = {}
    for name in _VERSIONED:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "unknown"
    return found


class WorkerAnnouncement(BaseModel):
    """What a hosted worker tells its coordinator once it serves (one JSON line)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    worker_id: str
    address: str
    pid: int
    host: str = Field(default_factory=socket.gethostname)
    versions: dict[str, str]

    def check_versions(self) -> None:
        mine = versions()
        if self.versions != mine:
            raise ConfigError(
                f"worker {self.worker_id} runs {self.versions}, the coordinator {mine}: "
                "every worker of a cluster must run the same versions"
            )


class HostedWorker:
    """A worker, its own transport instance and the server exposing it."""

    def __init__(
        self, settings: Settings, worker_id: str, listen: str | None = None, host: str | None = None
    ) -> None:
        """Serve at ``listen``, or on interface ``host`` with an OS-chosen port, or the default."""
        plan = MemoryPlan.of(settings.worker)
        tune_process_memory(plan)
        self.transport: WorkerTransport = create_transport(
            settings.transport.kind, settings.transport.options, settings.transport.security,
            window=plan.window,
        )
        self.worker: Worker | None = None
        self.server: Server | None = None
        try:
            if listen is None and host is not None:
                listen = self.transport.address_on(host)
            if listen is not None:
                self._check_data_roots(settings, listen)
            self.worker = Worker(worker_id, settings, self.transport.connect, own_process=True)
            self.server = self.transport.serve(self.worker, listen)
            self.worker.served_at(self.server.address)
            self._check_data_roots(settings, self.server.address)
        except BaseException:
            self.close()
            raise
        self.announcement = WorkerAnnouncement(
            worker_id=worker_id, address=self.server.address, pid=os.getpid(), versions=versions()
        )

    def _check_data_roots(self, settings: Settings, address: str) -> None:
        """Plans are untrusted even when authenticated: a worker that other machines can
        reach reads files only under data roots it was configured with."""
        if (self.transport.capabilities.crosses_hosts and faces_network(address)
                and not settings.worker.engine.data_roots):
            raise ConfigError(
                f"a worker serving on {address} faces the network, so it must be told which "
                "files plans may read: set worker.engine.data_roots "
                "(SPARKWIRE_WORKER__ENGINE__DATA_ROOTS='[\"/data\"]')"
            )

    def close(self) -> None:
        """Stop the worker, then serving, then the transport; idempotent. The worker first:
        closing it wakes calls waiting in it, which a server's shutdown would wait for."""
        if self.worker is not None:
            self.worker.close()
        if self.server is not None:
            self.server.close()
        self.transport.close()
