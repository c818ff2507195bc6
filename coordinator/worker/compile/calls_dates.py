"""Date and time builders: Spark's semantics (``planner.logical.functions.dates``) in DuckDB.

Every operand is cast to the DATE or TIMESTAMP the function reads, as Spark casts it;
DuckDB's ``dayofweek`` counts from 0 on Sunday (Spark's from 1), its ``datediff(part, a,
b)`` is ``b - a`` (Spark's ``datediff(end, start)`` is ``end - start``) and it has no
``months_between`` or ``next_day``. Patterns and units were checked by the plan model and
are translated here (``planner.spark.datetime_patterns``). Operands that are instants were cast
to the wall clock or date the function reads by the planner (``planner.logical.local_time``);
builders that make instants, or name the zone, are ``ZONE_CALLS`` (``zones``).
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, ZoneBuilder, arity, literal_text
from sparkwire.coordinator.worker.compile.calls_core import CALLS
from sparkwire.coordinator.worker.compile.nodes import cast, paren
from sparkwire.coordinator.worker.compile.templates import over, template
from sparkwire.coordinator.worker.compile.zones import from_local, to_local
from sparkwire.planner.spark import datetime_patterns
from sparkwire.planner.spark.timezones import check_time_zone

_MONTHS = "(year(:a) * 12 + month(:a) - year(:b) * 12 - month(:b))"
_SECONDS_IN_MONTH = "(day(:{x}) * 86400 + :s{x})"
# Spark's DateTimeUtils.monthsBetween: whole months when the days of month agree or both
# are month ends, else the day-and-time difference over a 31-day month (in whole seconds).
# :a and :b are the wall clocks in the session zone, :sa and :sb the seconds elapsed since
# their local midnight: real seconds, so a DST day's hours count as they passed.
_MONTHS_BETWEEN = (
    "CASE WHEN day(:a) = day(:b) "
    "OR (CAST(:a AS DATE) = last_day(:a) AND CAST(:b AS DATE) = last_day(:b)) "
    f"THEN CAST({_MONTHS} AS DOUBLE) ELSE {_MONTHS} + "
    f"({_SECONDS_IN_MONTH.format(x='a')} - {_SECONDS_IN_MONTH.format(x='b')}) / 2678400.0 END"
)
_ROUNDED_8 = template("floor(:x * 1e8 + 0.5) / 1e8")  # Java's Math.round(x * 1e8) / 1e8
_MONTHS_BETWEEN_T = template(_MONTHS_BETWEEN)


def _months_between(args: list[exp.Expr], zone: str) -> exp.Expr:
    """Of two instants (the planner cast the operands), read in the session zone."""
    arity("months_between", args, 3)
    a, b, round_off = to_local(args[0], zone), to_local(args[1], zone), args[2]
    months = _MONTHS_BETWEEN_T(a=a, b=b, sa=_seconds_since_midnight(args[0], a, zone),
                               sb=_seconds_since_midnight(args[1], b, zone))
    if isinstance(round_off, exp.Boolean) and round_off.this:
        return _ROUNDED_8(x=months)
    return months


def _seconds_since_midnight(instant: exp.Expr, wall_clock: exp.Expr,
                            zone: str) -> exp.Expr:
    """Whole seconds from the instant of ``wall_clock``'s local midnight to ``instant``."""
    midnight = from_local(cast(cast(wall_clock, "DATE"), "TIMESTAMP"), zone)
    return _WHOLE_SECONDS(us=exp.Sub(this=_epoch_us(instant), expression=_epoch_us(midnight)))


def _epoch_us(instant: exp.Expr) -> exp.Expr:
    return exp.Anonymous(this="epoch_us", expressions=[cast(instant, "TIMESTAMPTZ")])


def _date_format(args: list[exp.Expr]) -> exp.Expr:
    arity("date_format", args, 2)
    pieces = datetime_patterns.format_pieces(literal_text(args[1], "date_format's pattern"))
    wall_clock = cast(args[0], "TIMESTAMP")
    year = cast(exp.Anonymous(this="year", expressions=[wall_clock]), "VARCHAR")
    parts: list[exp.Expr] = []
    for i, piece in enumerate(pieces):
        if i > 0:  # a year Spark writes unpadded (``y``) before each piece but the first
            parts.append(year.copy())
        if piece:
            parts.append(exp.Anonymous(this="strftime", expressions=[wall_clock.copy(), exp.Literal.string(piece)]))
    written = parts[0] if parts else exp.Anonymous(this="strftime", expressions=[wall_clock, exp.Literal.string("")])
    for part in parts[1:]:
        written = exp.DPipe(this=written, expression=part, safe=False)
    return written


