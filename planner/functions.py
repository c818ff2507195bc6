"""PySpark-style column expressions: ``from sparkwire import functions as F``.

A ``Column`` is a thin, immutable wrapper around an ``expressions.Expr`` plus an optional
alias. Nothing is resolved here: ``F.col("x")`` names a column of whatever DataFrame it is
used with, which checks it when the expression is attached (PySpark's behaviour).

Where a function expects a column, a ``str`` is a column name; where an operator or
``when``/``otherwise``/``isin``/``between`` expects a value, a ``str`` is a literal, as in
PySpark. ``count("*")`` and ``count(lit(1))`` both mean ``count(*)``.
"""

from __future__ import annotations

import builtins
import datetime as dt
import decimal
import math
import re
from dataclasses import dataclass
from typing import Union

from sparkwire.planner import expressions as ex
from sparkwire.planner import render
from sparkwire.planner.limits import check_in_list
from sparkwire.planner.errors import AnalysisError, plain_message
from sparkwire.planner.pyspark_names import COLUMN, FUNCTIONS
from sparkwire.planner.unsupported import missing_attribute

ColumnOrName = Union["Column", str]
Value = Union["Column", bool, int, float, str, decimal.Decimal, dt.date, dt.datetime, None]

_SPARK_TYPES = {
    "boolean": "bool",
    "tinyint": "int8",
    "byte": "int8",
    "smallint": "int16",
    "short": "int16",
    "int": "int32",
    "integer": "int32",
    "bigint": "int64",
    "long": "int64",
    "float": "float32",
    "real": "float32",
    "double": "float64",
    "decimal": "decimal(10,0)",
}


