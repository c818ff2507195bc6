"""Worker processes on two simulated hosts (two workers each), over every network transport
and the hybrid one (shm within a host, zmq between hosts):
all 22 TPC-H queries (scale factor 0.01) give DuckDB's answers, every query uses every worker,
and each worker demonstrably runs on its own host, behind its own loopback, ``/dev/shm`` and
temporary directory.

To run the same checks over another transport, add it to ``TRANSPORTS`` with its options.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.clusters.process import ProcessCluster
from sparkwire.coordinator.config import Settings
from tests.e2e.tpch import run_all
from tests.hosts.isolation import CROSSING_BYTES, assert_host_files_private, host_of
from tests.hosts.network import SimulatedNetwork

pytestmark = pytest.mark.slow

#: transport kind -> its options, given the gateway: the interface the driver serves on, so
#: that workers on the hosts reach it.
TRANSPORTS: dict[str, Callable[[str], dict[str, Any]]] = {
    "zmq": lambda gateway: {"host": gateway},
    "flight": lambda gateway: {"host": gateway},
    "hybrid": lambda gateway: {"net": {"host": gateway}},  # shm on a host, zmq between
}
WORKERS_PER_HOST = 2


def host_settings(network: SimulatedNetwork, kind: str, data: Path) -> Settings:
    """Security on (the default), the driver on the gateway, and the data roots that a
    worker facing the network must have."""
    return Settings(
        workers=WORKERS_PER_HOST * len(network.hosts),
        transport={"kind": kind, "options": TRANSPORTS[kind](network.gateway)},
        worker={"engine": {"data_roots": [str(data)]}},
    )


@pytest.mark.parametrize("kind", sorted(TRANSPORTS))
def test_tpch_on_workers_spread_over_hosts(network: SimulatedNetwork, tpch: Path,
                                           expected: dict[str, pa.Table], kind: str) -> None:
    placements = [host.placement() for host in network.hosts for _ in range(WORKERS_PER_HOST)]
    settings = host_settings(network, kind, tpch)
    assert settings.transport.security.enabled
    started = time.monotonic()
    with Session(cluster=ProcessCluster(settings, placements=placements)) as session:
        cluster = session.cluster
        assert isinstance(cluster, ProcessCluster)
        placed = Counter(host_of(a, network.hosts).name for a in cluster.announcements)
        assert placed == {host.name: WORKERS_PER_HOST for host in network.hosts}
        assert [host_of(a, network.hosts).placement() for a in cluster.announcements] == placements
        assert_host_files_private(cluster.announcements, network.hosts)
        crossed = network.host_to_host_bytes()
        read: Counter[str] = Counter()
        wrong, idle = run_all(session, tpch, expected, read)
        crossed = network.host_to_host_bytes() - crossed
    assert wrong == []
    assert idle == []
    assert crossed > CROSSING_BYTES, f"only {crossed} bytes went from host to host"
    # a worker reads its own partitions in its process (``Worker.served_at``); "shared" counts
    # reads of a copy a worker already fetched for another of its tasks, not a route
    # (``worker.shared_inputs``)
    assert read["local"] > CROSSING_BYTES, read
    if kind == "hybrid":  # workers on one host read each other over shm, the rest over zmq
        assert read["shm"] > CROSSING_BYTES and read["zmq"] > CROSSING_BYTES, read
        assert set(read) - {"shared"} == {"local", "shm", "zmq"}, read
        # Every byte read over the network crossed between hosts (same-host reads took shm),
        # give or take framing and encryption; with plain zmq about two thirds do (the rest is
        # the other worker on the same host).
        assert 0.9 * read["zmq"] <= crossed <= 1.5 * read["zmq"], (crossed, read)
    else:
        assert set(read) - {"shared"} == {"local", kind}, read
    print(f"{kind}: read {dict(read)} bytes, {crossed} crossed the bridge")
    assert all(not host.pids() for host in network.hosts), "a worker outlived its cluster"
    print(f"{kind}: 22 TPC-H queries on {len(placements)} workers in {time.monotonic() - started:.1f} s")
