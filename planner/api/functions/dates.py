"""Date and time functions of ``pyspark.sql.functions``, re-exported by
``planner.api.functions``; built, and their semantics written down, in
``planner.logical.functions.dates``. As in PySpark, the zone of ``from_utc_timestamp``/
``to_utc_timestamp`` given as a ``str`` is a zone name, not a column name."""

from __future__ import annotations

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.api.column import Column, ColumnOrName, lit, to_column
from sparkwire.planner.api.functions.core import call

__all__ = [
    "current_date", "current_timestamp", "current_timezone", "date_format", "date_trunc",
    "datediff", "dayofweek", "dayofyear", "from_unixtime", "from_utc_timestamp", "hour",
    "last_day", "minute", "months_between", "next_day", "quarter", "second", "to_date",
    "to_timestamp", "to_timestamp_ltz", "to_timestamp_ntz", "to_utc_timestamp", "trunc",
    "unix_timestamp", "weekofyear",
]

#: Spark's default pattern of ``unix_timestamp`` and ``from_unixtime`` (PySpark's signatures).
_SECONDS_PATTERN = "yyyy-MM-dd HH:mm:ss"


def current_date() -> Column:
    return call("current_date")


def current_timezone() -> Column:
    return call("current_timezone")


def current_timestamp() -> Column:
    return call("current_timestamp")


def datediff(end: ColumnOrName, start: ColumnOrName) -> Column:
    return call("datediff", to_column(end).expr, to_column(start).expr)


def months_between(date1: ColumnOrName, date2: ColumnOrName, roundOff: bool = True) -> Column:  # noqa: N803
    return call(
        "months_between", to_column(date1).expr, to_column(date2).expr, lit(roundOff).expr
    )


def date_format(date: ColumnOrName, format: str) -> Column:  # noqa: A002
    return call("date_format", to_column(date).expr, lit(format).expr)


def to_date(col: ColumnOrName, format: str | None = None) -> Column:  # noqa: A002
    return _parse("to_date", col, format)


def to_timestamp(col: ColumnOrName, format: str | None = None) -> Column:  # noqa: A002
    return _parse("to_timestamp", col, format)


def to_timestamp_ltz(timestamp: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """``format`` may be a Column, which must be a literal, as PySpark's may."""
    return _parse("to_timestamp_ltz", timestamp, format)


def to_timestamp_ntz(timestamp: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    return _parse("to_timestamp_ntz", timestamp, format)


def unix_timestamp(timestamp: ColumnOrName | None = None,
                   format: str = _SECONDS_PATTERN) -> Column:  # noqa: A002
    if timestamp is None:
        return call("unix_timestamp")
    return call("unix_timestamp", to_column(timestamp).expr, lit(format).expr)


def from_unixtime(timestamp: ColumnOrName, format: str = _SECONDS_PATTERN) -> Column:  # noqa: A002
    return call("from_unixtime", to_column(timestamp).expr, lit(format).expr)


def from_utc_timestamp(timestamp: ColumnOrName, tz: ColumnOrName) -> Column:
    return call("from_utc_timestamp", to_column(timestamp).expr, _zone(tz))


def to_utc_timestamp(timestamp: ColumnOrName, tz: ColumnOrName) -> Column:
    return call("to_utc_timestamp", to_column(timestamp).expr, _zone(tz))


def date_trunc(format: str, timestamp: ColumnOrName) -> Column:  # noqa: A002
    return call("date_trunc", lit(format).expr, to_column(timestamp).expr)


def trunc(date: ColumnOrName, format: str) -> Column:  # noqa: A002
    return call("trunc", to_column(date).expr, lit(format).expr)


def hour(col: ColumnOrName) -> Column:
    return call("hour", to_column(col).expr)


def minute(col: ColumnOrName) -> Column:
    return call("minute", to_column(col).expr)


def second(col: ColumnOrName) -> Column:
    return call("second", to_column(col).expr)


def dayofweek(col: ColumnOrName) -> Column:
    return call("dayofweek", to_column(col).expr)


def dayofyear(col: ColumnOrName) -> Column:
    return call("dayofyear", to_column(col).expr)


def weekofyear(col: ColumnOrName) -> Column:
    return call("weekofyear", to_column(col).expr)


def quarter(col: ColumnOrName) -> Column:
    return call("quarter", to_column(col).expr)


def last_day(date: ColumnOrName) -> Column:
    return call("last_day", to_column(date).expr)


def next_day(date: ColumnOrName, dayOfWeek: str) -> Column:  # noqa: N803
    return call("next_day", to_column(date).expr, lit(dayOfWeek).expr)


def _zone(tz: ColumnOrName) -> ex.Expr:
    """A ``str`` is a zone name, as in PySpark (not a column name); a Column must be a
    literal (``planner.logical.literal_args``)."""
    return lit(tz).expr if isinstance(tz, str) else to_column(tz).expr


def _parse(fn: str, col: ColumnOrName, format: ColumnOrName | None) -> Column:  # noqa: A002
    """``fn(col[, format])``: a ``str`` format is a pattern, not a column name."""
    args = (to_column(col).expr,) if format is None else (to_column(col).expr, lit(format).expr)
    return call(fn, *args)
