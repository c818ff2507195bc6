"""``LocalCluster``: every worker an object in this process; the embedded default and the
test harness."""

from __future__ import annotations

from sparkwire.coordinator.clusters.base import ClusterBase
from sparkwire.coordinator.config import Settings
from sparkwire.coordinator.worker.service import Worker
from sparkwire.transport.base import Server, WorkerTransport


class LocalCluster(ClusterBase):
    """``n`` in-process workers plus the driver, all served by one transport instance.

    Any transport works: over the memory transport this is the embedded default; over a
    socket transport it exercises real sockets inside one process.
    """

    def __init__(self, settings: Settings, transport: WorkerTransport | None = None) -> None:
        super().__init__(settings, transport)
        self.workers: list[Worker] = []
        self._servers: list[Server] = []
        try:
            for index in range(self.settings.workers):
                self.workers.append(Worker(f"worker-{index}", self.settings, self.client))
                self._servers.append(self.transport.serve(self.workers[-1]))
        except BaseException:
            self.close()
            raise
        self.addresses = [server.address for server in self._servers]
        self.names.update(zip(self.addresses, (w.worker_id for w in self.workers), strict=True))

    def _stop_workers(self) -> None:
        for server in self._servers:
            server.close()
        for worker in self.workers:
            worker.close()
