"""sparkwire: distributed Arrow queries on workers inside Spark executors, over a pluggable
worker transport.

    from sparkwire import Session, functions as F

    with Session(workers=4) as session:
        df = session.read.parquet("lineitem/")
        df.groupBy("l_returnflag").agg(F.sum("l_quantity")).toArrow()

The distribution installs three packages under this one: ``sparkwire.planner`` (DataFrame
API, logical plans, stage cutting), ``sparkwire.coordinator`` (Session, coordinator, workers,
clusters) and ``sparkwire.transport`` (the worker transport contract and its
implementations). This module only re-exports what a user reaches for first.
"""

from sparkwire.coordinator import Session, Settings, load_settings
from sparkwire.planner.api import functions
from sparkwire.planner.api.column import Column
from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.planner.api.window import Window
from sparkwire.planner.errors import AnalysisError, PlanError
from sparkwire import types
from sparkwire.transport.errors import SparkwireError

__all__ = [
    "AnalysisError",
    "Column",
    "DataFrame",
    "PlanError",
    "Session",
    "Settings",
    "SparkwireError",
    "Window",
    "functions",
    "load_settings",
    "types",
]