class Column:
    """An expression being built; combine with operators, finish with ``alias``/``desc``."""

    __slots__ = ("_expr", "_alias")

    def __init__(self, expr: ex.Expr, alias: str | None = None) -> None:
        self._expr = expr
        self._alias = alias

    @property
    def expr(self) -> ex.Expr:
        return self._expr

    @property
    def is_aliased(self) -> bool:
        return self._alias is not None

    @property
    def output_name(self) -> str:
        """The alias, or the name PySpark would give the expression."""
        return self._alias if self._alias is not None else render.output_name(self._expr)

    def __repr__(self) -> str:
        return f"Column<'{self.output_name}'>"

    def __getattr__(self, name: str) -> Column:
        # Only called for missing attributes: PySpark's Column methods sparkwire lacks.
        raise missing_attribute("Column", name, COLUMN)

    def __bool__(self) -> bool:
        raise TypeError(
            "cannot convert a Column to bool: use '&' for 'and', '|' for 'or', '~' for 'not' "
            "and parenthesise comparisons, e.g. (F.col('a') > 1) & (F.col('b') < 2)"
        )

    def _call(self, fn: ex.ScalarFunction, *others: Value) -> Column:
        return Column(ex.Call(fn=fn, args=(self._expr, *(_value(o) for o in others))))

    def _rcall(self, fn: ex.ScalarFunction, other: Value) -> Column:
        return Column(ex.Call(fn=fn, args=(_value(other), self._expr)))

    def __add__(self, other: Value) -> Column:
        return self._call("add", other)

    def __radd__(self, other: Value) -> Column:
        return self._rcall("add", other)

    def __sub__(self, other: Value) -> Column:
        return self._call("sub", other)

    def __rsub__(self, other: Value) -> Column:
        return self._rcall("sub", other)

    def __mul__(self, other: Value) -> Column:
        return self._call("mul", other)

    def __rmul__(self, other: Value) -> Column:
        return self._rcall("mul", other)

    def __truediv__(self, other: Value) -> Column:
        return self._call("div", other)

    def __rtruediv__(self, other: Value) -> Column:
        return self._rcall("div", other)

    def __mod__(self, other: Value) -> Column:
        return self._call("mod", other)

    def __rmod__(self, other: Value) -> Column:
        return self._rcall("mod", other)

    def __neg__(self) -> Column:
        return self._call("neg")

    # Comparisons build expressions, as in PySpark; so Column is unhashable.
    def __eq__(self, other: Value) -> Column:  # type: ignore[override]
        return self._call("eq", other)

    def __ne__(self, other: Value) -> Column:  # type: ignore[override]
        return self._call("ne", other)

    __hash__ = None  # type: ignore[assignment]

    def __lt__(self, other: Value) -> Column:
        return self._call("lt", other)

    def __le__(self, other: Value) -> Column:
        return self._call("le", other)

    def __gt__(self, other: Value) -> Column:
        return self._call("gt", other)

    def __ge__(self, other: Value) -> Column:
        return self._call("ge", other)

    def __and__(self, other: Value) -> Column:
        return self._call("and", other)

    def __rand__(self, other: Value) -> Column:
        return self._rcall("and", other)

    def __or__(self, other: Value) -> Column:
        return self._call("or", other)

    def __ror__(self, other: Value) -> Column:
        return self._rcall("or", other)

    def __invert__(self) -> Column:
        return self._call("not")

    def isNull(self) -> Column:
        return self._call("is_null")

    def isNotNull(self) -> Column:
        return self._call("is_not_null")

    def isin(self, *values: Value | list[Value] | tuple[Value, ...] | set[Value]) -> Column:
        """``isin(1, 2)`` or ``isin([1, 2])``."""
        first = values[0] if len(values) == 1 else None
        items = tuple(first) if isinstance(first, list | tuple | set) else values
        check_in_list(len(items))
        return self._call("in", *items)  # type: ignore[arg-type]

    def like(self, pattern: str) -> Column:
        """SQL LIKE: ``%`` any run of characters, ``_`` one character."""
        return self._call("like", pattern)

    def startswith(self, prefix: str) -> Column:
        return self.like(_escape_like(prefix) + "%")

    def endswith(self, suffix: str) -> Column:
        return self.like("%" + _escape_like(suffix))

    def contains(self, infix: str) -> Column:
        return self.like("%" + _escape_like(infix) + "%")

    def substr(self, start: int, length: int) -> Column:
        return self._call("substring", start, length)

    def between(self, lower: Value, upper: Value) -> Column:
        return self._call("between", lower, upper)

    def cast(self, to: str) -> Column:
        return Column(ex.Cast(expr=self._expr, to=_type_name(to)))

    astype = cast

    def try_cast(self, to: str) -> Column:
        """``cast`` that gives NULL where the value cannot be cast, in ANSI mode too."""
        return Column(ex.Cast(expr=self._expr, to=_type_name(to), safe=True))

    def alias(self, name: str) -> Column:
        try:
            ex.check_identifier(name)
        except ValueError as exc:
            raise AnalysisError(f"invalid column name: {exc}") from None
        return Column(self._expr, name)

    def asc(self) -> SortOrder:
        return SortOrder(self, ascending=True, nulls_first=True)

    def asc_nulls_first(self) -> SortOrder:
        return SortOrder(self, ascending=True, nulls_first=True)

    def asc_nulls_last(self) -> SortOrder:
        return SortOrder(self, ascending=True, nulls_first=False)

    def desc(self) -> SortOrder:
        return SortOrder(self, ascending=False, nulls_first=False)

    def desc_nulls_first(self) -> SortOrder:
        return SortOrder(self, ascending=False, nulls_first=True)

    def desc_nulls_last(self) -> SortOrder:
        return SortOrder(self, ascending=False, nulls_first=False)

    def when(self, condition: Column, value: Value) -> Column:
        case = self._open_case("when")
        branches = (*case.branches, (condition.expr, _value(value)))
        return Column(ex.Case(branches=branches))

    def otherwise(self, value: Value) -> Column:
        case = self._open_case("otherwise")
        return Column(ex.Case(branches=case.branches, otherwise=_value(value)))

    def _open_case(self, method: str) -> ex.Case:
        if isinstance(self._expr, ex.Case) and self._expr.otherwise is None and self._alias is None:
            return self._expr
        raise AnalysisError(f"{method}() can only follow F.when(...) or .when(...)")


