"""Which cluster a ``Session`` runs on, from its arguments and settings (``Session``'s
docstring says how it chooses)."""

from __future__ import annotations

from typing import Any

from sparkwire.coordinator.clusters.base import Cluster
from sparkwire.coordinator.clusters.local import LocalCluster
from sparkwire.coordinator.clusters.process import ProcessCluster
from sparkwire.coordinator.clusters.spark import SparkCluster
from sparkwire.coordinator.config import Settings
from sparkwire.transport.base import WorkerTransport
from sparkwire.transport.errors import ConfigError
from sparkwire.transport.registry import transport_class


def make_cluster(
    settings: Settings, kind: str | Cluster | None, spark: Any,
    transport: str | WorkerTransport | None,
) -> Cluster:
    """The cluster given; Spark executors when asked; otherwise in-process for a transport
    that stays in one process (or an explicit instance), local worker processes for one that
    crosses them."""
    if kind is not None and not isinstance(kind, str):
        return kind
    if kind == "spark" or (kind is None and spark is not None):
        if spark is None:
            raise ConfigError("cluster='spark' needs spark=<SparkSession>")
        return SparkCluster(spark, settings)
    if isinstance(transport, WorkerTransport):
        return LocalCluster(settings, transport)
    crosses = transport_class(settings.transport.kind).capabilities.crosses_processes
    if kind == "process" or (kind is None and crosses):
        if not crosses:
            raise ConfigError(f"the {settings.transport.kind!r} transport cannot reach worker processes")
        return ProcessCluster(settings)
    if kind not in (None, "local"):
        raise ConfigError(f"unknown cluster {kind!r}; known: local, process, spark")
    return LocalCluster(settings)
