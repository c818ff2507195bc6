"""The NULL functions and ``try_`` arithmetic of ``pyspark.sql.functions``, re-exported by
``planner.api.functions``; built, and their semantics written down, in
``planner.logical.functions.nulls``."""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName, to_column
from sparkwire.planner.api.functions.core import call

__all__ = [
    "equal_null", "ifnull", "isnotnull", "isnull", "nullif", "nullifzero", "nvl", "nvl2",
    "try_add", "try_divide", "try_mod", "try_multiply", "try_subtract", "zeroifnull",
]


def _of(name: str, *cols: ColumnOrName) -> Column:
    return call(name, *(to_column(c).expr for c in cols))


def nvl(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    return _of("nvl", col1, col2)


def ifnull(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    return _of("ifnull", col1, col2)


def nvl2(col1: ColumnOrName, col2: ColumnOrName, col3: ColumnOrName) -> Column:
    return _of("nvl2", col1, col2, col3)


def nullif(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    return _of("nullif", col1, col2)


def equal_null(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    return _of("equal_null", col1, col2)


def nullifzero(col: ColumnOrName) -> Column:
    return _of("nullifzero", col)


def zeroifnull(col: ColumnOrName) -> Column:
    return _of("zeroifnull", col)


def isnull(col: ColumnOrName) -> Column:
    return _of("isnull", col)


def isnotnull(col: ColumnOrName) -> Column:
    return _of("isnotnull", col)


def try_add(left: ColumnOrName, right: ColumnOrName) -> Column:
    return _of("try_add", left, right)


def try_subtract(left: ColumnOrName, right: ColumnOrName) -> Column:
    return _of("try_subtract", left, right)


def try_multiply(left: ColumnOrName, right: ColumnOrName) -> Column:
    return _of("try_multiply", left, right)


def try_divide(left: ColumnOrName, right: ColumnOrName) -> Column:
    return _of("try_divide", left, right)


def try_mod(left: ColumnOrName, right: ColumnOrName) -> Column:
    return _of("try_mod", left, right)
