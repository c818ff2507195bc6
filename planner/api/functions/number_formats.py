"""``to_number`` and ``try_to_number`` of ``pyspark.sql.functions``, re-exported by
``planner.api.functions``; built, and their semantics written down, in
``planner.logical.functions.number_formats``."""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName, to_column
from sparkwire.planner.api.functions.core import call

__all__ = ["to_number", "try_to_number"]


def to_number(col: ColumnOrName, format: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    return call("to_number", to_column(col).expr, to_column(format).expr)


def try_to_number(col: ColumnOrName, format: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    return call("try_to_number", to_column(col).expr, to_column(format).expr)
