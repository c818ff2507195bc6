"""Spark's TIME type on DuckDB's ``TIME`` (``planner.logical.time_types``): its casts and
the functions of ``planner.logical.functions.times``, each checked against PySpark 4.3
(``tests/spark/test_times.py``).

- string -> time (``CAST``, ``to_time``): a leading ``T`` dropped, then the text trimmed,
  then ``H[H]:m[m]`` with optional ``:s[s]`` and a fraction of any length (the seventh
  digit on truncated); an hour past 23 (DuckDB reads ``24:00:00``), a minute or second past
  59 is malformed. A cast fails with ``CAST_INVALID_INPUT`` under ANSI (NULL with ANSI off or in
  ``try_cast``); ``to_time`` fails with ``CANNOT_PARSE_TIME`` whatever the mode, and
  ``try_to_time`` gives NULL; with a format, ``to_time`` reads as ``to_timestamp`` does;
- time -> string: DuckDB's text, which is Spark's (the fraction without trailing zeros);
- timestamp -> time: the wall clock's time of day (an instant's in the session zone);
- ``make_time``: the seconds as ``decimal(16,6)`` (rounded half up, so 59.9999999 is 60 and
  fails), each field out of range failing with ``DATETIME_FIELD_OUT_OF_BOUNDS``;
- ``time_from_*``: outside a day fails with Spark's message in nanoseconds; seconds are
  truncated to microseconds;
- ``time_diff``: whole units from the first time to the second, truncated toward zero;
  ``time_trunc``: rounded down to the unit; ``time_to_*``: counts from midnight
  (``time_to_seconds`` a ``decimal(14,6)``);
- ``current_time``: the instant the planner read, as a time of day in the session zone;
- time -> timestamp (``time_on_date``): the time on the current date in the session zone.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, ZoneBuilder, arity, literal_text
from sparkwire.coordinator.worker.compile.calls_dates import pattern_parsed
from sparkwire.coordinator.worker.compile.errors import ANSI_HINT, raise_error
from sparkwire.coordinator.worker.compile.nodes import call, cast
from sparkwire.coordinator.worker.compile.templates import over, template
from sparkwire.coordinator.worker.compile.zones import to_local
from sparkwire.planner.logical.time_types import TEXT, UNIT_MICROS, WHITESPACE

__all__ = ["TIME_CALLS", "TIME_ZONE_CALLS", "time_cast", "time_seconds"]

_DAY_MICROS = 86_400_000_000
_MIDNIGHT = "CAST('00:00:00' AS TIME)"
_SINCE_MIDNIGHT = template(f"{_MIDNIGHT} + to_microseconds(:us)")


_PARSED = template(
    "CASE WHEN regexp_full_match(:text, :pattern) THEN CAST('00:00:00' AS TIME) + to_microseconds("
    "CAST(regexp_extract(:text, :pattern, 1) AS BIGINT) * 3600000000"
    " + CAST(regexp_extract(:text, :pattern, 2) AS BIGINT) * 60000000"
    " + COALESCE(TRY_CAST(regexp_extract(:text, :pattern, 3) AS BIGINT), 0) * 1000000"
    " + CAST(rpad(left(regexp_extract(:text, :pattern, 4), 6), 6, '0') AS BIGINT)) END")


def _parsed(value: exp.Expr) -> exp.Expr:
    """The time ``value`` (text) reads as in Spark, or NULL where it is malformed: built
    from its parts, not by DuckDB's reading (which takes ``24:00:00``)."""
    unprefixed = exp.Case(ifs=[exp.If(this=call("starts_with", value, "T"), true=call("substr", value, exp.Literal.number(2)))],
                          default=value)
    text = call("trim", unprefixed, WHITESPACE)
    return _PARSED(text=text, pattern=exp.Literal.string(TEXT))


def _failing(result: exp.Expr, value: exp.Expr, failure: exp.Expr) -> exp.Expr:
    """``result``, or ``failure`` where it is NULL for a non-NULL ``value``."""
    bad = exp.And(this=exp.Not(this=exp.Is(this=exp.Paren(this=value), expression=exp.Null())),
                  expression=exp.Is(this=exp.Paren(this=result), expression=exp.Null()))
    return exp.Case(ifs=[exp.If(this=bad, true=failure)], default=result)


