"""The functions of ``pyspark.sql.functions`` a program reaches for first, re-exported by
``planner.api.functions``: the common aggregates, ``when``, ``coalesce``, a few string and
date functions, sort orders, ``expr``, ``raise_error`` and ``assert_true``. ``count("*")`` and ``count(lit(1))`` both mean
``count(*)``, named ``count(1)``, as ``functions.scala`` turns ``count(*)`` into
``count(1)`` before the registry sees it.
"""

from __future__ import annotations

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.logical.literals import literal
from sparkwire.planner.sql.column import sql_expression
from sparkwire.planner.api.column import Column, ColumnOrName, SortOrder, Value, _value, col, to_column
from sparkwire.planner.api.functions.core import call, exprs, number_or_column

__all__ = [
    "abs", "add_months", "asc", "assert_true", "avg", "coalesce", "column", "concat", "count", "countDistinct",
    "count_distinct", "date_add", "date_sub", "dayofmonth", "desc", "expr", "length", "lower",
    "ltrim", "max", "mean", "min", "month", "raise_error", "rtrim", "substring", "sum", "trim", "upper", "when",
    "year",
]

column = col


def expr(str: str) -> Column:  # noqa: A002 - PySpark's name
    """A Spark SQL expression as a Column (``planner.sql.column``): ``expr("a + 1 AS b")``."""
    value, name = sql_expression(str)
    return Column(value, name)


def when(condition: Column, value: Value) -> Column:
    return Column(ex.Case(branches=((condition.expr, _value(value)),)))


def sum(c: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    return call("sum", to_column(c).expr)


def avg(c: ColumnOrName) -> Column:
    return call("avg", to_column(c).expr)


mean = avg


def min(c: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    return call("min", to_column(c).expr)


def max(c: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    return call("max", to_column(c).expr)


def count(c: ColumnOrName) -> Column:
    """``count("*")`` and ``count`` of a non-null literal are ``count(*)``."""
    if isinstance(c, str) and c == "*":
        return call("count")
    counted = to_column(c).expr
    if isinstance(counted, ex.Lit) and counted.value is not None:
        return call("count")
    return call("count", counted)


def countDistinct(c: ColumnOrName, *more: ColumnOrName) -> Column:  # noqa: N802 - PySpark's name
    return call("count_distinct", *exprs((c, *more)))


count_distinct = countDistinct


def abs(c: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    return call("abs", to_column(c).expr)


def lower(c: ColumnOrName) -> Column:
    return call("lower", to_column(c).expr)


def upper(c: ColumnOrName) -> Column:
    return call("upper", to_column(c).expr)


def length(c: ColumnOrName) -> Column:
    return call("length", to_column(c).expr)


def year(c: ColumnOrName) -> Column:
    return call("year", to_column(c).expr)


def month(c: ColumnOrName) -> Column:
    return call("month", to_column(c).expr)


def dayofmonth(c: ColumnOrName) -> Column:
    return call("dayofmonth", to_column(c).expr)


def substring(c: ColumnOrName, pos: int, len: int) -> Column:  # noqa: A002 - PySpark's name
    """1-based; a negative ``pos`` counts from the end, as in Spark."""
    return call("substring", to_column(c).expr, _value(pos), _value(len))


def concat(*cols: ColumnOrName) -> Column:
    """NULL when any part is NULL, as in Spark."""
    return call("concat", *exprs(cols))


def trim(c: ColumnOrName) -> Column:
    return call("trim", to_column(c).expr)


def ltrim(c: ColumnOrName) -> Column:
    return call("ltrim", to_column(c).expr)


def rtrim(c: ColumnOrName) -> Column:
    return call("rtrim", to_column(c).expr)


def date_add(start: ColumnOrName, days: ColumnOrName | int) -> Column:
    """``days`` is a column (a name is one) or a number, as in PySpark."""
    return call("date_add", to_column(start).expr, number_or_column(days))


def date_sub(start: ColumnOrName, days: ColumnOrName | int) -> Column:
    return call("date_sub", to_column(start).expr, number_or_column(days))


def add_months(start: ColumnOrName, months: ColumnOrName | int) -> Column:
    """The same day ``months`` later, the month's last day where it has fewer (Spark's)."""
    return call("add_months", to_column(start).expr, number_or_column(months))


def coalesce(*cols: ColumnOrName) -> Column:
    return call("coalesce", *exprs(cols))


def asc(c: ColumnOrName) -> SortOrder:
    return to_column(c).asc()


def desc(c: ColumnOrName) -> SortOrder:
    return to_column(c).desc()


def raise_error(errMsg: ColumnOrName) -> Column:  # noqa: N803 - PySpark's name
    """Fails the query with ``[USER_RAISED_EXCEPTION] errMsg`` (a string is the message,
    as PySpark reads it, not a column name)."""
    return call("raise_error", _message(errMsg))


def assert_true(col: ColumnOrName, errMsg: ColumnOrName | None = None) -> Column:  # noqa: N803
    """NULL where ``col`` is true; fails the query where it is false or NULL."""
    message = () if errMsg is None else (_message(errMsg),)
    return call("assert_true", to_column(col).expr, *message)


def _message(value: ColumnOrName) -> ex.Expr:
    return value.expr if isinstance(value, Column) else literal(value)
