"""Coordinator, workers and clusters: where staged plans run."""

from coordinator.cluster import Cluster, LocalCluster
from coordinator.config import Settings, load_settings
from coordinator.execution import QueryCoordinator, QueryMetrics, QueryResult, StageMetrics
from coordinator.session import Session
from coordinator.worker import Worker

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
