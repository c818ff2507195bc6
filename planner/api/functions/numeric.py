"""Math functions of ``pyspark.sql.functions``, re-exported by ``planner.api.functions``;
built, and their semantics written down, in ``planner.logical.functions.numeric``."""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api.column import Column, ColumnOrName, lit, to_column
from sparkwire.planner.api.functions.core import call, exprs, number_or_column

__all__ = [
    "bround", "ceil", "ceiling", "exp", "floor", "greatest", "least", "ln", "log", "log10",
    "log1p", "log2", "pmod", "pow", "power", "round", "signum", "sqrt",
]

NumberOrColumn = ColumnOrName | float | int


def round(col: ColumnOrName, scale: int = 0) -> Column:  # noqa: A001 - PySpark's name
    return call("round", to_column(col).expr, lit(scale).expr)


def bround(col: ColumnOrName, scale: int = 0) -> Column:
    return call("bround", to_column(col).expr, lit(scale).expr)


def floor(col: ColumnOrName, scale: int | None = None) -> Column:
    return _integral("floor", col, scale)


def ceil(col: ColumnOrName, scale: int | None = None) -> Column:
    return _integral("ceil", col, scale)


def ceiling(col: ColumnOrName, scale: int | None = None) -> Column:
    return _integral("ceiling", col, scale)


def sqrt(col: ColumnOrName) -> Column:
    return call("sqrt", to_column(col).expr)


def pow(col1: NumberOrColumn, col2: NumberOrColumn) -> Column:  # noqa: A001 - PySpark's name
    return call("pow", number_or_column(col1), number_or_column(col2))


power = pow


def log(arg1: ColumnOrName | float, arg2: ColumnOrName | None = None) -> Column:
    """``log(x)`` is the natural logarithm (named ``ln(x)``, as PySpark names it);
    ``log(base, x)`` the logarithm to ``base``."""
    if arg2 is None:
        if not isinstance(arg1, Column | str):
            raise AnalysisError("log(x) takes a column; log(base, x) a number and a column")
        return call("log", to_column(arg1).expr)
    return call("log", lit(arg1).expr, to_column(arg2).expr)


def ln(col: ColumnOrName) -> Column:
    return call("ln", to_column(col).expr)


def log10(col: ColumnOrName) -> Column:
    return call("log10", to_column(col).expr)


def log2(col: ColumnOrName) -> Column:
    return call("log2", to_column(col).expr)


def log1p(col: ColumnOrName) -> Column:
    return call("log1p", to_column(col).expr)


def exp(col: ColumnOrName) -> Column:
    return call("exp", to_column(col).expr)


def signum(col: ColumnOrName) -> Column:
    return call("signum", to_column(col).expr)


def greatest(*cols: ColumnOrName) -> Column:
    return call("greatest", *exprs(cols))


def least(*cols: ColumnOrName) -> Column:
    return call("least", *exprs(cols))


def pmod(dividend: NumberOrColumn, divisor: NumberOrColumn) -> Column:
    return call("pmod", number_or_column(dividend), number_or_column(divisor))


def _integral(fn: str, col: ColumnOrName, scale: int | None) -> Column:
    scaled = () if scale is None else (lit(scale).expr,)
    return call(fn, to_column(col).expr, *scaled)
