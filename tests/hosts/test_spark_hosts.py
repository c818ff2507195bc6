"""sparkwire workers inside the executors of a Spark standalone cluster spread over two
simulated hosts (a Spark Worker per host, the Master and the driver on the gateway), two
workers per host: they register with the driver across the network, serve the hybrid
transport on their hosts (Flight with TLS and tokens between hosts, shared memory within
one), answer all 22 TPC-H queries (scale factor 0.01) as DuckDB does, read from their
host's other worker over shm and from the other host over Flight, and everything —
sparkwire workers, executors, Spark Workers, Master, namespaces — is gone after closing."""

from __future__ import annotations

import os
import subprocess
from collections import Counter
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pyarrow as pa
import pytest

from sparkwire.coordinator import Session
from sparkwire.coordinator.clusters.spark import SparkCluster
from sparkwire.coordinator.config import Settings
from tests.e2e.tpch import run_all
from tests.hosts.isolation import CROSSING_BYTES, assert_host_files_private, host_of, network_address
from tests.hosts.network import SimulatedHost, SimulatedNetwork
from tests.hosts.spark_standalone import QUICK_JVM, SparkStandalone

pytestmark = pytest.mark.slow

EXECUTOR_CORES = 2  # two task slots per host: two sparkwire workers on each host


def standalone_session(master_url: str, gateway: str, executors: int,
                       timeout: float = 60.0) -> Any:
    """A SparkSession on the standalone cluster whose driver listens on the gateway, the only
    address of this machine the hosts reach; returned once ``executors`` executors have
    registered (bounded by ``timeout``), so that each host offers its task slot. Executors run this very Python (the venv), where sparkwire is importable.

    One JVM holds one SparkContext: a local one (tests/spark) gives way, and its fixture
    makes it again."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable  # PySpark names the executors' Python by it
    if SparkContext._active_spark_context is not None:
        SparkContext._active_spark_context.stop()
    spark = (
        SparkSession.builder.master(master_url)
        .appName("sparkwire-simulated-hosts")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", gateway)
        .config("spark.driver.bindAddress", gateway)
        .config("spark.executor.cores", str(EXECUTOR_CORES))
        .config("spark.cores.max", str(EXECUTOR_CORES * executors))
        .config("spark.executor.memory", "512m")
        .config("spark.executor.extraJavaOptions", QUICK_JVM)
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    deadline = time.monotonic() + timeout
    while (registered := registered_executors(spark)) < executors:
        if time.monotonic() > deadline:
            spark.stop()
            raise TimeoutError(f"{registered} of {executors} executors registered in {timeout:g}s")
        time.sleep(0.2)
    return spark


def registered_executors(spark: Any) -> int:
    """Executors (not the driver) registered with the driver now."""
    return int(spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size()) - 1


def test_tpch_on_spark_executors_across_hosts(namespaces_available: None, tpch: Path,
                                              expected: dict[str, pa.Table], tmp_path: Path) -> None:
    started = time.monotonic()
    (tmp_path / "exchange").mkdir()
    with SimulatedNetwork(hosts=2) as network:
        namespaces = network.namespaces()
        with SparkStandalone(network, tmp_path, cores=EXECUTOR_CORES) as standalone:
            daemons = standalone.pids()
            spark = standalone_session(standalone.master_url, network.gateway, len(network.hosts))
            try:
                assert registered_executors(spark) == len(network.hosts)
                settings = Settings(
                    workers=EXECUTOR_CORES * len(network.hosts),
                    transport={"kind": "hybrid", "options": {
                        "network": "flight", "net": {"host": network.gateway}}},
                    worker={"engine": {"data_roots": [str(tpch)]}},
                    spark_exchange_dir=tmp_path / "exchange",  # credentials, as shared files
                )
                ready = time.monotonic()
                with Session(cluster=SparkCluster(spark, settings)) as session:
                    cluster = session.cluster
                    assert isinstance(cluster, SparkCluster)
                    announcements = cluster.announcements
                    served = {(host_of(a, network.hosts), urlsplit(network_address(a.address)).port)
                              for a in announcements}
                    per_host = Counter(host.name for host, _ in served)
                    assert per_host == {"a": EXECUTOR_CORES, "b": EXECUTOR_CORES}, per_host
                    assert all(network_address(a.address).startswith("grpc+tls://")
                               for a in announcements)
                    assert_host_files_private(announcements, network.hosts)
                    crossed = network.host_to_host_bytes()
                    read: Counter[str] = Counter()
                    wrong, idle = run_all(session, tpch, expected, read)
                    crossed = network.host_to_host_bytes() - crossed
                queried = time.monotonic()
                assert wrong == []
                assert idle == []
                assert crossed > CROSSING_BYTES, f"only {crossed} bytes went from host to host"
                # a worker's own partitions in its process, the rest of one host's over shm,
                # other hosts' over Flight, all of which crossed hosts; "shared" counts reads
                # of a copy a worker already fetched for another of its tasks, not a route
                # (``worker.shared_inputs``)
                routes = {route: n for route, n in read.items() if route != "shared"}
                assert set(routes) == {"local", "shm", "flight"}, read
                assert all(n > CROSSING_BYTES for n in routes.values()), read
                assert 0.9 * read["flight"] <= crossed <= 1.5 * read["flight"], (crossed, read)
                assert_stopped_serving(served)
            finally:
                spark.stop()
        assert all(not host.pids() for host in network.hosts), "an executor outlived Spark"
        assert all(not _alive(pid) for pid in daemons)
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert not [name for name in namespaces if name in left]
    print(f"spark standalone on 2 hosts: read {dict(read)} bytes, {crossed} crossed the bridge; "
          f"{ready - started:.1f} s to start, "
          f"{queried - ready:.1f} s for the cluster and 22 queries, "
          f"{time.monotonic() - started:.1f} s in all")


def assert_stopped_serving(served: set[tuple[SimulatedHost, int | None]],
                           within: float = 10.0) -> None:
    """Every sparkwire worker's port is closed on its host soon after the cluster closed (its
    Python process may live on: PySpark reuses idle Python workers)."""
    deadline = time.monotonic() + within
    while (open_ := {(h.name, p) for h, p in served if p in h.listening_ports()}):
        assert time.monotonic() < deadline, f"still serving after close: {open_}"
        time.sleep(0.2)


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()
