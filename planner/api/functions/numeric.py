"""Math functions of ``pyspark.sql.functions``, re-exported by ``planner.api.functions``.

Spark's semantics, kept by the worker's builders (``coordinator.worker.math``):

- ``round`` rounds HALF_UP and ``bround`` HALF_EVEN, both on the decimal the double
  prints as (Spark's ``BigDecimal(d)``: ``round(2.675, 2)`` is 2.68, where rounding the
  binary value gives 2.67); NaN and infinities stay; integers and decimals keep their type
  (a decimal's scale shrinks to the one asked for);
- ``floor``/``ceil`` of a double or an integer are ``bigint``, of ``decimal(p,s)``
  ``decimal(p-s+1,0)``; of NaN or an infinity they fail the query (the cast to bigint),
  where Spark gives 0 or the bigint's bounds;
- ``log``/``ln``/``log10``/``log2`` of a value <= 0 are NULL (and ``log1p`` of one <= -1),
  where DuckDB gives -inf or NaN; ``log(base, x)`` is ``ln(x)/ln(base)``, NULL for a base <= 0;
- ``sqrt`` of a negative is NaN; ``signum`` is a double, NaN for NaN;
- ``greatest``/``least`` skip NULLs (NULL only when all are) and take the common type;
- ``pmod`` is the remainder made non-negative for a positive divisor, with Java's ``%``
  (the sign of the dividend) underneath, so a negative divisor gives what Spark gives.
"""

from __future__ import annotations

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api.functions import (
    Column,
    ColumnOrName,
    _number_or_column,
    checked_call,
    lit,
    to_column,
)

__all__ = [
    "bround", "ceil", "ceiling", "exp", "floor", "greatest", "least", "ln", "log", "log10",
    "log1p", "log2", "pmod", "pow", "power", "round", "signum", "sqrt",
]

NumberOrColumn = ColumnOrName | float | int


def round(col: ColumnOrName, scale: int = 0) -> Column:  # noqa: A001 - PySpark's name
    return checked_call("round", to_column(col).expr, lit(scale).expr)


def bround(col: ColumnOrName, scale: int = 0) -> Column:
    return checked_call("bround", to_column(col).expr, lit(scale).expr)


def floor(col: ColumnOrName, scale: int | None = None) -> Column:
    return _to_integral("floor", col, scale)


def ceil(col: ColumnOrName, scale: int | None = None) -> Column:
    return _to_integral("ceil", col, scale)


def ceiling(col: ColumnOrName, scale: int | None = None) -> Column:
    return _to_integral("ceiling", col, scale)


def sqrt(col: ColumnOrName) -> Column:
    return checked_call("sqrt", to_column(col).expr)


def pow(col1: NumberOrColumn, col2: NumberOrColumn) -> Column:  # noqa: A001 - PySpark's name
    return checked_call("pow", _number_or_column(col1), _number_or_column(col2))


power = pow


def log(arg1: ColumnOrName | float, arg2: ColumnOrName | None = None) -> Column:
    """``log(x)`` is the natural logarithm (named ``ln(x)``, as PySpark names it);
    ``log(base, x)`` the logarithm to ``base``."""
    if arg2 is None:
        if not isinstance(arg1, Column | str):
            raise AnalysisError("log(x) takes a column; log(base, x) a number and a column")
        return ln(arg1)
    return checked_call("log", lit(arg1).expr, to_column(arg2).expr)


def ln(col: ColumnOrName) -> Column:
    return checked_call("ln", to_column(col).expr)


def log10(col: ColumnOrName) -> Column:
    return checked_call("log10", to_column(col).expr)


def log2(col: ColumnOrName) -> Column:
    return checked_call("log2", to_column(col).expr)


def log1p(col: ColumnOrName) -> Column:
    return checked_call("log1p", to_column(col).expr)


def exp(col: ColumnOrName) -> Column:
    return checked_call("exp", to_column(col).expr)


def signum(col: ColumnOrName) -> Column:
    return checked_call("signum", to_column(col).expr)


def greatest(*cols: ColumnOrName) -> Column:
    return _extreme("greatest", cols)


def least(*cols: ColumnOrName) -> Column:
    return _extreme("least", cols)


def pmod(dividend: NumberOrColumn, divisor: NumberOrColumn) -> Column:
    return checked_call("pmod", _number_or_column(dividend), _number_or_column(divisor))


def _to_integral(fn: ex.ScalarFunction, col: ColumnOrName, scale: int | None) -> Column:
    if scale is not None:
        raise AnalysisError(f"{fn} with a scale is not supported by sparkwire; use round")
    return checked_call(fn, to_column(col).expr)


def _extreme(fn: ex.ScalarFunction, cols: tuple[ColumnOrName, ...]) -> Column:
    if len(cols) < 2:
        raise AnalysisError(f"{fn} needs at least two columns")
    return checked_call(fn, *(to_column(c).expr for c in cols))
