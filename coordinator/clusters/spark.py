"""``SparkCluster``: sparkwire workers hosted as long-running tasks of a Spark job.

The pattern of Ray-on-Spark, Horovod-on-Spark and TensorFlowOnSpark: a driver thread runs a
background job of N tasks under one job group; each task builds its transport and worker
*inside the task* (PySpark forks its Python workers, so sockets, ZeroMQ contexts and Flight
servers must be created after the fork), binds the executor's address with an OS-chosen
port, registers with the coordinator's ``Registrar`` on the driver, and serves until the
driver closes the registration connection — the worker's lifeline. The job group is
cancelled as a backstop when the cluster closes, fails or the interpreter exits.

Why not barrier mode: a barrier stage fails fast when the cluster has fewer slots than
tasks, but it also kills and restarts every task when one fails, turning one lost worker
into a lost cluster, and it does not work with dynamic allocation. Ray-on-Spark avoids it
for the same reasons. Non-barrier tasks keep the other workers alive when one dies (the
cluster reports it lost); the slot check is done up front against the cluster's total
slots, and a worker that never starts (slots busy with other jobs) is caught by the
readiness timeout, whose error names how many workers registered and how many Spark tasks
are running.
"""

from __future__ import annotations

import atexit
import logging
import socket
import threading
import time
import uuid
import weakref
from pathlib import Path
from typing import Any

from sparkwire.coordinator.clusters.base import ClusterBase
from sparkwire.coordinator.config import Settings
from sparkwire.coordinator.clusters.hosting import WorkerAnnouncement
from sparkwire.coordinator.clusters.registrar import Registrar, serve_registered
from sparkwire.transport.errors import ConfigError, SparkwireError, Timeout
from sparkwire.transport.registry import transport_class

_log = logging.getLogger(__name__)
_open_clusters: weakref.WeakSet[SparkCluster] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for cluster in list(_open_clusters):
        cluster.close()


