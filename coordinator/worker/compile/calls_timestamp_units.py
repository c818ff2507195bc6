"""Builders of ``timestampdiff`` and ``timestampadd``: Spark's rules
(``planner.logical.functions.timestamp_units``) in DuckDB.

``timestampdiff`` is ``java.time``'s ``LocalDateTime.until`` written out on the two wall
clocks in the session zone, because DuckDB's ``date_sub`` counts a month as complete at
the end of a shorter month (Jan 31 to Feb 29 is 1 there, 0 in Java):

- clock units: the microseconds between the wall clocks, divided toward zero (DuckDB's
  integer ``//`` truncates, as Java's ``/``);
- calendar units: the end date moved one day back toward the start where its time of day
  has not reached the start's, then days (weeks: ``// 7``) or Java's ``monthsUntil``,
  ``(month * 32 + day)`` of the end less that of the start, ``// 32`` (quarters ``// 3``,
  years ``// 12`` of that).

``timestampadd`` moves the wall clock by calendar units (DuckDB's interval arithmetic
clamps to a shorter month's end, as ``plusMonths``), then reads it back in the zone; clock
units move the instant. A wall-clock operand (its fourth argument true) moves in UTC.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import arity, literal_text
from sparkwire.coordinator.worker.compile.nodes import call, cast
from sparkwire.coordinator.worker.compile.templates import template
from sparkwire.coordinator.worker.compile.zones import from_local, to_local
from sparkwire.planner.spark.datetime_patterns import add_unit, diff_unit

__all__ = ["TIMESTAMP_UNIT_CALLS"]

#: Microseconds in each clock unit.
_MICROS = {"microsecond": 1, "millisecond": 1_000, "second": 1_000_000, "minute": 60_000_000,
           "hour": 3_600_000_000}
#: Calendar units: the count of days or months each is, and which.
_CALENDAR = {"day": ("DAY", 1), "week": ("DAY", 7), "month": ("MONTH", 1),
             "quarter": ("MONTH", 3), "year": ("MONTH", 12)}

# the wall clocks bound once (a lambda over a one-element list: DuckDB has no LET), since each
# is read many times and may be a costly cast (a string read in the session zone)
_BOUND = "list_extract(list_transform([{{'s': :s, 'e': :e}}], __sparkwire_t -> {}), 1)"
_S, _E = "__sparkwire_t.s", "__sparkwire_t.e"
_CLOCK_DIFF = template(_BOUND.format(f"(epoch_us({_E}) - epoch_us({_S})) // :n"))
# the end's date, one day nearer the start where its time of day falls short of the start's
_END_DATE = (f"CASE WHEN CAST({_E} AS DATE) > CAST({_S} AS DATE) AND CAST({_E} AS TIME) < CAST({_S} AS TIME) "
             f"THEN CAST({_E} AS DATE) - 1 WHEN CAST({_E} AS DATE) < CAST({_S} AS DATE) "
             f"AND CAST({_E} AS TIME) > CAST({_S} AS TIME) THEN CAST({_E} AS DATE) + 1 ELSE CAST({_E} AS DATE) END")
_DAYS_DIFF = template(_BOUND.format(f"CAST(({_END_DATE}) - CAST({_S} AS DATE) AS BIGINT) // :n"))
_PACKED = "((year({d}) * 12 + month({d})) * 32 + day({d}))"
_MONTHS = f"({_PACKED.format(d=f'({_END_DATE})')} - {_PACKED.format(d=f'CAST({_S} AS DATE)')}) // 32"
_MONTHS_DIFF = template(_BOUND.format(f"({_MONTHS}) // :n"))
# a wall clock read back in the zone reads it several times (``zones.from_local``): bound once
_WALL_CLOCK = "__sparkwire_w"


def _timestampdiff(args: list[exp.Expr], zone: str) -> exp.Expr:
    arity("timestampdiff", args, 3)
    unit = diff_unit(literal_text(args[0], "timestampdiff's unit"))
    start, end = to_local(args[1], zone), to_local(args[2], zone)
    if unit in _MICROS:
        return _CLOCK_DIFF(s=start, e=end, n=exp.Literal.number(_MICROS[unit]))
    kind, count = _CALENDAR[unit]
    counted = _DAYS_DIFF if kind == "DAY" else _MONTHS_DIFF
    return counted(s=start, e=end, n=exp.Literal.number(count))


def _in_zone(wall_clock: exp.Expr, zone: str) -> exp.Expr:
    """``from_local(wall_clock, zone)`` with ``wall_clock`` computed once."""
    body = from_local(exp.column(_WALL_CLOCK), zone)
    lambda_ = exp.Lambda(this=body, expressions=[exp.to_identifier(_WALL_CLOCK)])
    mapped = call("list_transform", exp.Array(expressions=[wall_clock]), lambda_)
    return call("list_extract", mapped, exp.Literal.number(1))


def _timestampadd(args: list[exp.Expr], zone: str) -> exp.Expr:
    arity("timestampadd", args, 4)
    unit = add_unit(literal_text(args[0], "timestampadd's unit"))
    quantity, moved = cast(args[1], "BIGINT"), args[2]
    wall_clock = isinstance(args[3], exp.Boolean) and bool(args[3].this)
    if unit in _MICROS:
        micros = exp.Mul(this=quantity, expression=exp.Literal.number(_MICROS[unit]))
        shifted = exp.Add(this=cast(moved, "TIMESTAMP" if wall_clock else "TIMESTAMPTZ"),
                          expression=exp.func("to_microseconds", micros))
        return shifted
    kind, count = _CALENDAR[unit]
    interval = exp.func("to_days" if kind == "DAY" else "to_months",
                        cast(exp.Mul(this=quantity, expression=exp.Literal.number(count)), "INTEGER"))
    if wall_clock:
        return cast(exp.Add(this=cast(moved, "TIMESTAMP"), expression=interval), "TIMESTAMP")
    return _in_zone(exp.Add(this=to_local(moved, zone), expression=interval), zone)


TIMESTAMP_UNIT_CALLS = {"timestampdiff": _timestampdiff, "timestampadd": _timestampadd}
