"""Operands of date and time functions cast to what the function reads, once names are
resolved, so the session time zone is applied where Spark applies it.

A ``timestamp`` is an instant (``planner.spark.timezones``); most date and time functions read
it as a wall clock or a date *in the session zone*, as Spark's implicit casts do. The
worker's builders do not know operand types, so the analyzer puts the cast in the plan
(``Cast`` with its ``source``), and the worker computes it in the plan's zone
(``coordinator.worker.compile.casts``):

- date readers (``year``, ``month``, ``dayofmonth``, ``dayofweek``, ``datediff``,
  ``date_add``, ``last_day``, ``to_date`` ...): an instant becomes its local date;
- wall-clock readers (``hour``, ``minute``, ``second``, ``date_format``): a TIME (for the
  first three) becomes a wall clock on 1970-01-01; an instant, or
  a string (read as an instant first, so an offset in the text counts), becomes its local
  wall clock (``timestamp_ntz``); ``date_format`` also takes a wall clock as the instant it
  is in the zone first (one in a DST gap moves on), as Spark's implicit cast does;
- instant readers (``date_trunc``, ``months_between``; ``to_timestamp``/
  ``to_timestamp_ltz`` without a pattern, ``from_utc_timestamp``, ``to_utc_timestamp``,
  ``unix_timestamp`` of a non-string): a string, date or wall clock becomes an instant in
  the session zone, which the worker's builder reads there; but ``unix_timestamp`` counts
  a wall clock's seconds as UTC's (Spark's ``micros / 1000000`` of a ``timestamp_ntz``);
  ``to_timestamp_ntz`` without a pattern reads a wall clock;
- ``timestampadd`` reads an instant but keeps a wall clock, and is told which it got (a
  fourth argument, true for a wall clock: Spark moves one in UTC, an instant in the zone);
- comparisons and the functions that take one common type (``=``, ``<``, ``between``,
  ``in``, ``<=>``, ``coalesce``, ``greatest``, ``least``) of an instant with a string, date
  or wall clock: those become instants in the session zone (DuckDB would read them in UTC);
  a string among TIMEs becomes a TIME.

Casts only ever go from one of these four types to another; other operand types are left
for the function's own rules. Applying the rewrite twice changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from sparkwire.planner.logical import time_types, types
from sparkwire.planner.logical.expressions import Call, Cast, Expr, Lit
from sparkwire.planner.logical.tree import transform

_TIMES = frozenset({"string", "date", "timestamp", "timestamp_ntz"})
_DATE_READERS = {
    "year": (0,), "month": (0,), "day": (0,), "quarter": (0,), "dayofweek": (0,),
    "dayofyear": (0,), "weekofyear": (0,), "last_day": (0,), "next_day": (0,),
    "trunc_date": (0,), "date_add": (0,), "date_sub": (0,), "add_months": (0,),
    "datediff": (0, 1), "current_date": (0,), "to_date": (0,),
    # planner.logical.functions.calendar
    "dayofmonth": (0,), "dayname": (0,), "monthname": (0,), "weekday": (0,),
    "dayofweek_iso": (0,), "unix_date": (0,), "date_diff": (0, 1), "try_to_date": (0,),
}
_WALL_CLOCK_READERS = {
    "hour": (0,), "minute": (0,), "second": (0,), "date_format": (0,), "second_fraction": (0,),
    "convert_timezone": (2,),
}
#: Wall-clock readers that take a ``timestamp_ntz`` as Spark's implicit cast does: as the
#: instant it is in the session zone (a wall clock in a DST gap moves on).
_VIA_INSTANT = frozenset({"date_format"})
#: Wall-clock readers that cast a string straight to a wall clock (no instant between).
_STRING_AS_WALL_CLOCK = frozenset({"to_timestamp_ntz", "convert_timezone"})
#: Functions reading an instant (position 0) when called without a pattern.
_INSTANT_READERS = frozenset({"to_timestamp", "to_timestamp_ltz", "from_utc_timestamp",
                              "to_utc_timestamp", "unix_timestamp", "to_unix_timestamp",
                              "unix_seconds", "unix_millis", "unix_micros", "try_to_timestamp"})
#: The ``try_`` parsers: their operand's cast gives NULL where it fails.
_TRYING = frozenset({"try_to_date", "try_to_timestamp"})
#: ``unix_timestamp`` and ``to_unix_timestamp``: seconds of an instant, or of a parsed string.
_UNIX_SECONDS = frozenset({"unix_timestamp", "to_unix_timestamp"})
#: Functions reading instants at these positions whatever their arity.
_ALWAYS_INSTANTS = {"date_trunc": (1,), "months_between": (0, 1), "timestampdiff": (1, 2)}
#: Functions whose operands Spark brings to one type: an instant among them wins.
_COMMON_TYPE = frozenset({"eq", "ne", "lt", "le", "gt", "ge", "between", "in", "eq_null_safe",
                          "coalesce", "greatest", "least"})
_PATTERN_TAKERS = frozenset({"to_timestamp", "to_timestamp_ltz", "to_timestamp_ntz", "to_date",
                             *_UNIX_SECONDS, *_TRYING})


def local_time(expr: Expr, columns: Mapping[str, pa.DataType]) -> Expr:
    """``expr`` (resolved against ``columns``) with the operands of date and time functions
    cast to the date, wall clock or instant each reads (the module docstring)."""

    def visit(node: Expr) -> Expr | None:
        if not isinstance(node, Call):
            return None
        if node.fn == "timestampadd" and len(node.args) == 3:
            return _timestamp_add(node, columns)
        wanted = _reads(node, columns)
        if not wanted:
            return None
        args = [local_time(a, columns) for a in node.args]
        for position, target in wanted.items():
            if node.fn in _UNIX_SECONDS and _type_name(args[position], columns) == "timestamp_ntz":
                continue  # Spark counts a wall clock's seconds as if it were UTC's
            args[position] = _as(args[position], target, columns, node.fn)
        if node.fn in _UNIX_SECONDS and len(args) == 2 and 0 in wanted:
            args = args[:1]  # of a date or timestamp, the pattern means nothing
        return Call(fn=node.fn, args=tuple(args))

    return transform(expr, visit)


def _timestamp_add(node: Call, columns: Mapping[str, pa.DataType]) -> Call:
    """``timestampadd(unit, n, ts)`` with ``ts`` an instant unless it is a wall clock, and
    whether it is one added."""
    unit, quantity, moved = (local_time(a, columns) for a in node.args)
    wall_clock = _type_name(moved, columns) == "timestamp_ntz"
    if not wall_clock:
        moved = _as(moved, "timestamp", columns, node.fn)
    return Call(fn=node.fn, args=(unit, quantity, moved, Lit(value=wall_clock)))


def _reads(node: Call, columns: Mapping[str, pa.DataType]) -> dict[int, str]:
    """The type ``node`` reads at each position that may need a cast."""
    if node.fn in _COMMON_TYPE:
        kinds = [_type_name(a, columns) for a in node.args]
        if "time" in kinds:  # a string beside a TIME is read as one, as Spark coerces it
            return {i: "time" for i, kind in enumerate(kinds) if kind == "string"}
        return dict.fromkeys(range(len(kinds)), "timestamp") if "timestamp" in kinds else {}
    if node.fn in _DATE_READERS:
        return dict.fromkeys(_DATE_READERS[node.fn], "date")
    if node.fn in _WALL_CLOCK_READERS:
        return dict.fromkeys(_WALL_CLOCK_READERS[node.fn], "timestamp_ntz")
    if node.fn in _ALWAYS_INSTANTS:
        return dict.fromkeys(_ALWAYS_INSTANTS[node.fn], "timestamp")
    patterned = node.fn in _PATTERN_TAKERS and len(node.args) == 2
    if node.fn in _UNIX_SECONDS and patterned:
        # unix_timestamp(s, pattern) parses a string; of anything else it takes the instant
        patterned = _type_name(node.args[0], columns) in ("string", None)
    if patterned:
        return {}
    if node.fn in _INSTANT_READERS:
        return {0: "timestamp"}
    if node.fn == "to_timestamp_ntz":
        return {0: "timestamp_ntz"}
    return {}


def _as(arg: Expr, target: str, columns: Mapping[str, pa.DataType], fn: str) -> Expr:
    """``arg`` cast to ``target`` where it is another date or time type, a string or a wall
    clock going through an instant first where Spark's implicit cast does."""
    source = _type_name(arg, columns)
    if source == "time" and fn in time_types.FIELDS:  # a field of a time of day: any date's
        return Cast(expr=arg, to="timestamp_ntz", source="time")
    if target == "time":  # a string compared with a TIME
        return Cast(expr=arg, to="time", source=source)
    if source not in _TIMES:
        return arg
    via_instant = (source == "string" and fn not in _STRING_AS_WALL_CLOCK) or (
        source == "timestamp_ntz" and fn in _VIA_INSTANT and not _from_instant(arg))
    safe = fn in _TRYING
    if target == "timestamp_ntz" and via_instant:
        arg, source = Cast(expr=arg, to="timestamp", source=source, safe=safe), "timestamp"
    if source == target:
        return arg
    if target == "date" and source != "timestamp":
        return arg  # a string or wall clock's date needs no zone: the builder casts it
    if target == "timestamp_ntz" and source == "date":
        return arg  # midnight, which the builder's cast gives
    return Cast(expr=arg, to=target, source=source, safe=safe)


def _from_instant(arg: Expr) -> bool:
    """Whether ``arg`` is already the wall clock of an instant (this rewrite ran before)."""
    return isinstance(arg, Cast) and arg.to == "timestamp_ntz" and arg.source == "timestamp"


def _type_name(arg: Expr, columns: Mapping[str, pa.DataType]) -> str | None:
    return types.to_name(types.infer(arg, columns))
