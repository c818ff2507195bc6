"""The checks that workers really run on their simulated hosts, shared by the process and
Spark tests: a worker's address, host name and ``TMPDIR`` are its host's, its process is in
its host's namespaces, and it sees its own host's ``/dev/shm`` and ``TMPDIR`` and no other's."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from sparkwire.coordinator.clusters.hosting import WorkerAnnouncement
from sparkwire.transport.hybrid import HybridAddress
from tests.hosts.network import SimulatedHost

#: The 22 TPC-H queries' exchanges between workers on two hosts move about 13 MB over the
#: bridge (scale factor 0.01, 4 workers, zmq or flight); gateway traffic (plans, results)
#: does not count. Less than this means the workers did not talk to each other across hosts.
CROSSING_BYTES = 1 << 20


def network_address(address: str) -> str:
    """The network address a worker's address names: a hybrid address's network part."""
    if address.startswith("hybrid://"):
        return HybridAddress.parse(address).net or ""
    return address


def network_host(address: str) -> str | None:
    """The network host a worker's address names."""
    return urlsplit(network_address(address)).hostname


def host_of(announcement: WorkerAnnouncement, hosts: Sequence[SimulatedHost]) -> SimulatedHost:
    """The host whose address the worker announced; fails unless its process runs there."""
    served_on = network_host(announcement.address)
    matching = [h for h in hosts if h.address == served_on]
    assert matching, f"{announcement.worker_id} serves on {served_on}, no simulated host's address"
    host = matching[0]
    assert host.runs(announcement.pid), (
        f"{announcement.worker_id} (pid {announcement.pid}) announced {served_on} but does not "
        f"run in host {host.name}'s namespaces")
    assert announcement.host == host.hostname
    environ = Path(f"/proc/{announcement.pid}/environ").read_bytes().split(b"\0")
    assert f"TMPDIR={host.tmp}".encode() in environ, f"{announcement.worker_id}: not the host's TMPDIR"
    return host


def assert_host_files_private(announcements: Sequence[WorkerAnnouncement],
                              hosts: Sequence[SimulatedHost]) -> None:
    """A file one host puts in its ``/dev/shm`` or its ``TMPDIR`` is seen by exactly that
    host's workers (as the worker process resolves the path, through ``/proc/<pid>/root``),
    not by the others nor by the coordinator."""
    for host in hosts:
        for directory in (Path("/dev/shm"), host.tmp):
            marker = directory / f"hosts-test-{uuid.uuid4().hex}"
            host.run("sh", "-c", f": > {marker}")
            try:
                assert not marker.exists(), f"host {host.name}'s {directory} is the coordinator's"
                for announcement in announcements:
                    sees = Path(f"/proc/{announcement.pid}/root{marker}").exists()
                    assert sees == (host_of(announcement, hosts) is host), (
                        f"{announcement.worker_id} {'sees' if sees else 'misses'} {marker} "
                        f"of host {host.name}")
            finally:
                host.run("rm", "-f", str(marker))
