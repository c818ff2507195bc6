"""sparkwire's planner: the DataFrame API, logical plans, and their cutting into stages.

``from planner import functions as F`` for column expressions. The planner imports neither
``transport`` nor ``coordinator``; what it needs from a running cluster is the ``Executor``
protocol, which the coordinator's Session implements.
"""

from planner import functions
from planner.dataframe import DataFrame, DataFrameReader, GroupedData, create_dataframe
from planner.errors import AnalysisError, PlanError
from planner.executor import Executor, ResultStream
from planner.explain import explain_logical, explain_staged
from planner.functions import Column, SortOrder
from planner.stages import plan_stages

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
    "create_dataframe",
    "explain_logical",
    "explain_staged",
    "functions",
    "plan_stages",
]