def time_cast(value: exp.Expr, source: str, to: str, ansi: bool, zone: str) -> exp.Expr:
    """``CAST(value AS to)`` where ``source`` or ``to`` is ``time`` (the pairs the planner
    lets through: string and the timestamps to time, time to string, and its own cast of a
    time to a wall clock on 1970-01-01)."""
    if to == "time" and source == "string":
        parsed = _parsed(value)
        if not ansi:
            return parsed
        return _failing(parsed, value, raise_error(
            "CAST_INVALID_INPUT", "The value '", value,
            "' of the type \"STRING\" cannot be cast to \"TIME(6)\" because it is malformed. "
            "Correct the value as per the syntax, or change its target type. Use `try_cast` to "
            f"tolerate malformed input and return NULL instead. {ANSI_HINT}"))
    if to == "time" and source == "timestamp":
        return cast(to_local(value, zone), "TIME")
    if to == "time":  # timestamp_ntz
        return cast(value, "TIME")
    if to == "timestamp_ntz":  # only the planner's, for hour/minute/second (local_time)
        return exp.Add(this=cast(exp.Literal.string("1970-01-01"), "DATE"), expression=value)
    return cast(value, "VARCHAR")


def _to_time(trying: bool) -> Builder:
    """``to_time``/``try_to_time``: Spark's time text, or with a format the time of day
    ``strptime`` reads in it (``calls_dates``)."""
    def build(args: list[exp.Expr]) -> exp.Expr:
        parsed: exp.Expr
        if len(args) == 2:
            parsed = cast(pattern_parsed(args[0], args[1], trying=True), "TIME")
            shown = literal_text(args[1], "the datetime pattern")
        else:
            arity("to_time", args, 1)
            parsed, shown = _parsed(args[0]), "HH:mm:ss.SSSSSS"
        if trying:
            return parsed
        return _failing(parsed, args[0], raise_error(
            "CANNOT_PARSE_TIME", "The input string '", args[0],
            f"' cannot be parsed to a TIME value because it does not match to the datetime format '{shown}'."))

    return build


def _field(name: str, value: exp.Expr, low: int, high: int, then: exp.Expr) -> exp.Expr:
    return exp.Case(ifs=[exp.If(
        this=exp.Or(this=exp.LT(this=value, expression=exp.Literal.number(low)),
                    expression=exp.GT(this=value, expression=exp.Literal.number(high))),
        true=raise_error("DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION",
                         f"Invalid value for {name} (valid values {low} - {high}): ", value, "."))],
        default=then)


def _make_time(args: list[exp.Expr]) -> exp.Expr:
    arity("make_time", args, 3)
    hours, minutes = (cast(a, "BIGINT") for a in args[:2])
    micros = cast(exp.Mul(this=cast(args[2], "DECIMAL(16, 6)"), expression=exp.Literal.number(1_000_000)),
                  "BIGINT")
    seconds = cast(call("floor", exp.Div(this=cast(args[2], "DECIMAL(16, 6)"),
                                         expression=exp.Literal.number(1))), "BIGINT")
    total = exp.Add(this=exp.Add(
        this=exp.Mul(this=hours, expression=exp.Literal.number(3_600_000_000)),
        expression=exp.Mul(this=minutes, expression=exp.Literal.number(60_000_000))), expression=micros)
    built = _SINCE_MIDNIGHT(us=total)
    return _field("HourOfDay", hours, 0, 23, _field("MinuteOfHour", minutes, 0, 59,
                                                    _field("SecondOfMinute", seconds, 0, 59, built)))


