"""``conv`` of ``pyspark.sql.functions``, re-exported by ``planner.api.functions``; built,
and its semantics written down, in ``planner.logical.functions.radix``."""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName, lit, to_column
from sparkwire.planner.api.functions.core import call

__all__ = ["conv"]


def conv(col: ColumnOrName, fromBase: int, toBase: int) -> Column:  # noqa: N803 - PySpark's names
    return call("conv", to_column(col).expr, lit(fromBase).expr, lit(toBase).expr)
