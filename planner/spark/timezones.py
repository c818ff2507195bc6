"""Session time zones (Spark's ``spark.sql.session.timeZone``): which names are valid, and
how local wall-clock timestamps given by the user become instants.

A zone is a region name of the IANA database (``America/Los_Angeles``, ``UTC``) or a fixed
offset ``+HH:MM`` / ``-HH:MM`` (at most 18 hours), the two forms Spark documents; a name is
kept as the user spelled it, as Spark's ``current_timezone()`` shows it. Abbreviations
(``PST``), ``Z`` and ``GMT+8`` are refused: Spark's own documentation advises against them
and PySpark's Arrow conversion cannot read them.

Spark's model, which sparkwire follows:

- ``timestamp`` (``TimestampType``) is an instant, microseconds since the epoch in UTC; its
  Arrow type is ``timestamp[us, tz=UTC]`` whatever the session zone, as PySpark's
  ``toArrow()`` gives it. The session zone decides how it reads as a wall clock: ``hour``,
  ``date_format``, casts to ``date`` and ``string``, ``date_trunc`` (``coordinator.worker
  .zones``);
- ``timestamp_ntz`` (``TimestampNTZType``) is a wall clock without a zone, Arrow
  ``timestamp[us]``; no function reads the session zone for it;
- a naive Arrow timestamp given to ``createDataFrame`` is a wall clock in the session zone
  (PySpark localizes it with pandas/Arrow): a wall clock that does not exist or exists twice
  there (a DST change) is an error, as in PySpark.
"""

from __future__ import annotations

import re
import zoneinfo
from functools import lru_cache
from typing import Annotated

import pyarrow as pa
import pyarrow.compute as pc
from pydantic import AfterValidator

from sparkwire.planner.errors import AnalysisError

#: The default session zone. Spark's is the JVM's, i.e. the machine's; sparkwire's is UTC so
#: that a query gives the same rows on every machine and in every CI runner, and because
#: driver and workers may sit in different zones. Set ``time_zone`` for a local reading.
DEFAULT_TIME_ZONE = "UTC"
#: The Arrow type of Spark's ``timestamp`` (an instant) and of ``timestamp_ntz``.
INSTANT = pa.timestamp("us", tz="UTC")
WALL_CLOCK = pa.timestamp("us")

_OFFSET = re.compile(r"([+-])(\d{2}):(\d{2})")
#: How a timestamp's text ends when it names its offset (``Z``, ``+08:00``, ``-0800``); a
#: regex both Python and DuckDB (RE2) read.
OFFSET_SUFFIX = r"(Z|[+-][0-9]{2}(:?[0-9]{2})?)"
_TEXT_OFFSET = re.compile(f"[0-9]{OFFSET_SUFFIX}$")
_MAX_NAME = 64


def check_time_zone(name: str) -> str:
    """``name`` if it is a zone Spark accepts as a session zone; ``ValueError`` saying what
    is accepted otherwise (callers add where the name came from)."""
    if not isinstance(name, str) or not 0 < len(name) <= _MAX_NAME:
        raise ValueError(f"a time zone is a name of at most {_MAX_NAME} characters, got {name!r}")
    offset = _OFFSET.fullmatch(name)
    if offset is not None:
        hours, minutes = int(offset[2]), int(offset[3])
        if minutes >= 60 or hours * 60 + minutes > 18 * 60:
            raise ValueError(f"time zone offset {name!r} is not an offset from -18:00 to +18:00")
        return name
    if not _known_region(name):
        raise ValueError(
            f"unknown time zone {name!r}: use a region name of the IANA database such as "
            "'America/Los_Angeles' or 'UTC', or an offset such as '+08:00'"
        )
    return name


def _known_region(name: str) -> bool:
    # a lookup in the list, never zoneinfo.ZoneInfo(name): that opens a file by the name
    return name in _regions()


@lru_cache(maxsize=1)
def _regions() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def has_offset(text: str) -> bool:
    """Whether a timestamp's text names its own offset (``Z``, ``+08:00``, ``-0800``), so
    that it is one instant whatever the session zone."""
    return _TEXT_OFFSET.search(text) is not None


def icu_name(zone: str) -> str:
    """The zone as DuckDB's ICU functions read it: an offset ``+08:00`` is ICU's
    ``GMT+08:00`` (ICU does not know the bare form); region names are ICU's own."""
    return f"GMT{zone}" if _OFFSET.fullmatch(zone) else zone


def as_instants(table: pa.Table, zone: str) -> pa.Table:
    """``table`` with its top-level timestamp columns as Spark's ``timestamp``: naive ones
    read as wall clocks in ``zone``, zoned ones kept as the instants they are, all as
    ``timestamp[us, tz=UTC]``. A wall clock that does not exist in ``zone`` or exists twice
    (a DST change) is an ``AnalysisError`` naming the column, as PySpark refuses it."""
    columns = []
    for field, column in zip(table.schema, table.columns, strict=True):
        if pa.types.is_timestamp(field.type):
            column = _as_instant(field.name, column, zone)
        columns.append(column)
    fields = [pa.field(f.name, c.type, f.nullable) for f, c in zip(table.schema, columns, strict=True)]
    return pa.Table.from_arrays(columns, schema=pa.schema(fields))


def as_wall_clocks(table: pa.Table, zone: str) -> pa.Table:
    """``table`` with its top-level instants as naive wall clocks in ``zone``: how PySpark's
    ``toPandas()`` and ``show()`` give a ``timestamp`` (nested ones stay instants). A table
    without instants is returned as it is (rebuilt, one of no columns would lose its rows)."""
    if not any(pa.types.is_timestamp(c.type) and c.type.tz is not None for c in table.columns):
        return table
    columns = [pc.local_timestamp(c.cast(pa.timestamp("us", tz=zone)))
               if pa.types.is_timestamp(c.type) and c.type.tz is not None else c
               for c in table.columns]
    return pa.Table.from_arrays(columns, names=table.column_names)


def _as_instant(name: str, column: pa.ChunkedArray, zone: str) -> pa.ChunkedArray:
    try:
        if column.type.tz is None:
            column = pc.assume_timezone(column, zone)  # Arrow reads both forms
        return column.cast(INSTANT)
    except (pa.ArrowInvalid, ValueError) as exc:
        raise AnalysisError(
            f"column {name!r} has a timestamp that is not one instant in the session time "
            f"zone {zone}: {str(exc).splitlines()[0]}"
        ) from None


#: A session zone in a plan, checked as the session checked it: a worker validating a plan
#: refuses anything else before compiling it.
TimeZone = Annotated[str, AfterValidator(check_time_zone)]
