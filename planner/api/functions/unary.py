"""PySpark functions of one column that are a registry call of that column, made by one
factory rather than written out dozens of times (``sin``, ``md5``, ``bitwise_not`` ...)."""

from __future__ import annotations

from collections.abc import Callable

from sparkwire.planner.api.column import Column, ColumnOrName, to_column
from sparkwire.planner.api.functions.core import call


def of_one_column(name: str, registered: str | None = None) -> Callable[[ColumnOrName], Column]:
    """PySpark's ``name(col)``: the registry's function ``registered`` (by default ``name``)
    of the column; named ``name``, so it reads as PySpark's in tracebacks and ``help``."""

    def function(col: ColumnOrName) -> Column:
        return call(registered or name, to_column(col).expr)

    function.__name__ = function.__qualname__ = name
    return function
