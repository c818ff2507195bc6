"""The later date and time functions of the registry: fields of a date, epochs, ``make_*``
and Spark's aliases. The rules of time zones are those of ``planner.logical.functions.dates``
(an instant is read in the session zone); built by the worker's
``coordinator.worker.compile.calls_calendar``. Spark's semantics:

- ``day`` is ``dayofmonth`` under its own name; ``weekday`` counts from 0 on Monday;
  ``dayname``/``monthname`` are English three-letter abbreviations (``Sat``, ``Feb``);
- ``date_part(field, x)``, ``datepart`` and ``extract`` are the function the field names
  (Spark's ``DatePart.parseExtractField``, fields in any case): the call keeps the source
  ``x`` for its name and the field's expression to compute, so the worker and the
  analyzer see an ordinary date call; ``SECOND`` keeps its fraction (``decimal(8,6)``);
  ``YEAROFWEEK`` and interval sources are not supported;
- ``unix_date`` counts days since 1970-01-01; ``unix_seconds``/``unix_millis`` round an
  instant's microseconds down (Java's ``floorDiv``, unlike ``unix_timestamp``, which
  truncates); ``timestamp_seconds`` of a double truncates its microseconds toward zero,
  NaN and infinities giving NULL;
- ``make_date`` fails on a date that does not exist (ANSI mode); ``make_timestamp`` and
  ``make_timestamp_ltz`` read the wall clock in the session zone, ``make_timestamp_ntz``
  keeps it; seconds carry microseconds, 60 (without a fraction) being the next minute;
- ``curdate`` is ``current_date`` and ``dateadd`` is ``date_add`` (Spark names them so);
  ``now()`` is ``current_timestamp`` under its own name, ``localtimestamp()`` its wall clock
  in the session zone, both the one instant of the query;
- ``to_unix_timestamp`` is ``unix_timestamp`` under its own name, ``date_diff`` ``datediff``;
- ``convert_timezone(source, target, wall_clock)`` is the wall clock ``target`` shows at the
  instant ``source`` shows ``wall_clock`` (a ``timestamp_ntz``; an instant is first read in
  the session zone); both zones literals; the two-argument form, whose source is the
  session zone, is not supported.
"""

from __future__ import annotations

import datetime as dt

from sparkwire.planner.errors import AnalysisError
from typing import cast

from sparkwire.planner.logical.expressions import Expr, Lit, ScalarFunction
from sparkwire.planner.logical.functions.base import Function, allowed, checked_call, option, plain
from sparkwire.planner.logical.functions.dates import current_date
from sparkwire.planner.logical.literals import literal

#: Spark's default pattern of ``to_unix_timestamp``.
_SECONDS_PATTERN = Lit(value="yyyy-MM-dd HH:mm:ss")

#: ``date_part`` fields (Spark's spellings, upper case) -> the call computing them.
_FIELDS: dict[str, ScalarFunction] = {
    **dict.fromkeys(("YEAR", "Y", "YEARS", "YR", "YRS"), "year"),
    **dict.fromkeys(("QUARTER", "QTR"), "quarter"),
    **dict.fromkeys(("MONTH", "MON", "MONS", "MONTHS"), "month"),
    **dict.fromkeys(("WEEK", "W", "WEEKS"), "weekofyear"),
    **dict.fromkeys(("DAY", "D", "DAYS"), "dayofmonth"),
    **dict.fromkeys(("DAYOFWEEK", "DOW"), "dayofweek"),
    **dict.fromkeys(("DAYOFWEEK_ISO", "DOW_ISO"), "dayofweek_iso"),
    "DOY": "dayofyear",
    **dict.fromkeys(("HOUR", "H", "HOURS", "HR", "HRS"), "hour"),
    **dict.fromkeys(("MINUTE", "M", "MIN", "MINS", "MINUTES"), "minute"),
    **dict.fromkeys(("SECOND", "S", "SEC", "SECONDS", "SECS"), "second_fraction"),
}


def _date_part(name: str) -> Function:
    """``name(field, source)``: the call of the field's function, kept beside the field and
    the source it is named after."""

    fn_name = cast(ScalarFunction, allowed(name, ScalarFunction))

    def build(field: Expr, source: Expr) -> Expr:
        value = option(field)
        if not isinstance(value, str):
            raise AnalysisError(f"{name}'s field must be a string literal")
        fn = _FIELDS.get(value.upper())
        if fn is None:
            raise AnalysisError(f"{name} of the field {value!r} is not supported by sparkwire")
        return checked_call(fn_name, Lit(value=value), source, checked_call(fn, source))

    return Function(name, build, 2, 2)


def now() -> Expr:
    return checked_call("now", literal(dt.datetime.now(dt.timezone.utc)))


def localtimestamp() -> Expr:
    return checked_call("localtimestamp", literal(dt.datetime.now(dt.timezone.utc)))


def to_unix_timestamp(timestamp: Expr, format: Expr = _SECONDS_PATTERN) -> Expr:  # noqa: A002
    return checked_call("to_unix_timestamp", timestamp, format)


FUNCTIONS = (
    plain("day"),
    plain("dayofmonth"),
    *(plain(name) for name in ("dayname", "monthname", "weekday", "unix_date", "unix_seconds",
                               "unix_millis", "unix_micros", "timestamp_seconds",
                               "timestamp_millis", "timestamp_micros", "date_from_unix_date")),
    *(_date_part(name) for name in ("date_part", "datepart", "extract")),
    plain("make_date", 3),
    *(plain(name, 6) for name in ("make_timestamp", "make_timestamp_ltz", "make_timestamp_ntz")),
    plain("date_diff", 2),
    plain("convert_timezone", 3),
    plain("dateadd", 2, fn="date_add"),
    Function.of("curdate", current_date),
    Function.of("now", now),
    Function.of("localtimestamp", localtimestamp),
    Function.of("to_unix_timestamp", to_unix_timestamp),
)
