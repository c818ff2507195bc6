"""The later aggregates of ``pyspark.sql.functions`` (``bool_and`` ..., ``product``,
``max_by``/``min_by``, ``median``, ``percentile``); built, and their semantics written down,
in ``planner.logical.functions.summaries``."""

from __future__ import annotations

from collections.abc import Sequence

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.api.column import Column, ColumnOrName, lit, to_column
from sparkwire.planner.api.functions.core import call
from sparkwire.planner.api.functions.unary import of_one_column

__all__ = ["bool_and", "bool_or", "every", "max_by", "median", "min_by", "percentile", "product", "some"]

bool_and = of_one_column("bool_and")
bool_or = of_one_column("bool_or")
every = of_one_column("every")
some = of_one_column("some")
product = of_one_column("product")
median = of_one_column("median")


def max_by(col: ColumnOrName, ord: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    return call("max_by", to_column(col).expr, to_column(ord).expr)


def min_by(col: ColumnOrName, ord: ColumnOrName) -> Column:  # noqa: A002
    return call("min_by", to_column(col).expr, to_column(ord).expr)


def percentile(col: ColumnOrName, percentage: Column | float | Sequence[float],
               frequency: Column | int = 1) -> Column:
    """``percentage`` a number, a list of them, or a literal Column, as in PySpark."""
    if isinstance(percentage, list | tuple):
        fractions: ex.Expr = ex.Call(fn="array", args=tuple(lit(p).expr for p in percentage))
    else:
        fractions = lit(percentage).expr  # type: ignore[arg-type]  # a Sequence but no list
    return call("percentile", to_column(col).expr, fractions, lit(frequency).expr)