def pattern_parsed(text: exp.Expr, pattern: exp.Expr, trying: bool = False) -> exp.Expr:
    """The wall clock ``text`` shows in Spark's ``pattern`` (``strptime``: unparsable text is
    an error, as in Spark's ANSI mode; ``trying``, for the ``try_`` forms, NULL)."""
    wanted = datetime_patterns.strftime_pattern(literal_text(pattern, "the datetime pattern"),
                                                parsing=True)
    parse = "try_strptime" if trying else "strptime"
    return cast(exp.Anonymous(this=parse, expressions=[cast(text, "VARCHAR"),
                                                       exp.Literal.string(wanted)]), "TIMESTAMP")


def _parser(to: str, trying: bool = False) -> Builder:
    """``to_date``/``to_timestamp_ntz``/``try_to_date``: a cast without a pattern (the planner
    cast the operand as Spark does, ``planner.logical.local_time``; a string to a date is
    cast here, by ``TRY_CAST`` for the ``try_`` form), ``strptime`` with one."""

    def build(args: list[exp.Expr]) -> exp.Expr:
        if len(args) == 1:
            if trying:
                return exp.TryCast(this=args[0], to=exp.DataType.build(to))
            return cast(args[0], to)
        arity(f"to_{to.lower()}", args, 2)
        return cast(pattern_parsed(args[0], args[1], trying), to)

    return build


def _instant_parser(trying: bool) -> ZoneBuilder:
    """``to_timestamp``/``to_timestamp_ltz``/``try_to_timestamp``: with a pattern, the wall
    clock parsed and made an instant in the session zone; without, the operand (the planner
    cast it, by a ``try_cast`` for the ``try_`` form)."""

    def build(args: list[exp.Expr], zone: str) -> exp.Expr:
        if len(args) == 1:
            return cast(args[0], "TIMESTAMPTZ")
        arity("to_timestamp", args, 2)
        return from_local(pattern_parsed(args[0], args[1], trying), zone)

    return build


_to_instant = _instant_parser(trying=False)


def _truncate(to: str, unit_at: int, units: dict[str, str]) -> Builder:
    def build(args: list[exp.Expr]) -> exp.Expr:
        arity("date truncation", args, 2)
        unit = units[literal_text(args[unit_at], "the unit").lower()]
        value = cast(args[1 - unit_at], to)
        return cast(exp.Anonymous(this="date_trunc", expressions=[exp.Literal.string(unit), value]), to)

    return build


_TRUNCATE_WALL_CLOCK = _truncate("TIMESTAMP", 0, datetime_patterns.TIMESTAMP_UNITS)
#: Units Spark truncates on the instant's own ``ZonedDateTime`` (``truncatedTo``), which
#: keeps the instant's offset where the truncated wall clock has it; longer units go
#: through the date, whose start of day takes the earlier offset.
_KEEPING_OFFSET = frozenset({"day", "hour", "minute", "second", "millisecond", "microsecond"})


def _date_trunc(args: list[exp.Expr], zone: str) -> exp.Expr:
    """``date_trunc(unit, instant)`` as Spark truncates: the wall clock in the session zone
    truncated, and made an instant again. Up to a day, at the instant's own offset where
    that shows the truncated wall clock (01:30 standard time on a fall-back night truncates
    to 01:00 standard time), else as any wall clock (``zones.from_local``)."""
    arity("date_trunc", args, 2)
    instant = cast(args[1], "TIMESTAMPTZ")
    local = to_local(instant, zone)
    truncated = _TRUNCATE_WALL_CLOCK([args[0], local])
    resolved = from_local(truncated.copy(), zone)
    if datetime_patterns.TIMESTAMP_UNITS[literal_text(args[0], "the unit").lower()] not in _KEEPING_OFFSET:
        return resolved
    same_offset = exp.Sub(this=instant.copy(), expression=exp.Paren(
        this=exp.Sub(this=local.copy(), expression=truncated.copy())))
    kept = exp.EQ(this=to_local(same_offset.copy(), zone), expression=truncated)
    return exp.Case(ifs=[exp.If(this=kept, true=same_offset)], default=resolved)


def _zone_shift(direction: str) -> ZoneBuilder:
    """Spark's ``convertTz``, which never reads the session zone: ``from_utc_timestamp(ts,
    tz)`` is the instant whose UTC wall clock is the wall clock ``ts`` shows in ``tz``;
    ``to_utc_timestamp(ts, tz)`` the instant at which ``tz`` shows ``ts``'s UTC wall clock."""

    def build(args: list[exp.Expr], zone: str) -> exp.Expr:
        arity(f"{direction}_utc_timestamp", args, 2)
        other = check_time_zone(literal_text(args[1], "the time zone"))
        if direction == "from":
            return from_local(to_local(args[0], other), "UTC")
        return from_local(to_local(args[0], "UTC"), other)

    return build