class SparkCluster(ClusterBase):
    """``settings.workers`` workers inside the executors of ``spark``'s cluster."""

    on_this_host = False  # Spark's executors run where its cluster manager puts them

    def __init__(self, spark: Any, settings: Settings, start_timeout: float = 120.0) -> None:
        kind = settings.transport.kind
        capabilities = transport_class(kind).capabilities
        if not capabilities.crosses_processes:
            raise ConfigError(
                f"the {kind!r} transport cannot reach workers inside Spark executors; "
                "use flight, zmq or shm"
            )
        self._sc = spark.sparkContext
        slots = int(self._sc.defaultParallelism)
        if settings.workers > slots:
            raise ConfigError(
                f"{settings.workers} workers need {settings.workers} Spark task slots at once, "
                f"but the cluster has {slots} in total; ask for at most {slots} workers"
            )
        super().__init__(settings, share_credentials=True,
                         credentials_parent=_credentials_parent(self._sc, settings))
        settings = self.settings  # its credentials are files now, which the workers read
        self._job_error: BaseException | None = None
        self._group = f"sparkwire-{uuid.uuid4().hex[:12]}"
        self._registrar = Registrar(_driver_host(self._sc), settings.workers,
                                    settings.transport.security.credentials())
        self._job = threading.Thread(target=self._run_job, name=self._group, daemon=True)
        _open_clusters.add(self)
        try:
            self._job.start()
            self.announcements = self._await_workers(start_timeout)
            hosts = {a.host for a in self.announcements} | {socket.gethostname()}
            if not capabilities.crosses_hosts and len(hosts) > 1:
                raise ConfigError(
                    f"the {kind!r} transport needs the driver and every worker on one host; "
                    f"Spark placed them on {sorted(hosts)}"
                )
        except BaseException:
            self.close()
            raise
        self.addresses = [a.address for a in self.announcements]
        self.names.update((a.address, a.worker_id) for a in self.announcements)

    # -- the background job -------------------------------------------------------------
    def _run_job(self) -> None:
        sc, settings, registrar = self._sc, self.settings, self._registrar.address
        sc.setJobGroup(self._group, "sparkwire workers", interruptOnCancel=True)
        settings_json = settings.model_dump_json()
        try:
            sc.parallelize(range(settings.workers), settings.workers).mapPartitionsWithIndex(
                lambda index, _: serve_registered(index, registrar, settings_json)
            ).collect()
        except BaseException as exc:  # noqa: BLE001 - reported by _await_workers / lost
            self._job_error = exc

    def _await_workers(self, timeout: float) -> list[WorkerAnnouncement]:
        deadline = time.monotonic() + timeout
        reported = -1
        while True:
            announcements = self._registrar.announcements()
            if len(announcements) != reported:
                reported = len(announcements)
                _log.info("%d of %d sparkwire workers registered", reported, self.settings.workers)
            if len(announcements) == self.settings.workers:
                for announcement in announcements:
                    announcement.check_versions()
                return sorted(announcements, key=lambda a: a.worker_id)
            if self._job_error is not None:
                raise SparkwireError(f"the Spark job hosting the workers failed: {self._job_error}")
            if not self._job.is_alive():
                raise SparkwireError("the Spark job hosting the workers ended before they registered")
            if time.monotonic() >= deadline:
                raise Timeout(
                    f"only {len(announcements)} of {self.settings.workers} sparkwire workers "
                    f"registered within {timeout:g}s; Spark is running {self._running_tasks()} "
                    "task(s) — are the executors' task slots busy with other jobs?"
                )
            time.sleep(0.1)

    def _running_tasks(self) -> int:
        tracker = self._sc.statusTracker()
        stages = (tracker.getStageInfo(s) for s in tracker.getActiveStageIds())
        return sum(info.numActiveTasks for info in stages if info is not None)

    # -- Cluster ---------------------------------------------------------------------------
    def lost_workers(self) -> dict[str, str]:
        """Workers whose lifeline broke (process died, executor lost): id → reason."""
        return self._registrar.lost()

    def dead(self) -> list[str]:
        """Workers whose lifeline broke and that have not registered again."""
        lost = self._registrar.lost()
        return [a.address for a in self.announcements if a.worker_id in lost]

    def losses(self) -> int:
        return self._registrar.losses()

    def ensure_workers(self) -> None:
        """Point the cluster at workers that registered again after Spark retried their
        task (``spark.task.maxFailures``; ``local[N,F]`` locally): new address, new client."""
        current = {a.worker_id: a for a in self._registrar.announcements()}
        for index, old in enumerate(self.announcements):
            new = current.get(old.worker_id)
            if new is None or new.address == old.address:
                continue
            new.check_versions()
            self.announcements[index] = new
            self.addresses[index] = new.address
            self.names.pop(old.address, None)
            self.names[new.address] = new.worker_id
            self._forget_client(old.address)

    def _stop_workers(self) -> None:
        """Close lifelines so workers stop, wait for the job, cancel it if it lingers."""
        _open_clusters.discard(self)
        self._registrar.close()
        if self._job.ident is not None:
            self._job.join(self.settings.timeouts.shutdown)
        if self._job.is_alive():
            self._sc.cancelJobGroup(self._group)
            self._job.join(self.settings.timeouts.shutdown)


def _credentials_parent(sc: Any, settings: Settings) -> Path | None:
    """Where generated credentials go: executors of a real cluster read shared storage."""
    if str(sc.master).startswith("local"):
        return None
    security = settings.transport.security
    if security.enabled and security.secret_file is None and settings.spark_exchange_dir is None:
        raise ConfigError(
            "on a Spark cluster, name security.secret_file (and certificate files) present on "
            "every host, or set spark_exchange_dir to shared storage for generated ones"
        )
    return settings.spark_exchange_dir


def _driver_host(sc: Any) -> str:
    """The address executors reach the driver at (loopback for a local master)."""
    master = str(sc.master)
    if master.startswith("local"):
        return "127.0.0.1"
    return str(sc.getConf().get("spark.driver.host", "127.0.0.1"))
