"""``timestamp_diff`` and ``timestamp_add`` of ``pyspark.sql.functions``; built, and Spark's
rules written down, in ``planner.logical.functions.timestamp_units``. As in PySpark, the
unit is a ``str`` (or a literal Column), the other arguments columns or column names."""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName, lit, to_column
from sparkwire.planner.api.functions.core import call

__all__ = ["timestamp_add", "timestamp_diff"]


def timestamp_diff(unit: str | Column, start: ColumnOrName, end: ColumnOrName) -> Column:
    return call("timestamp_diff", lit(unit).expr, to_column(start).expr, to_column(end).expr)


def timestamp_add(unit: str | Column, quantity: ColumnOrName, ts: ColumnOrName) -> Column:
    return call("timestamp_add", lit(unit).expr, to_column(quantity).expr, to_column(ts).expr)
