"""sparkwire's planner: the DataFrame API, logical plans, and their cutting into stages.

``from sparkwire import functions as F`` for column expressions. The planner imports neither
``transport`` nor ``coordinator``; what it needs from a running cluster is the ``Executor``
protocol, which the coordinator's Session implements.
"""

from sparkwire.planner import functions
from sparkwire.planner.dataframe import DataFrame
from sparkwire.planner.grouped import GroupedData
from sparkwire.planner.sources import DataFrameReader, create_dataframe, sql_dataframe
from sparkwire.planner.errors import AnalysisError, PlanError
from sparkwire.planner.executor import Executor, ResultStream
from sparkwire.planner.explain import explain_logical, explain_staged
from sparkwire.planner.functions import Column, SortOrder
from sparkwire.planner.stages import plan_stages
from sparkwire.planner.window import Window, WindowSpec

__all__ = [
    "AnalysisError",
    "Column",
    "DataFrame",
    "DataFrameReader",
    "Executor",
    "GroupedData",
    "PlanError",
    "ResultStream",
    "SortOrder",
    "Window",
    "WindowSpec",
    "create_dataframe",
    "explain_logical",
    "explain_staged",
    "functions",
    "plan_stages",
    "sql_dataframe",
]
