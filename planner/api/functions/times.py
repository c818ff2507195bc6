"""The TIME functions of ``pyspark.sql.functions`` (``make_time``, ``to_time``, ``time_*`` ...),
re-exported by ``planner.api.functions``; built, and what is refused written down, in
``planner.logical.functions.times``."""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName, lit, to_column
from sparkwire.planner.api.functions.core import call

__all__ = ["current_time", "make_time", "time_diff", "time_from_micros", "time_from_millis",
           "time_from_seconds", "time_to_micros", "time_to_millis", "time_to_seconds", "time_trunc",
           "to_time", "try_to_time"]


def make_time(hour: ColumnOrName, minute: ColumnOrName, second: ColumnOrName) -> Column:
    return call("make_time", *(to_column(c).expr for c in (hour, minute, second)))


def to_time(str: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002 - PySpark's names
    return _parsed("to_time", str, format)


def try_to_time(str: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002 - PySpark's names
    return _parsed("try_to_time", str, format)


def _parsed(fn: str, text: ColumnOrName, format: ColumnOrName | None) -> Column:  # noqa: A002
    formats = () if format is None else (to_column(format).expr,)
    return call(fn, to_column(text).expr, *formats)


def current_time(precision: int | None = None) -> Column:
    return call("current_time", *(() if precision is None else (lit(precision).expr,)))


def time_diff(unit: ColumnOrName, start: ColumnOrName, end: ColumnOrName) -> Column:
    return call("time_diff", *(to_column(c).expr for c in (unit, start, end)))


def time_trunc(unit: ColumnOrName, time: ColumnOrName) -> Column:
    return call("time_trunc", to_column(unit).expr, to_column(time).expr)


def time_to_micros(col: ColumnOrName) -> Column:
    return call("time_to_micros", to_column(col).expr)


def time_to_millis(col: ColumnOrName) -> Column:
    return call("time_to_millis", to_column(col).expr)


def time_to_seconds(col: ColumnOrName) -> Column:
    return call("time_to_seconds", to_column(col).expr)


def time_from_micros(col: ColumnOrName) -> Column:
    return call("time_from_micros", to_column(col).expr)


def time_from_millis(col: ColumnOrName) -> Column:
    return call("time_from_millis", to_column(col).expr)


def time_from_seconds(col: ColumnOrName) -> Column:
    return call("time_from_seconds", to_column(col).expr)
