"""The PySpark surface: ``DataFrame``, ``Column``, ``functions``, ``GroupedData``, ``Window``,
readers and writers, missing values, ``sparkwire.types``.

The top layer of the planner: it builds logical plans (``planner.logical``), parses SQL
through ``planner.sql`` and hands plans to ``planner.pipeline``; nothing below imports it.
"""

from sparkwire.planner.api import functions
from sparkwire.planner.api.column import Column, SortOrder
from sparkwire.planner.api.dataframe import DataFrame
from sparkwire.planner.api.executor import Executor, ResultStream
from sparkwire.planner.api.grouped import GroupedData
from sparkwire.planner.api.sources import DataFrameReader, create_dataframe, sql_dataframe
from sparkwire.planner.api.window import Window, WindowSpec

__all__ = [
    "Column",
    "DataFrame",
    "DataFrameReader",
    "Executor",
    "GroupedData",
    "ResultStream",
    "SortOrder",
    "Window",
    "WindowSpec",
    "create_dataframe",
    "functions",
    "sql_dataframe",
]