def _epoch_seconds(instant: exp.Expr) -> exp.Expr:
    """Whole seconds since the epoch, truncated toward zero as Spark's ``micros / 1000000``
    (Java's long division): 1960-01-01 00:00:00.000001 is -315619199. DuckDB's ``//`` of
    integers truncates the same way."""
    return _WHOLE_SECONDS(us=_epoch_us(instant))


_WHOLE_SECONDS = template("CAST(:us AS BIGINT) // 1000000")


def _unix_timestamp(args: list[exp.Expr], zone: str) -> exp.Expr:
    """``unix_timestamp(x)``: seconds of an instant (the planner cast a date or timestamp to
    one); ``unix_timestamp(s, pattern)``: of the wall clock ``s`` shows, in the session zone."""
    if len(args) == 1:
        return _epoch_seconds(args[0])
    arity("unix_timestamp", args, 2)
    return _epoch_seconds(from_local(pattern_parsed(args[0], args[1]), zone))


def _from_unixtime(args: list[exp.Expr], zone: str) -> exp.Expr:
    """``from_unixtime(seconds, pattern)``: the wall clock of that instant in the session
    zone, formatted."""
    arity("from_unixtime", args, 2)
    instant = exp.Anonymous(this="to_timestamp", expressions=[cast(args[0], "BIGINT")])
    return _date_format([to_local(instant, zone), args[1]])


def _current_timezone(args: list[exp.Expr], zone: str) -> exp.Expr:
    arity("current_timezone", args, 0)
    return exp.Literal.string(zone)


def _next_day(args: list[exp.Expr]) -> exp.Expr:
    arity("next_day", args, 2)
    day = datetime_patterns.iso_day(literal_text(args[1], "next_day's day"))
    return _NEXT_DAY(d=cast(args[0], "DATE"), n=exp.Literal.number(day))


_NEXT_DAY = template("CAST(:d + CAST((:n - isodow(:d) + 6) % 7 + 1 AS INTEGER) AS DATE)")


def _part(name: str, operand: str) -> Builder:
    def build(args: list[exp.Expr]) -> exp.Expr:
        arity(name, args, 1)
        return exp.Anonymous(this=name, expressions=[cast(args[0], operand)])

    return build


def _date_sub(args: list[exp.Expr]) -> exp.Expr:
    arity("date_sub", args, 2)
    return CALLS["date_add"]([args[0], exp.Neg(this=paren(args[1]))])


def _pinned(args: list[exp.Expr]) -> exp.Expr:
    """``current_date``/``current_timestamp``: the instant the planner read."""
    arity("current date or time", args, 1)
    return args[0]


DATE_CALLS: dict[str, Builder] = {
    "current_date": _pinned,
    "current_timestamp": _pinned,
    "date_sub": _date_sub,
    "datediff": over("CAST(:a AS DATE) - CAST(:b AS DATE)", "a", "b"),
    "date_format": _date_format,
    "to_date": _parser("DATE"),
    "try_to_date": _parser("DATE", trying=True),
    "to_timestamp_ntz": _parser("TIMESTAMP"),
    "trunc_date": _truncate("DATE", 1, datetime_patterns.DATE_UNITS),
    "hour": _part("hour", "TIMESTAMP"),
    "minute": _part("minute", "TIMESTAMP"),
    "second": _part("second", "TIMESTAMP"),
    "dayofweek": over("isodow(CAST(:d AS DATE)) % 7 + 1", "d"),
    "dayofyear": _part("dayofyear", "DATE"),
    "weekofyear": _part("weekofyear", "DATE"),
    "quarter": _part("quarter", "DATE"),
    "last_day": _part("last_day", "DATE"),
    "next_day": _next_day,
}

#: Builders whose SQL names the session time zone (``zones``): the compiler passes it.
ZONE_CALLS: dict[str, ZoneBuilder] = {
    "months_between": _months_between,
    "to_timestamp": _to_instant,
    "to_timestamp_ltz": _to_instant,
    "try_to_timestamp": _instant_parser(trying=True),
    "date_trunc": _date_trunc,
    "from_utc_timestamp": _zone_shift("from"),
    "to_utc_timestamp": _zone_shift("to"),
    "unix_timestamp": _unix_timestamp,
    "from_unixtime": _from_unixtime,
    "current_timezone": _current_timezone,
}
