"""Instants and wall clocks in the session time zone (``planner.spark.timezones``), in DuckDB.

Spark's ``timestamp`` is DuckDB's ``TIMESTAMPTZ`` and ``timestamp_ntz`` its ``TIMESTAMP``.
The worker's database runs with DuckDB's ``TimeZone`` set to UTC for good
(``worker.engine``: its configuration is locked, and a setting would be per cursor anyway),
so nothing depends on the worker machine's zone and results come out as Arrow
``timestamp[us, tz=UTC]``. Every conversion that depends on the session zone names it
explicitly through ICU's ``timezone(zone, value)``:

- an instant read as a wall clock: ``timezone(zone, instant)``, exact;
- a wall clock made an instant: ``timezone(zone, wall_clock)``, then Java's rule where the
  wall clock is ambiguous. Spark (``java.time``) takes the offset in force *before* a DST
  change both in a gap (02:30 on a spring-forward night is 03:30 daylight time: ICU agrees)
  and in an overlap (01:30 on a fall-back night is the first, daylight 01:30: ICU takes the
  second). So where the offset six hours earlier also gives back the same wall clock, the
  earlier of the two instants is taken. A fixed offset has no such nights.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.nodes import call, cast
from sparkwire.planner.spark.timezones import has_offset, icu_name

_FIXED = ("UTC", "Etc/UTC", "GMT", "Etc/GMT")


def instant_literal(text: str, zone: str) -> exp.Expr:
    """A ``timestamp`` literal: text with an offset is that instant; without, a wall clock in
    ``zone``, as Spark reads ``TIMESTAMP '2024-03-10 02:30:00'`` in the session zone."""
    value = exp.Literal.string(text)
    if has_offset(text):
        return cast(value, "TIMESTAMPTZ")
    return from_local(cast(value, "TIMESTAMP"), zone)


def to_local(instant: exp.Expr, zone: str) -> exp.Expr:
    """The wall clock (``TIMESTAMP``) of ``instant`` in ``zone``."""
    return call("timezone", icu_name(zone), cast(instant, "TIMESTAMPTZ"))


def from_local(wall_clock: exp.Expr, zone: str) -> exp.Expr:
    """The instant (``TIMESTAMPTZ``) at which ``zone``'s clocks show ``wall_clock``, as Java
    resolves gaps and overlaps (the module docstring)."""
    local = cast(wall_clock, "TIMESTAMP")
    later = call("timezone", icu_name(zone), local)
    if zone in _FIXED or zone.startswith(("+", "-")):
        return later
    before = exp.Sub(this=later.copy(), expression=exp.Interval(
        this=exp.Literal.string("6"), unit=exp.Var(this="HOUR")))
    offset_before = exp.Sub(this=to_local(before.copy(), zone), expression=to_local(before, "UTC"))
    earlier = call("timezone", "UTC", exp.Sub(this=local.copy(), expression=exp.Paren(this=offset_before)))
    same_clock = exp.EQ(this=to_local(earlier.copy(), zone), expression=local.copy())
    first = exp.And(this=same_clock, expression=exp.LT(this=earlier.copy(), expression=later.copy()))
    return exp.Case(ifs=[exp.If(this=first, true=earlier)], default=later)
