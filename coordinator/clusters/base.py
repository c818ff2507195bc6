"""Clusters: a set of workers reachable through one transport.

``Cluster`` is what the coordinator needs: worker addresses, pooled clients, and a *driver*
worker in the coordinator's own process that publishes in-memory data (``createDataFrame``)
to the other workers through the same transport. ``ClusterBase`` is what the in-process,
process and Spark clusters share.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Protocol

from sparkwire.coordinator.config import Settings
from sparkwire.coordinator.clusters.credentials import SharedCredentials
from sparkwire.coordinator.membership import MembershipSigner
from sparkwire.coordinator.worker.service import Worker
from sparkwire.transport.base import Server, TransportClient, WorkerTransport
from sparkwire.transport.closing import Closeable
from sparkwire.transport.errors import ConfigError
from sparkwire.transport.registry import create_transport


class Cluster(Protocol):
    settings: Settings  # what its workers were started with (credentials as files)
    addresses: list[str]
    names: dict[str, str]  # address -> worker id, for error messages and metrics
    driver: Worker
    driver_address: str
    membership: MembershipSigner | None  # signs the notices of who the members are

    @property
    def cores(self) -> int:
        """CPU cores the workers have together, which plans are sized by (``ClusterBase.cores``)."""

    def client(self, address: str) -> TransportClient: ...

    def ensure_workers(self) -> None:
        """Before a query is placed: replace the workers known to be dead, where the
        cluster can (a process cluster restarts them); the others keep their addresses."""

    def dead(self) -> list[str]:
        """Addresses of workers known to be dead and not replaced (yet): placement skips them."""

    def losses(self) -> int:
        """How many times a worker was found lost, ever: a query that failed while this grew
        is recovered from (``scheduler``)."""

    def close(self) -> None: ...


class ClusterBase(Closeable):
    """What every cluster shares: one transport, pooled clients, and the driver worker.

    Subclasses start their workers after ``__init__`` here, set ``addresses`` and ``names``,
    and stop them in ``_stop_workers``; ``close`` runs the shared teardown around it.
    """

    #: Whether every worker runs on this machine, sharing its CPUs (in-process workers, local
    #: worker processes): then this machine's CPUs are the cluster's (``cores``).
    on_this_host: bool = True

    def __init__(self, settings: Settings, transport: WorkerTransport | None = None,
                 share_credentials: bool = False, credentials_parent: Path | None = None) -> None:
        """``share_credentials``: workers run in other processes, so the cluster's secret
        and certificates become files they can read (under ``credentials_parent``)."""
        # Membership notices only this coordinator can sign (``coordinator.membership``).
        self.membership = MembershipSigner() if settings.transport.security.enabled else None
        if self.membership is not None:
            security = settings.transport.security.model_copy(
                update={"coordinator_key": self.membership.public_key})
            settings = settings.model_copy(update={
                "transport": settings.transport.model_copy(update={"security": security})})
        self._credentials = (SharedCredentials(settings, credentials_parent)
                             if share_credentials else None)
        if self._credentials is not None:
            settings = self._credentials.settings
        self.settings = settings = _with_engine_threads(settings, self.on_this_host)
        try:
            self.transport = transport or create_transport(
                settings.transport.kind, settings.transport.options, settings.transport.security
            )
        except BaseException:
            self._remove_credentials()
            raise
        self._lock = threading.Lock()
        self._clients: dict[str, TransportClient] = {}
        self._closed = False
        self.addresses: list[str] = []
        self.names: dict[str, str] = {}
        self.driver = Worker("driver", settings, self.client)
        try:
            self._driver_server: Server = self.transport.serve(self.driver)
        except BaseException:
            self.driver.close()
            self.transport.close()
            self._remove_credentials()
            raise
        self.driver_address = self._driver_server.address
        self.driver.served_at(self.driver_address)  # its own tasks report to it in-process
        self.names[self.driver_address] = "driver"

    def client(self, address: str) -> TransportClient:
        with self._lock:
            if self._closed:
                raise ConfigError("the cluster is closed")
            client = self._clients.get(address)
            if client is None:
                client = self._clients[address] = self.transport.connect(address)
            return client

    @property
    def cores(self) -> int:
        """CPU cores the workers have together, which plans are sized by (a stage runs at
        most a task per core, ``planner.physical.sizing``): ``worker.cores`` each where the
        settings give it; else, for workers on this machine, its CPUs, or their task slots
        (times engine threads) where those are fewer, since more tasks than run at once only
        queue; for workers elsewhere, their slots. So 2 or 16 workers on one machine's 2
        cores plan alike: workers beyond the cores add no CPU to spread tasks over."""
        worker, workers = self.settings.worker, max(1, len(self.addresses))
        if worker.cores:
            return workers * worker.cores
        slots = workers * worker.task_slots * worker.engine.threads
        return min(slots, _machine_cpus()) if self.on_this_host else slots

    def ensure_workers(self) -> None:
        """Nothing replaced: in-process workers do not die on their own."""

    def dead(self) -> list[str]:
        """None known: in-process workers do not die on their own."""
        return []

    def losses(self) -> int:
        return 0

    def _forget_client(self, address: str) -> None:
        """Close and drop the pooled client of a worker that is gone."""
        with self._lock:
            client = self._clients.pop(address, None)
        if client is not None:
            client.close()

    def _stop_workers(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Stop the workers and the driver, close every client and the transport; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            client.close()
        self.driver.close()  # first: it wakes calls waiting in it, which shutdown waits for
        self._driver_server.close()
        self._stop_workers()
        self.transport.close()
        self._remove_credentials()

    def _remove_credentials(self) -> None:
        if self._credentials is not None:
            self._credentials.close()


def _with_engine_threads(settings: Settings, on_this_host: bool) -> Settings:
    """``settings`` with the DuckDB threads of each worker resolved
    (``WorkerSettings.threads``): workers on this machine share its CPUs evenly, at least
    one each, rather than each sizing its threads by all of them."""
    worker = settings.worker
    share = max(1, _machine_cpus() // settings.workers) if on_this_host else 0
    engine = worker.engine.model_copy(update={"threads": worker.threads(share)})
    return settings.model_copy(update={"worker": worker.model_copy(update={"engine": engine})})


def _machine_cpus() -> int:
    """CPUs this process may run on (its affinity, as a container or ``taskset`` limits it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
