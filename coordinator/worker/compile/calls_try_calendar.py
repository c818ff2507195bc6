"""``try_make_timestamp`` and its ``_ltz``/``_ntz`` forms (``planner.logical.functions.
try_calendar``): the wall clock of ``make_timestamp`` with NULL where that fails. DuckDB's
``try()`` makes an invalid date or time NULL, but refuses to wrap ``error()``, so the
seconds are checked first, NULL outside 0 to 60 (60 without a fraction: the next minute)."""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, ZoneBuilder
from sparkwire.coordinator.worker.compile.templates import over
from sparkwire.coordinator.worker.compile.zones import from_local

__all__ = ["TRY_CALENDAR_CALLS", "TRY_CALENDAR_ZONE_CALLS"]

_MICROS = "TRY_CAST(TRY_CAST(:s AS DECIMAL(16, 6)) * 1000000 AS BIGINT)"
_try_wall_clock: Builder = over(
    f"CASE WHEN {_MICROS} < 0 OR {_MICROS} > 60000000 THEN NULL "
    "ELSE try(make_timestamp(CAST(:y AS BIGINT), CAST(:mo AS BIGINT), CAST(:d AS BIGINT), "
    f"CAST(:h AS BIGINT), CAST(:mi AS BIGINT), 0)) + to_microseconds({_MICROS}) END",
    "y", "mo", "d", "h", "mi", "s")


def _try_instant(args: list[exp.Expr], zone: str) -> exp.Expr:
    """The wall clock read in the session zone, as ``make_timestamp`` reads it."""
    return from_local(_try_wall_clock(args), zone)


TRY_CALENDAR_CALLS: dict[str, Builder] = {"try_make_timestamp_ntz": _try_wall_clock}
TRY_CALENDAR_ZONE_CALLS: dict[str, ZoneBuilder] = {
    "try_make_timestamp": _try_instant,
    "try_make_timestamp_ltz": _try_instant,
}
