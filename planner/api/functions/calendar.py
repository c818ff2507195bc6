"""The later date and time functions of ``pyspark.sql.functions`` (fields, epochs,
``make_*``, Spark's aliases), with ``isnan``/``nanvl`` and the sort orders with NULLs placed
(``asc_nulls_first`` ...); built, and their semantics written down, in
``planner.logical.functions.calendar``. As in PySpark, ``date_part``'s field and
``to_unix_timestamp``'s format are Columns (a literal), a ``str`` elsewhere a column name."""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName, SortOrder, lit, to_column
from sparkwire.planner.api.functions.core import call, number_or_column
from sparkwire.planner.api.functions.unary import of_one_column
from sparkwire.planner.errors import AnalysisError

__all__ = [
    "asc_nulls_first", "asc_nulls_last", "convert_timezone", "curdate", "date_diff", "date_from_unix_date",
    "date_part", "dateadd", "datepart", "day", "dayname", "desc_nulls_first", "desc_nulls_last",
    "extract", "isnan", "localtimestamp", "make_date", "make_timestamp", "make_timestamp_ltz",
    "make_timestamp_ntz", "monthname", "nanvl", "now", "timestamp_micros", "timestamp_millis",
    "timestamp_seconds", "to_unix_timestamp", "unix_date", "unix_micros", "unix_millis",
    "try_to_date", "try_to_timestamp", "unix_seconds", "weekday",
]

day = of_one_column("day")
dayname = of_one_column("dayname")
monthname = of_one_column("monthname")
weekday = of_one_column("weekday")
unix_date = of_one_column("unix_date")
unix_seconds = of_one_column("unix_seconds")
unix_millis = of_one_column("unix_millis")
unix_micros = of_one_column("unix_micros")
timestamp_seconds = of_one_column("timestamp_seconds")
timestamp_millis = of_one_column("timestamp_millis")
timestamp_micros = of_one_column("timestamp_micros")
date_from_unix_date = of_one_column("date_from_unix_date")
isnan = of_one_column("isnan")


def date_part(field: ColumnOrName, source: ColumnOrName) -> Column:
    return call("date_part", to_column(field).expr, to_column(source).expr)


def datepart(field: ColumnOrName, source: ColumnOrName) -> Column:
    return call("datepart", to_column(field).expr, to_column(source).expr)


def extract(field: ColumnOrName, source: ColumnOrName) -> Column:
    return call("extract", to_column(field).expr, to_column(source).expr)


def make_date(year: ColumnOrName, month: ColumnOrName, day: ColumnOrName) -> Column:
    return call("make_date", *(to_column(c).expr for c in (year, month, day)))


def _make_timestamp(name: str, parts: tuple[ColumnOrName, ...], timezone: ColumnOrName | None) -> Column:
    if timezone is not None:
        raise AnalysisError(f"{name} with a time zone is not supported by sparkwire; "
                            "set the session time zone instead")
    return call(name, *(to_column(c).expr for c in parts))


def make_timestamp(years: ColumnOrName, months: ColumnOrName, days: ColumnOrName,
                   hours: ColumnOrName, mins: ColumnOrName, secs: ColumnOrName,
                   timezone: ColumnOrName | None = None) -> Column:
    return _make_timestamp("make_timestamp", (years, months, days, hours, mins, secs), timezone)


def make_timestamp_ltz(years: ColumnOrName, months: ColumnOrName, days: ColumnOrName,
                       hours: ColumnOrName, mins: ColumnOrName, secs: ColumnOrName,
                       timezone: ColumnOrName | None = None) -> Column:
    return _make_timestamp("make_timestamp_ltz", (years, months, days, hours, mins, secs), timezone)


def make_timestamp_ntz(years: ColumnOrName, months: ColumnOrName, days: ColumnOrName,
                       hours: ColumnOrName, mins: ColumnOrName, secs: ColumnOrName) -> Column:
    return _make_timestamp("make_timestamp_ntz", (years, months, days, hours, mins, secs), None)


def date_diff(end: ColumnOrName, start: ColumnOrName) -> Column:
    return call("date_diff", to_column(end).expr, to_column(start).expr)


def dateadd(start: ColumnOrName, days: ColumnOrName | int) -> Column:
    """``days`` is a column (a name is one) or a number, as in PySpark's ``date_add``."""
    return call("dateadd", to_column(start).expr, number_or_column(days))


def to_unix_timestamp(timestamp: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    args = (to_column(timestamp).expr,) if format is None else (to_column(timestamp).expr, to_column(format).expr)
    return call("to_unix_timestamp", *args)


def convert_timezone(sourceTz: Column | None, targetTz: Column, sourceTs: ColumnOrName) -> Column:  # noqa: N803
    """Both zones literal Columns, as PySpark takes them; without ``sourceTz`` (the session
    zone) it is refused."""
    if sourceTz is None:
        raise AnalysisError("convert_timezone without a source time zone is not supported by "
                            "sparkwire; name the session's")
    return call("convert_timezone", sourceTz.expr, targetTz.expr, to_column(sourceTs).expr)


def curdate() -> Column:
    return call("curdate")


def now() -> Column:
    return call("now")


def localtimestamp() -> Column:
    return call("localtimestamp")


def nanvl(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    return call("nanvl", to_column(col1).expr, to_column(col2).expr)


def asc_nulls_first(col: ColumnOrName) -> SortOrder:
    return to_column(col).asc_nulls_first()


def asc_nulls_last(col: ColumnOrName) -> SortOrder:
    return to_column(col).asc_nulls_last()


def desc_nulls_first(col: ColumnOrName) -> SortOrder:
    return to_column(col).desc_nulls_first()


def desc_nulls_last(col: ColumnOrName) -> SortOrder:
    return to_column(col).desc_nulls_last()


def try_to_date(col: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    """A ``str`` format is a pattern (a Column one must be a literal)."""
    args = (to_column(col).expr,) if format is None else (to_column(col).expr, lit(format).expr)
    return call("try_to_date", *args)


def try_to_timestamp(col: ColumnOrName, format: ColumnOrName | None = None) -> Column:  # noqa: A002
    args = (to_column(col).expr,) if format is None else (to_column(col).expr, lit(format).expr)
    return call("try_to_timestamp", *args)
