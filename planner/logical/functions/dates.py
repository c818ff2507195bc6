"""Date and time functions of the registry.

A ``timestamp`` is an instant and ``timestamp_ntz`` a wall clock (``planner.spark.timezones``);
functions read an instant in the session time zone (``time_zone``, Spark's
``spark.sql.session.timeZone``), the analyzer casting operands as Spark does
(``planner.logical.local_time``). Spark's semantics, kept by the worker's builders
(``coordinator.worker.calls_dates``):

- ``current_date()``/``current_timestamp()`` are one value for the whole query, taken
  when the call is built (Spark takes it when the query starts), so every worker and
  every row sees the same instant; ``current_date`` is its date in the session zone;
- ``to_timestamp``/``to_timestamp_ltz`` make instants (a parsed wall clock in the session
  zone), ``to_timestamp_ntz`` wall clocks; ``unix_timestamp`` counts seconds of an instant
  (a string parsed with ``yyyy-MM-dd HH:mm:ss`` by default; without an argument, of
  ``current_timestamp()``), ``from_unixtime`` formats one in the session zone;
  ``from_utc_timestamp``/``to_utc_timestamp`` shift by a named zone (a literal) and never
  read the session's; ``current_timezone()`` is the session's;
- ``datediff(end, start)`` is ``end - start`` in days, times dropped;
- ``months_between(a, b)`` counts whole months when both days are the same day of the
  month or both are month ends, else adds the difference of day and time over a 31-day
  month, the time being the seconds elapsed since local midnight (a DST day's hours as
  they passed); rounded to 8 digits unless ``roundOff`` is false;
- ``dayofweek`` is 1 for Sunday to 7 for Saturday; ``weekofyear`` is the ISO week;
  ``hour``/``minute``/``second`` of a date are 0; ``second`` drops fractions;
- ``date_format``/``to_date``/``to_timestamp`` take Spark's pattern letters, translated
  or refused by ``planner.spark.datetime_patterns``; an unparsable string is an error (Spark's
  ANSI mode); without a pattern they are casts; ``try_to_date``/``try_to_timestamp`` give
  NULL where these fail (a string cast without a pattern, one that does not parse with it);
- ``trunc(date, unit)`` gives a date, ``date_trunc(unit, ts)`` a timestamp: the local
  wall clock truncated, at the instant's own offset where it still holds for units up to
  a day (so 01:30 standard time on a fall-back night truncates to 01:00 standard time, as
  Java's ``ZonedDateTime.truncatedTo``); ``next_day``
  the first later date on the named weekday; ``last_day`` the month's last day;
- ``date_add``/``date_sub``/``add_months`` clamp to the month's end:
  ``add_months(2020-01-31, 1)`` is 2020-02-29.
"""

from __future__ import annotations

import datetime as dt

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Expr, Lit, ScalarFunction
from sparkwire.planner.logical.functions.base import Function, checked_call, plain
from sparkwire.planner.logical.literals import literal

#: Spark's default pattern of ``unix_timestamp`` and ``from_unixtime``.
_SECONDS_PATTERN = Lit(value="yyyy-MM-dd HH:mm:ss")
_ROUNDED = Lit(value=True)


def current_date() -> Expr:
    return checked_call("current_date", literal(dt.datetime.now(dt.timezone.utc)))


def current_timestamp() -> Expr:
    return checked_call("current_timestamp", literal(dt.datetime.now(dt.timezone.utc)))


def months_between(date1: Expr, date2: Expr, round_off: Expr = _ROUNDED) -> Expr:
    return checked_call("months_between", date1, date2, round_off)


def unix_timestamp(timestamp: Expr | None = None, format: Expr = _SECONDS_PATTERN) -> Expr:  # noqa: A002
    if timestamp is None:
        return checked_call("unix_timestamp", current_timestamp())
    return checked_call("unix_timestamp", timestamp, format)


def from_unixtime(seconds: Expr, format: Expr = _SECONDS_PATTERN) -> Expr:  # noqa: A002
    return checked_call("from_unixtime", seconds, format)


def _parsing(fn: ScalarFunction, literal_only: bool = False) -> Function:
    """``fn(x[, pattern])``; ``literal_only``: a pattern that is no literal is refused by
    name (the ``to_timestamp_ltz``/``_ntz`` of PySpark take a Column pattern)."""

    def build(value: Expr, pattern: Expr | None = None) -> Expr:
        if pattern is None:
            return checked_call(fn, value)
        if literal_only:
            if not (isinstance(pattern, Lit) and isinstance(pattern.value, str)):
                raise AnalysisError("a datetime pattern that is not a literal is not supported by sparkwire")
            pattern = Lit(value=pattern.value)
        return checked_call(fn, value, pattern)

    return Function(fn, build, 1, 2)


FUNCTIONS = (
    *(plain(name) for name in ("year", "month", "hour", "minute", "second", "dayofweek",
                               "dayofyear", "weekofyear", "quarter", "last_day")),
    *(plain(name, 2) for name in ("date_add", "date_sub", "add_months", "datediff", "date_format",
                                  "next_day", "from_utc_timestamp", "to_utc_timestamp", "date_trunc")),
    plain("trunc", 2, fn="trunc_date"),
    plain("current_timezone", 0),
    Function.of("current_date", current_date),
    Function.of("current_timestamp", current_timestamp),
    Function.of("months_between", months_between),
    Function.of("unix_timestamp", unix_timestamp),
    Function.of("from_unixtime", from_unixtime),
    _parsing("to_date"),
    _parsing("to_timestamp"),
    _parsing("to_timestamp_ltz", literal_only=True),
    _parsing("to_timestamp_ntz", literal_only=True),
    _parsing("try_to_date", literal_only=True),
    _parsing("try_to_timestamp", literal_only=True),
)
