"""Coordinator, workers and clusters: where staged plans run.

The names below are imported on first use (``lazy``): a worker process, which imports
``coordinator.worker`` through this package, does not load the session and the planner's
user surface with it.
"""

from typing import TYPE_CHECKING

from sparkwire.coordinator.lazy import lazy_exports

if TYPE_CHECKING:
    from sparkwire.coordinator.clusters.base import Cluster
    from sparkwire.coordinator.clusters.local import LocalCluster
    from sparkwire.coordinator.config import Settings, load_settings
    from sparkwire.coordinator.execution import QueryResult
    from sparkwire.coordinator.query_coordinator import QueryCoordinator
    from sparkwire.coordinator.metrics import QueryMetrics, StageMetrics
    from sparkwire.coordinator.session import Session
    from sparkwire.coordinator.worker.service import Worker

_EXPORTS = {
    "Cluster": "sparkwire.coordinator.clusters.base:Cluster",
    "LocalCluster": "sparkwire.coordinator.clusters.local:LocalCluster",
    "QueryCoordinator": "sparkwire.coordinator.query_coordinator:QueryCoordinator",
    "QueryMetrics": "sparkwire.coordinator.metrics:QueryMetrics",
    "QueryResult": "sparkwire.coordinator.execution:QueryResult",
    "Session": "sparkwire.coordinator.session:Session",
    "Settings": "sparkwire.coordinator.config:Settings",
    "StageMetrics": "sparkwire.coordinator.metrics:StageMetrics",
    "Worker": "sparkwire.coordinator.worker.service:Worker",
    "load_settings": "sparkwire.coordinator.config:load_settings",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
