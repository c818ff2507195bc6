"""PySpark's window functions (``F.row_number().over(w)``), re-exported by
``planner.api.functions``; built in ``planner.logical.functions.windows`` (ranking, offsets)
and ``aggregates`` (``first``/``last``, which also run over a window).

As in PySpark, ``lag``/``lead`` take their ``default`` as a value: a column is refused
(Spark SQL's ``lag(x, 1, y)`` may name one).
"""

from __future__ import annotations

from typing import Literal

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api.column import Column, ColumnOrName, Value, _value, lit, to_column
from sparkwire.planner.api.functions.core import call

__all__ = [
    "cume_dist", "dense_rank", "first", "lag", "last", "lead", "nth_value", "ntile", "percent_rank",
    "rank", "row_number", "counter_diff",
]


def row_number() -> Column:
    return call("row_number")


def rank() -> Column:
    return call("rank")


def dense_rank() -> Column:
    return call("dense_rank")


def percent_rank() -> Column:
    return call("percent_rank")


def cume_dist() -> Column:
    return call("cume_dist")


def ntile(n: int) -> Column:
    return call("ntile", lit(n).expr)


def lag(col: ColumnOrName, offset: int = 1, default: Value = None) -> Column:
    """The value ``offset`` rows before (a negative offset: after), else ``default``."""
    return _offset("lag", col, offset, default)


def lead(col: ColumnOrName, offset: int = 1, default: Value = None) -> Column:
    """The value ``offset`` rows after (a negative offset: before), else ``default``."""
    return _offset("lead", col, offset, default)


def _offset(fn: Literal["lag", "lead"], col: ColumnOrName, offset: int, default: Value) -> Column:
    fallback = () if default is None else (_value(default),)
    built = call(fn, to_column(col).expr, lit(offset).expr, *fallback)
    function = built.expr
    assert isinstance(function, ex.WindowCall)
    if function.default is not None and not isinstance(function.default, ex.Lit):
        raise AnalysisError(f"{function.fn}'s default must be a literal value, got a column")
    return built


def nth_value(col: ColumnOrName, offset: int, ignoreNulls: bool | None = False) -> Column:
    """The value of the window frame's ``offset``-th row (from 1), NULLs skipped with
    ``ignoreNulls``."""
    return call("nth_value", to_column(col).expr, ex.Lit(value=offset),
                ex.Lit(value=bool(ignoreNulls)))


def first(col: ColumnOrName, ignorenulls: bool = False) -> Column:
    """The first value (of a group: any row's, as Spark does not order a group; of a
    window frame: the first row's), NULLs skipped with ``ignorenulls``."""
    return call("first", to_column(col).expr, lit(ignorenulls).expr)


def last(col: ColumnOrName, ignorenulls: bool = False) -> Column:
    """The last value; see ``first``."""
    return call("last", to_column(col).expr, lit(ignorenulls).expr)


def counter_diff(value: ColumnOrName, startTime: ColumnOrName | None = None) -> Column:  # noqa: N803
    """The change of a cumulative counter since the previous row of an ordered window, NULL
    at a reset (``planner.logical.counter_diffs``)."""
    start = () if startTime is None else (to_column(startTime).expr,)
    return call("counter_diff", to_column(value).expr, *start)