@dataclass(frozen=True)
class SortOrder:
    """A column with a direction, for ``orderBy``; defaults follow PySpark (asc: nulls
    first, desc: nulls last)."""

    column: Column
    ascending: bool
    nulls_first: bool

    def key(self) -> ex.SortKey:
        return ex.SortKey(
            expr=self.column.expr, ascending=self.ascending, nulls_first=self.nulls_first
        )


def col(name: str) -> Column:
    try:
        return Column(ex.Column(name=name))
    except ValueError as exc:
        raise AnalysisError(f"invalid column name: {plain_message(exc)}") from None


column = col


def lit(value: Value) -> Column:
    if isinstance(value, Column):
        return value
    return Column(_literal(value))


def to_column(value: ColumnOrName) -> Column:
    """A column given as a Column or as a column name."""
    if isinstance(value, Column):
        return value
    if isinstance(value, str):
        return col(value)
    raise AnalysisError(f"expected a Column or a column name, got {type(value).__name__}")


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
    """1-based, as in Spark."""
    return to_column(c).substr(pos, len)


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


def date_add(start: ColumnOrName, days: int | Column) -> Column:
    return Column(ex.Call(fn="date_add", args=(to_column(start).expr, _value(days))))


def date_sub(start: ColumnOrName, days: int | Column) -> Column:
    return date_add(start, -days)


def add_months(start: ColumnOrName, months: int | Column) -> Column:
    return Column(ex.Call(fn="add_months", args=(to_column(start).expr, _value(months))))


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


def _value(value: Value) -> ex.Expr:
    return value.expr if isinstance(value, Column) else _literal(value)


def _literal(value: Value) -> ex.Lit:
    """Python values as typed literals where JSON alone would lose the type (or the value:
    JSON has no NaN or infinity)."""
    if value is None or isinstance(value, bool | int | str):
        return ex.Lit(value=value)
    if isinstance(value, float):
        if math.isfinite(value):
            return ex.Lit(value=value)
        return ex.Lit(value=str(value), type="float64")
    if isinstance(value, decimal.Decimal):
        return ex.Lit(value=format(value, "f"), type=_decimal_type(value))
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return ex.Lit(value=value.isoformat(sep=" "), type="timestamp")
    if isinstance(value, dt.date):
        return ex.Lit(value=value.isoformat(), type="date")
    raise AnalysisError(f"unsupported literal {value!r} of type {type(value).__name__}")


def _decimal_type(value: decimal.Decimal) -> str:
    if not value.is_finite():
        raise AnalysisError(f"decimal literal {value} is not finite")
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    scale = builtins.max(0, -exponent)
    precision = builtins.max(len(digits) + builtins.max(0, exponent), scale, 1)
    if precision > 38:
        raise AnalysisError(f"decimal literal {value} needs more than 38 digits")
    return f"decimal({precision},{scale})"


def _type_name(name: str) -> str:
    """PySpark type names (``int``, ``long``, ``decimal(10, 2)`` ...) or planner ones."""
    normal = re.sub(r"\s+", "", name.lower())
    normal = _SPARK_TYPES.get(normal, normal)
    try:
        return ex.check_type_name(normal)
    except ValueError as exc:
        raise AnalysisError(f"cannot cast to {name!r}: {exc}") from None


def _escape_like(text: str) -> str:
    if "%" in text or "_" in text or "\\" in text:
        raise AnalysisError(f"{text!r} holds a LIKE wildcard; use like() with an explicit pattern")
    return text


def __getattr__(name: str) -> object:
    """``F.<name>`` for a PySpark function sparkwire lacks says so (PEP 562)."""
    raise missing_attribute("functions", name, FUNCTIONS)
