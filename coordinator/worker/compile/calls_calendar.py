"""Builders of the later date and time functions: Spark's semantics
(``planner.logical.functions.calendar``) in DuckDB.

The planner cast each operand to the date, wall clock or instant the function reads
(``planner.logical.local_time``). An instant is DuckDB's ``TIMESTAMPTZ`` in a database whose
zone is UTC (``zones``), so epoch microseconds are ``epoch_us`` of it and a count of them is
``make_timestamp(us)`` read as UTC. DuckDB's integer ``//`` truncates toward zero; Spark's
``unix_seconds``/``unix_millis`` round down (``floorDiv``), written out here.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, ZoneBuilder, arity, literal_text
from sparkwire.coordinator.worker.compile.calls_core import CALLS as CORE_CALLS
from sparkwire.coordinator.worker.compile.calls_dates import DATE_CALLS, ZONE_CALLS
from sparkwire.coordinator.worker.compile.nodes import call, cast
from sparkwire.coordinator.worker.compile.templates import over
from sparkwire.coordinator.worker.compile.zones import from_local, to_local
from sparkwire.planner.spark.timezones import check_time_zone

_EPOCH_US = "epoch_us(CAST(:t AS TIMESTAMPTZ))"
# Java's floorDiv of the epoch microseconds by :n (a positive constant)
_FLOOR_DIV = f"({_EPOCH_US} - ((({_EPOCH_US} % :n) + :n) % :n)) // :n"
_FROM_MICROS = "CAST(make_timestamp(CAST(:us AS BIGINT)) AS TIMESTAMPTZ)"
# Spark's SecondsToTimestamp: integers and decimals exactly, a double's microseconds
# truncated toward zero, NaN and infinities NULL (the multiplier is a BIGINT, so an int
# operand is multiplied as a BIGINT, a double as a double, a decimal as a decimal)
_SECONDS = ("CASE WHEN isnan(CAST(:x AS DOUBLE)) OR isinf(CAST(:x AS DOUBLE)) THEN NULL ELSE "
            + _FROM_MICROS.replace(":us", "trunc(:x * CAST(1000000 AS BIGINT))") + " END")
# the microseconds of a wall clock's seconds (DuckDB's microsecond() counts them within the minute)
_SECOND_FRACTION = "CAST(CAST(microsecond(CAST(:t AS TIMESTAMP)) AS DECIMAL(8, 0)) / 1000000 AS DECIMAL(8, 6))"
# make_timestamp's wall clock: the seconds (decimal(16,6), as Spark reads them) added as
# microseconds to the minute, 60 being the next minute; beyond it, Spark's ANSI error
_MICROS_OF_SECONDS = "CAST(CAST(:s AS DECIMAL(16, 6)) * 1000000 AS BIGINT)"
_WALL_CLOCK = (
    f"CASE WHEN {_MICROS_OF_SECONDS} < 0 OR {_MICROS_OF_SECONDS} > 60000000 THEN "
    "error('[DATETIME_FIELD_OUT_OF_BOUNDS] Invalid value for SecondOfMinute (valid values 0 - 59): ' "
    "|| CAST(:s AS VARCHAR)) "
    "ELSE make_timestamp(CAST(:y AS BIGINT), CAST(:mo AS BIGINT), CAST(:d AS BIGINT), "
    f"CAST(:h AS BIGINT), CAST(:mi AS BIGINT), 0) + to_microseconds({_MICROS_OF_SECONDS}) END"
)
_make_wall_clock = over(_WALL_CLOCK, "y", "mo", "d", "h", "mi", "s")


def _formatted(pattern: str) -> Builder:
    """``dayname``/``monthname``: English abbreviations, as DuckDB's ``strftime`` gives them."""

    def build(args: list[exp.Expr]) -> exp.Expr:
        arity("dayname/monthname", args, 1)
        return call("strftime", cast(args[0], "DATE"), exp.Literal.string(pattern))

    return build


def _date_part(args: list[exp.Expr]) -> exp.Expr:
    """``date_part(field, source, value)``: the planner built the field's call, ``value``."""
    arity("date_part", args, 3)
    return args[2]


def _make_timestamp(args: list[exp.Expr], zone: str) -> exp.Expr:
    """``make_timestamp``/``make_timestamp_ltz``: the wall clock, an instant in the session zone."""
    return from_local(_make_wall_clock(args), zone)


def _convert_timezone(args: list[exp.Expr], zone: str) -> exp.Expr:
    """The wall clock ``target`` shows at the instant ``source`` shows ``args[2]``; the session
    zone plays no part (the zones were checked by the plan model)."""
    arity("convert_timezone", args, 3)
    source = check_time_zone(literal_text(args[0], "the source time zone"))
    target = check_time_zone(literal_text(args[1], "the target time zone"))
    return to_local(from_local(args[2], source), target)


def _localtimestamp(args: list[exp.Expr], zone: str) -> exp.Expr:
    """The query's instant (the planner read it) as the session zone's wall clock."""
    arity("localtimestamp", args, 1)
    return to_local(args[0], zone)


CALENDAR_CALLS: dict[str, Builder] = {
    "dayofmonth": CORE_CALLS["day"],
    "dayname": _formatted("%a"),
    "monthname": _formatted("%b"),
    "weekday": over("isodow(CAST(:d AS DATE)) - 1", "d"),
    "dayofweek_iso": over("isodow(CAST(:d AS DATE))", "d"),
    "second_fraction": over(_SECOND_FRACTION, "t"),
    **dict.fromkeys(("date_part", "datepart", "extract"), _date_part),
    "make_date": over("make_date(CAST(:y AS INTEGER), CAST(:m AS INTEGER), CAST(:d AS INTEGER))",
                      "y", "m", "d"),
    "make_timestamp_ntz": _make_wall_clock,
    "unix_date": over("CAST(CAST(:d AS DATE) - DATE '1970-01-01' AS INTEGER)", "d"),
    "unix_micros": over(_EPOCH_US, "t"),
    "unix_millis": over(_FLOOR_DIV.replace(":n", "1000"), "t"),
    "unix_seconds": over(_FLOOR_DIV.replace(":n", "1000000"), "t"),
    "timestamp_seconds": over(_SECONDS, "x"),
    "timestamp_millis": over(_FROM_MICROS.replace(":us", ":x * CAST(1000 AS BIGINT)"), "x"),
    "timestamp_micros": over(_FROM_MICROS.replace(":us", ":x"), "x"),
    "date_diff": DATE_CALLS["datediff"],
    "date_from_unix_date": over("CAST(DATE '1970-01-01' + CAST(:n AS INTEGER) AS DATE)", "n"),
    "now": DATE_CALLS["current_timestamp"],
    "nanvl": over("CASE WHEN isnan(CAST(:a AS DOUBLE)) THEN :b ELSE :a END", "a", "b"),
}

#: Builders whose SQL names the session time zone (``zones``).
CALENDAR_ZONE_CALLS: dict[str, ZoneBuilder] = {
    "make_timestamp": _make_timestamp,
    "make_timestamp_ltz": _make_timestamp,
    "to_unix_timestamp": ZONE_CALLS["unix_timestamp"],
    "localtimestamp": _localtimestamp,
    "convert_timezone": _convert_timezone,
}
