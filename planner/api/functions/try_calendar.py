"""``try_make_timestamp`` and its ``_ltz``/``_ntz`` forms of ``pyspark.sql.functions``;
built, and their semantics written down, in ``planner.logical.functions.try_calendar``.
PySpark's keyword form (``date=``, ``time=``) and a time zone are refused."""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api.column import Column, ColumnOrName, to_column
from sparkwire.planner.api.functions.core import call

__all__ = ["try_make_timestamp", "try_make_timestamp_ltz", "try_make_timestamp_ntz"]

Part = ColumnOrName | None


def _built(name: str, parts: tuple[Part, ...], unsupported: dict[str, Part]) -> Column:
    given = [key for key, value in unsupported.items() if value is not None]
    if given or any(p is None for p in parts):
        raise AnalysisError(f"{name} takes years, months, days, hours, mins and secs in sparkwire"
                            + (f"; {', '.join(given)} is not supported (set the session time zone "
                               "instead of a time zone)" if given else ""))
    return call(name, *(to_column(p).expr for p in parts if p is not None))


def try_make_timestamp(years: Part = None, months: Part = None, days: Part = None, hours: Part = None,
                       mins: Part = None, secs: Part = None, timezone: Part = None, date: Part = None,
                       time: Part = None) -> Column:
    return _built("try_make_timestamp", (years, months, days, hours, mins, secs),
                  {"timezone": timezone, "date": date, "time": time})


def try_make_timestamp_ltz(years: ColumnOrName, months: ColumnOrName, days: ColumnOrName,
                           hours: ColumnOrName, mins: ColumnOrName, secs: ColumnOrName,
                           timezone: Part = None) -> Column:
    return _built("try_make_timestamp_ltz", (years, months, days, hours, mins, secs),
                  {"timezone": timezone})


def try_make_timestamp_ntz(years: Part = None, months: Part = None, days: Part = None, hours: Part = None,
                           mins: Part = None, secs: Part = None, date: Part = None,
                           time: Part = None) -> Column:
    return _built("try_make_timestamp_ntz", (years, months, days, hours, mins, secs),
                  {"date": date, "time": time})
