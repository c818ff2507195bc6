"""sparkwire: distributed Arrow queries on workers inside Spark executors, over a pluggable
worker transport.

    from sparkwire import Session, functions as F

    with Session(workers=4) as session:
        df = session.read.parquet("lineitem/")
        df.groupBy("l_returnflag").agg(F.sum("l_quantity")).toArrow()

The distribution installs three packages under this one: ``sparkwire.planner`` (DataFrame
API, logical plans, stage cutting), ``sparkwire.coordinator`` (Session, coordinator, workers,
clusters) and ``sparkwire.transport`` (the worker transport contract and its
implementations). This module only re-exports what a user reaches for first, each name
imported when first used (``coordinator.lazy``): a worker process passes through here too,
and needs none of them.
"""

from typing import TYPE_CHECKING

from sparkwire.coordinator.lazy import lazy_exports

if TYPE_CHECKING:
    from sparkwire import types
    from sparkwire.coordinator import Session, Settings, load_settings
    from sparkwire.planner.api import functions
    from sparkwire.planner.api.column import Column
    from sparkwire.planner.api.dataframe import DataFrame
    from sparkwire.planner.api.observation import Observation
    from sparkwire.planner.api.storage_level import StorageLevel
    from sparkwire.planner.api.window import Window
    from sparkwire.planner.errors import AnalysisError, PlanError
    from sparkwire.transport.errors import SparkwireError

_EXPORTS = {
    "AnalysisError": "sparkwire.planner.errors:AnalysisError",
    "Column": "sparkwire.planner.api.column:Column",
    "DataFrame": "sparkwire.planner.api.dataframe:DataFrame",
    "Observation": "sparkwire.planner.api.observation:Observation",
    "PlanError": "sparkwire.planner.errors:PlanError",
    "Session": "sparkwire.coordinator.session:Session",
    "StorageLevel": "sparkwire.planner.api.storage_level:StorageLevel",
    "Settings": "sparkwire.coordinator.config:Settings",
    "SparkwireError": "sparkwire.transport.errors:SparkwireError",
    "Window": "sparkwire.planner.api.window:Window",
    "functions": "sparkwire.planner.api.functions",
    "load_settings": "sparkwire.coordinator.config:load_settings",
    "types": "sparkwire.types",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)
