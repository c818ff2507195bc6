"""Spark's other spellings of the aggregates (``first_value``, ``last_value``, ``array_agg``,
``approx_percentile``), ``mode`` and ``try_sum``/``try_avg``; built, and their semantics
written down, in ``planner.logical.functions.aggregate_forms``."""

from __future__ import annotations

from collections.abc import Sequence

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.api.column import Column, ColumnOrName, lit, to_column
from sparkwire.planner.api.functions.core import call, percentages
from sparkwire.planner.api.functions.unary import of_one_column

__all__ = ["approx_percentile", "array_agg", "first_value", "last_value", "mode", "try_avg", "try_sum"]

array_agg = of_one_column("array_agg")
try_sum = of_one_column("try_sum")
try_avg = of_one_column("try_avg")


def _flag(ignore_nulls: bool | Column | None) -> ex.Expr:
    """PySpark's ``ignoreNulls``: a bool, a literal Column, or None (false)."""
    return ignore_nulls.expr if isinstance(ignore_nulls, Column) else lit(bool(ignore_nulls)).expr


def first_value(col: ColumnOrName, ignoreNulls: bool | Column | None = None) -> Column:  # noqa: N803
    """``first``, named ``first_value(col)`` as Spark names it."""
    return call("first_value", to_column(col).expr, _flag(ignoreNulls))


def last_value(col: ColumnOrName, ignoreNulls: bool | Column | None = None) -> Column:  # noqa: N803
    """``last``, named ``last_value(col)`` as Spark names it."""
    return call("last_value", to_column(col).expr, _flag(ignoreNulls))


def approx_percentile(col: ColumnOrName, percentage: Column | float | Sequence[float],
                      accuracy: Column | int = 10000) -> Column:
    """``percentile_approx``, named ``approx_percentile(...)``."""
    return call("approx_percentile", to_column(col).expr, percentages(percentage), lit(accuracy).expr)


def mode(col: ColumnOrName, deterministic: bool = False) -> Column:
    return call("mode", to_column(col).expr, lit(deterministic).expr)
