"""Date and time functions of ``pyspark.sql.functions``, re-exported by ``planner.api.functions``.

A ``timestamp`` is an instant and ``timestamp_ntz`` a wall clock (``planner.spark.timezones``);
functions read an instant in the session time zone (``time_zone``, Spark's
``spark.sql.session.timeZone``), the analyzer casting operands as Spark does
(``planner.logical.local_time``). Spark's semantics, kept by the worker's builders
(``coordinator.worker.calls_dates``):

- ``current_date()``/``current_timestamp()`` are one value for the whole query, taken
  when the column is built (Spark takes it when the query starts), so every worker and
  every row sees the same instant; ``current_date`` is its date in the session zone;
- ``to_timestamp``/``to_timestamp_ltz`` make instants (a parsed wall clock in the session
  zone), ``to_timestamp_ntz`` wall clocks; ``unix_timestamp`` counts seconds of an instant
  (a string parsed with ``yyyy-MM-dd HH:mm:ss`` by default), ``from_unixtime`` formats
  one in the session zone; ``from_utc_timestamp``/``to_utc_timestamp`` shift by a named
  zone (a literal) and never read the session's; ``current_timezone()`` is the session's;
- ``datediff(end, start)`` is ``end - start`` in days, times dropped;
- ``months_between(a, b)`` counts whole months when both days are the same day of the
  month or both are month ends, else adds the difference of day and time over a 31-day
  month, the time being the seconds elapsed since local midnight (a DST day's hours as
  they passed); rounded to 8 digits unless ``roundOff=False``;
- ``dayofweek`` is 1 for Sunday to 7 for Saturday; ``weekofyear`` is the ISO week;
  ``hour``/``minute``/``second`` of a date are 0; ``second`` drops fractions;
- ``date_format``/``to_date``/``to_timestamp`` take Spark's pattern letters, translated
  or refused by ``planner.spark.datetime_patterns``; an unparsable string is an error (Spark's
  ANSI mode); without a pattern they are casts;
- ``trunc(date, unit)`` gives a date, ``date_trunc(unit, ts)`` a timestamp: the local
  wall clock truncated, at the instant's own offset where it still holds for units up to
  a day (so 01:30 standard time on a fall-back night truncates to 01:00 standard time, as
  Java's ``ZonedDateTime.truncatedTo``); ``next_day``
  the first later date on the named weekday; ``last_day`` the month's last day;
- ``date_add``/``date_sub``/``add_months`` (``planner.api.functions``) clamp to the month's
  end: ``add_months(2020-01-31, 1)`` is 2020-02-29.
"""

from __future__ import annotations

import datetime as dt

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api.functions import Column, ColumnOrName, checked_call, lit, to_column

__all__ = [
    "current_date", "current_timestamp", "current_timezone", "date_format", "date_trunc",
    "datediff", "dayofweek", "dayofyear", "from_unixtime", "from_utc_timestamp", "hour",
    "last_day", "minute", "months_between", "next_day", "quarter", "second", "to_date",
    "to_timestamp", "to_timestamp_ltz", "to_timestamp_ntz", "to_utc_timestamp", "trunc",
    "unix_timestamp", "weekofyear",
]

#: Spark's default pattern of ``unix_timestamp`` and ``from_unixtime``.
_SECONDS_PATTERN = "yyyy-MM-dd HH:mm:ss"


def current_date() -> Column:
    now = dt.datetime.now(dt.timezone.utc)
    return checked_call("current_date", lit(now).expr)


def current_timezone() -> Column:
    return checked_call("current_timezone")


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


def to_timestamp_ltz(timestamp: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    return _parse("to_timestamp_ltz", timestamp, _pattern(format))


def to_timestamp_ntz(timestamp: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    return _parse("to_timestamp_ntz", timestamp, _pattern(format))


def unix_timestamp(timestamp: ColumnOrName | None = None,
                   format: str = _SECONDS_PATTERN) -> Column:  # noqa: A002
    if timestamp is None:
        return checked_call("unix_timestamp", current_timestamp().expr)
    return checked_call("unix_timestamp", to_column(timestamp).expr, lit(format).expr)


def from_unixtime(timestamp: ColumnOrName, format: str = _SECONDS_PATTERN) -> Column:  # noqa: A002
    return checked_call("from_unixtime", to_column(timestamp).expr, lit(format).expr)


def from_utc_timestamp(timestamp: ColumnOrName, tz: ColumnOrName) -> Column:
    return checked_call("from_utc_timestamp", to_column(timestamp).expr, _zone(tz))


def to_utc_timestamp(timestamp: ColumnOrName, tz: ColumnOrName) -> Column:
    return checked_call("to_utc_timestamp", to_column(timestamp).expr, _zone(tz))


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


def _pattern(format: ColumnOrName | None) -> str | None:  # noqa: A002
    """PySpark's ``format`` of ``to_timestamp_ltz``/``_ntz`` may be a Column; sparkwire
    takes a literal pattern only (``lit("...")`` included)."""
    if format is None or isinstance(format, str):
        return format
    expr = to_column(format).expr
    if isinstance(expr, ex.Lit) and isinstance(expr.value, str):
        return expr.value
    raise AnalysisError("a datetime pattern that is not a literal is not supported by sparkwire")


def _zone(tz: ColumnOrName) -> ex.Expr:
    """The zone of ``from_utc_timestamp``/``to_utc_timestamp``: a string is a zone name, as
    in PySpark (not a column name); a Column must be a literal (``planner.logical.literal_args``)."""
    return lit(tz).expr if isinstance(tz, str) else to_column(tz).expr


def _parse(fn: ex.ScalarFunction, col: ColumnOrName, format: str | None) -> Column:  # noqa: A002
    args = (to_column(col).expr,) if format is None else (to_column(col).expr, lit(format).expr)
    return checked_call(fn, *args)
