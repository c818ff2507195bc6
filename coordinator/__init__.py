"""Coordinator, workers and clusters: where staged plans run."""

from sparkwire.coordinator.clusters.base import Cluster
from sparkwire.coordinator.clusters.local import LocalCluster
from sparkwire.coordinator.config import Settings, load_settings
from sparkwire.coordinator.execution import QueryCoordinator, QueryResult
from sparkwire.coordinator.metrics import QueryMetrics, StageMetrics
from sparkwire.coordinator.session import Session
from sparkwire.coordinator.worker.service import Worker

__all__ = [
    "Cluster",
    "LocalCluster",
    "QueryCoordinator",
    "QueryMetrics",
    "QueryResult",
    "Session",
    "Settings",
    "StageMetrics",
    "Worker",
    "load_settings",
]