def _from_micros(scale: int | None) -> Builder:
    """``time_from_micros`` (``scale`` 1), ``_millis`` (1000) or ``_seconds`` (None: any number,
    truncated to microseconds)."""
    def build(args: list[exp.Expr]) -> exp.Expr:
        arity("time_from_*", args, 1)
        micros: exp.Expr
        if scale is None:
            exact = cast(args[0], "DECIMAL(38, 9)")  # a double's digits too, without int overflow
            micros = cast(call("trunc", exp.Mul(this=exact, expression=exp.Literal.number(1_000_000))),
                          "HUGEINT")
        else:
            micros = exp.Mul(this=cast(args[0], "HUGEINT"), expression=exp.Literal.number(scale))
        outside = exp.Or(this=exp.LT(this=micros, expression=exp.Literal.number(0)),
                         expression=exp.GTE(this=micros, expression=exp.Literal.number(_DAY_MICROS)))
        failure = raise_error(
            "DATETIME_FIELD_OUT_OF_BOUNDS.WITHOUT_SUGGESTION",
            "Invalid TIME value: must be between 00:00:00 and 23:59:59.999999999, but got ",
            exp.Mul(this=micros, expression=exp.Literal.number(1000)), " nanoseconds. ")
        return exp.Case(ifs=[exp.If(this=outside, true=failure)],
                        default=_SINCE_MIDNIGHT(us=cast(micros, "BIGINT")))

    return build


def _unit(node: exp.Expr, fn: str) -> int:
    return UNIT_MICROS[literal_text(node, f"{fn}'s unit").upper()]


def _time_diff(args: list[exp.Expr]) -> exp.Expr:
    arity("time_diff", args, 3)
    span = exp.Paren(this=exp.Sub(this=call("epoch_us", args[2]), expression=call("epoch_us", args[1])))
    return cast(call("trunc", exp.Div(this=span, expression=exp.Literal.number(_unit(args[0], "time_diff")))),
                "BIGINT")


def _time_trunc(args: list[exp.Expr]) -> exp.Expr:
    arity("time_trunc", args, 2)
    unit = exp.Literal.number(_unit(args[0], "time_trunc"))
    whole = exp.Mul(this=exp.IntDiv(this=call("epoch_us", args[1]), expression=unit), expression=unit)
    return _SINCE_MIDNIGHT(us=whole)


def _to_count(per: int) -> Builder:
    def build(args: list[exp.Expr]) -> exp.Expr:
        arity("time_to_*", args, 1)
        return cast(exp.IntDiv(this=call("epoch_us", args[0]), expression=exp.Literal.number(per)), "BIGINT")

    return build


def time_seconds(time: exp.Expr) -> tuple[exp.Expr, exp.Expr]:
    """The seconds from midnight to ``time``: whole (``BIGINT``), and with the fraction
    (``DECIMAL(14, 6)``, ``time_to_seconds``)."""
    whole = cast(exp.IntDiv(this=call("epoch_us", time), expression=exp.Literal.number(1_000_000)), "BIGINT")
    exact = cast(exp.Div(this=cast(call("epoch_us", time), "DECIMAL(14, 0)"),
                         expression=exp.Literal.number(1_000_000)), "DECIMAL(14, 6)")
    return whole, exact


def _to_seconds(args: list[exp.Expr]) -> exp.Expr:
    arity("time_to_seconds", args, 1)
    return time_seconds(args[0])[1]


def _current_time(args: list[exp.Expr], zone: str) -> exp.Expr:
    arity("current_time", args, 1)
    return cast(to_local(args[0], zone), "TIME")


TIME_CALLS: dict[str, Builder] = {
    "time_on_date": over("CAST(:d AS DATE) + :t", "d", "t"),
    "make_time": _make_time,
    "to_time": _to_time(trying=False),
    "try_to_time": _to_time(trying=True),
    "time_diff": _time_diff,
    "time_trunc": _time_trunc,
    "time_to_micros": _to_count(1),
    "time_to_millis": _to_count(1000),
    "time_to_seconds": _to_seconds,
    "time_from_micros": _from_micros(1),
    "time_from_millis": _from_micros(1000),
    "time_from_seconds": _from_micros(None),
}
TIME_ZONE_CALLS: dict[str, ZoneBuilder] = {"current_time": _current_time}
