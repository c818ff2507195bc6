"""PySpark-style column functions: ``from sparkwire import functions as F``.

The functions that build a ``Column`` (``planner.api.column``, re-exported here with ``col`` and
``lit``); groups of them live in their own modules and are re-exported too. Where a function
expects a column, a ``str`` is a column name; where it expects a value, a literal, as in
PySpark. ``count("*")`` and ``count(lit(1))`` both mean ``count(*)``.
"""

from __future__ import annotations

from typing import Any

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.api.column import (  # noqa: F401 - re-exported as F.*, as in PySpark
    Column,
    ColumnOrName,
    SortOrder,
    Value,
    _literal,
    _value,
    checked_call,
    col,
    lit,
    to_column,
)
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api.pyspark_names import FUNCTIONS
from sparkwire.planner.api.unsupported import missing_attribute


def flatten_arguments(items: tuple[Any, ...]) -> list[Any]:
    """PySpark accepts ``f(a, b)`` and ``f([a, b])``."""
    if len(items) == 1 and isinstance(items[0], list | tuple):
        return list(items[0])
    return list(items)


column = col


def expr(str: str) -> Column:  # noqa: A002 - PySpark's name
    """A Spark SQL expression as a Column (``planner.sql.column``): ``expr("a + 1 AS b")``."""
    from sparkwire.planner.sql.column import sql_column  # the SQL front end builds on this module

    return sql_column(str)


def when(condition: Column, value: Value) -> Column:
    return Column(ex.Case(branches=((condition.expr, _value(value)),)))


def sum(c: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    return _agg("sum", c)


def avg(c: ColumnOrName) -> Column:
    return _agg("avg", c)


mean = avg


def min(c: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    return _agg("min", c)


def max(c: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    return _agg("max", c)


def count(c: ColumnOrName) -> Column:
    """``count("*")`` and ``count`` of a non-null literal are ``count(*)``, named ``count(1)``."""
    if isinstance(c, str) and c == "*":
        return Column(ex.AggCall(fn="count"))
    column_ = to_column(c)
    if isinstance(column_.expr, ex.Lit) and column_.expr.value is not None:
        return Column(ex.AggCall(fn="count"))
    return Column(ex.AggCall(fn="count", arg=column_.expr))


def countDistinct(c: ColumnOrName, *more: ColumnOrName) -> Column:
    if more:
        raise AnalysisError("countDistinct of several columns is not supported by sparkwire; use one column")
    return _agg("count_distinct", c)


count_distinct = countDistinct


def abs(c: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    return _scalar("abs", c)


def lower(c: ColumnOrName) -> Column:
    return _scalar("lower", c)


def upper(c: ColumnOrName) -> Column:
    return _scalar("upper", c)


def length(c: ColumnOrName) -> Column:
    return _scalar("length", c)


def year(c: ColumnOrName) -> Column:
    return _scalar("year", c)


def month(c: ColumnOrName) -> Column:
    return _scalar("month", c)


def dayofmonth(c: ColumnOrName) -> Column:
    return _scalar("day", c)


def substring(c: ColumnOrName, pos: int, len: int) -> Column:  # noqa: A002 - PySpark's name
    """1-based; a negative ``pos`` counts from the end, as in Spark."""
    return Column(ex.Call(fn="substring", args=(to_column(c).expr, _value(pos), _value(len))))


def concat(*cols: ColumnOrName) -> Column:
    """NULL when any part is NULL, as in Spark."""
    if not cols:
        raise AnalysisError("concat needs at least one column")
    return Column(ex.Call(fn="concat", args=tuple(to_column(c).expr for c in cols)))


def trim(c: ColumnOrName) -> Column:
    return _scalar("trim", c)


def ltrim(c: ColumnOrName) -> Column:
    return _scalar("ltrim", c)


def rtrim(c: ColumnOrName) -> Column:
    return _scalar("rtrim", c)


def date_add(start: ColumnOrName, days: ColumnOrName | int) -> Column:
    """``days`` is a column (a name is one) or a number, as in PySpark."""
    return Column(ex.Call(fn="date_add", args=(to_column(start).expr, _number_or_column(days))))


def date_sub(start: ColumnOrName, days: ColumnOrName | int) -> Column:
    return Column(ex.Call(fn="date_sub", args=(to_column(start).expr, _number_or_column(days))))


def add_months(start: ColumnOrName, months: ColumnOrName | int) -> Column:
    """The same day ``months`` later, the month's last day where it has fewer (Spark's)."""
    return Column(ex.Call(fn="add_months", args=(to_column(start).expr, _number_or_column(months))))


def coalesce(*cols: ColumnOrName) -> Column:
    if not cols:
        raise AnalysisError("coalesce needs at least one column")
    return Column(ex.Call(fn="coalesce", args=tuple(to_column(c).expr for c in cols)))


def asc(c: ColumnOrName) -> SortOrder:
    return to_column(c).asc()


def desc(c: ColumnOrName) -> SortOrder:
    return to_column(c).desc()


def _agg(fn: ex.AggregateFunction, c: ColumnOrName) -> Column:
    return Column(ex.AggCall(fn=fn, arg=to_column(c).expr))


def _scalar(fn: ex.ScalarFunction, c: ColumnOrName) -> Column:
    return Column(ex.Call(fn=fn, args=(to_column(c).expr,)))


def _number_or_column(value: ColumnOrName | int | float) -> ex.Expr:
    """Where PySpark takes ``ColumnOrName`` or a number, a ``str`` is a column name."""
    return to_column(value).expr if isinstance(value, Column | str) else _literal(value)


# Function groups kept in their own modules, re-exported here as PySpark has them in one.
from sparkwire.planner.api.functions.dates import *  # noqa: E402, F403
from sparkwire.planner.api.functions.numeric import *  # noqa: E402, F403
from sparkwire.planner.api.functions.strings import *  # noqa: E402, F403

# The window functions live with ``Window`` (``planner.api.window``), which builds on this
# module's Column; they are imported last, once Column exists, to be ``F.row_number`` etc.
from sparkwire.planner.api.window import (  # noqa: E402, F401 - re-exported as F.*
    cume_dist,
    dense_rank,
    first,
    lag,
    last,
    lead,
    ntile,
    percent_rank,
    rank,
    row_number,
)

# Arrays, maps, structs, collection aggregates and generators live in their own module.
from sparkwire.planner.api.functions.nested import *  # noqa: E402, F403


def __getattr__(name: str) -> object:
    """``F.<name>`` for a PySpark function sparkwire lacks says so (PEP 562)."""
    raise missing_attribute("functions", name, FUNCTIONS)
