"""Date and time functions of ``pyspark.sql.functions``, re-exported by ``planner.functions``.

The session time zone is UTC: timestamps are naive UTC instants, as ``createDataFrame``
and Parquet deliver them, and Spark compares with ``spark.sql.session.timeZone=UTC``.
Spark's semantics, kept by the worker's builders (``coordinator.worker.dates``):

- ``current_date()``/``current_timestamp()`` are one value for the whole query, taken
  when the column is built (Spark takes it when the query starts), so every worker and
  every row sees the same instant;
- ``datediff(end, start)`` is ``end - start`` in days, times dropped;
- ``months_between(a, b)`` counts whole months when both days are the same day of the
  month or both are month ends, else adds the difference of day and time over a 31-day
  month; rounded to 8 digits unless ``roundOff=False``;
- ``dayofweek`` is 1 for Sunday to 7 for Saturday; ``weekofyear`` is the ISO week;
  ``hour``/``minute``/``second`` of a date are 0; ``second`` drops fractions;
- ``date_format``/``to_date``/``to_timestamp`` take Spark's pattern letters, translated
  or refused by ``planner.datetime_patterns``; an unparsable string is an error (Spark's
  ANSI mode); without a pattern they are casts;
- ``trunc(date, unit)`` gives a date, ``date_trunc(unit, ts)`` a timestamp; ``next_day``
  the first later date on the named weekday; ``last_day`` the month's last day;
- ``date_add``/``date_sub``/``add_months`` (``planner.functions``) clamp to the month's
  end: ``add_months(2020-01-31, 1)`` is 2020-02-29.
"""

from __future__ import annotations

import datetime as dt

from sparkwire.planner import expressions as ex
from sparkwire.planner.functions import Column, ColumnOrName, checked_call, lit, to_column

__all__ = [
    "current_date", "current_timestamp", "date_format", "date_trunc", "datediff", "dayofweek",
    "dayofyear", "hour", "last_day", "minute", "months_between", "next_day", "quarter",
    "second", "to_date", "to_timestamp", "trunc", "weekofyear",
]


def current_date() -> Column:
    today = dt.datetime.now(dt.timezone.utc).date()
    return checked_call("current_date", lit(today).expr)


def current_timestamp() -> Column:
    now = dt.datetime.now(dt.timezone.utc)
    return checked_call("current_timestamp", lit(now).expr)


def datediff(end: ColumnOrName, start: ColumnOrName) -> Column:
    return checked_call("datediff", to_column(end).expr, to_column(start).expr)


def months_between(date1: ColumnOrName, date2: ColumnOrName, roundOff: bool = True) -> Column:  # noqa: N803
    return checked_call(
        "months_between", to_column(date1).expr, to_column(date2).expr, lit(roundOff).expr
    )


def date_format(date: ColumnOrName, format: str) -> Column:  # noqa: A002
    return checked_call("date_format", to_column(date).expr, lit(format).expr)


def to_date(col: ColumnOrName, format: str | None = None) -> Column:  # noqa: A002
    return _parse("to_date", col, format)


def to_timestamp(col: ColumnOrName, format: str | None = None) -> Column:  # noqa: A002
    return _parse("to_timestamp", col, format)


def date_trunc(format: str, timestamp: ColumnOrName) -> Column:  # noqa: A002
    return checked_call("date_trunc", lit(format).expr, to_column(timestamp).expr)


def trunc(date: ColumnOrName, format: str) -> Column:  # noqa: A002
    return checked_call("trunc_date", to_column(date).expr, lit(format).expr)


def hour(col: ColumnOrName) -> Column:
    return checked_call("hour", to_column(col).expr)


def minute(col: ColumnOrName) -> Column:
    return checked_call("minute", to_column(col).expr)


def second(col: ColumnOrName) -> Column:
    return checked_call("second", to_column(col).expr)


def dayofweek(col: ColumnOrName) -> Column:
    return checked_call("dayofweek", to_column(col).expr)


def dayofyear(col: ColumnOrName) -> Column:
    return checked_call("dayofyear", to_column(col).expr)


def weekofyear(col: ColumnOrName) -> Column:
    return checked_call("weekofyear", to_column(col).expr)


def quarter(col: ColumnOrName) -> Column:
    return checked_call("quarter", to_column(col).expr)


def last_day(date: ColumnOrName) -> Column:
    return checked_call("last_day", to_column(date).expr)


def next_day(date: ColumnOrName, dayOfWeek: str) -> Column:  # noqa: N803
    return checked_call("next_day", to_column(date).expr, lit(dayOfWeek).expr)


def _parse(fn: ex.ScalarFunction, col: ColumnOrName, format: str | None) -> Column:  # noqa: A002
    args = (to_column(col).expr,) if format is None else (to_column(col).expr, lit(format).expr)
    return checked_call(fn, *args)
