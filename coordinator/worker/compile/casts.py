"""Casts as Spark computes them, in Spark's three modes (``Mode``): the compiler's builder
for every ``Cast`` whose source type the planner recorded (``planner.logical.typed``). With ANSI on,
a value Spark rejects fails the query with Spark's error class (``errors.raise_error``);
``try_cast`` reads values as strictly as ANSI mode but gives NULL instead; with ANSI off
(legacy) it is NULL, or wraps/saturates as Spark's legacy casts do. The rules, each checked
against PySpark 4 (``tests/spark/test_semantics.py``):

- string -> any type: the text is trimmed of whitespace first;
- string -> integers: ANSI accepts ``[+-]digits`` only; legacy also takes a fraction and
  truncates it (``'1.9'`` is 1, ``'.5'`` is 0); out of range or malformed is
  ``CAST_INVALID_INPUT`` / NULL (DuckDB would round ``'1.9'`` to 2);
- string -> double/float: Java's syntax, with ``NaN``, ``Infinity``, ``inf`` and a trailing
  ``d``/``f`` (``'1.5d'``);
- string -> decimal: rounded HALF_UP; too many digits is ``NUMERIC_VALUE_OUT_OF_RANGE``;
- string -> date: ``yyyy``, ``yyyy-[m]m``, ``yyyy-[m]m-[d]d``, anything after a following
  ``T`` or space ignored; an impossible day (``2023-02-29``) is invalid input;
- string -> timestamp: DuckDB's reading of a date and time (not its ``infinity``), plus
  Spark's date-only forms (``'2024'``); a wall clock in the session zone unless the text
  ends in ``Z`` or an offset (``+08:00``); to ``timestamp_ntz`` the wall clock it shows;
- timestamp (an instant) -> timestamp_ntz, date, string: its wall clock in the session
  zone; timestamp_ntz, date -> timestamp: that wall clock (a date's midnight) in the zone,
  gaps and overlaps resolved as Java does (``zones``); timestamp -> integers: whole
  seconds since the epoch, rounded down; -> double: with the fraction; integers and
  doubles -> timestamp: that many seconds after the epoch;
- string -> boolean: ``t``, ``true``, ``y``, ``yes``, ``1`` and ``f``, ``false``, ``n``,
  ``no``, ``0`` in any case; anything else invalid;
- double/float -> integers: truncated toward zero; beyond the type (or NaN) is
  ``CAST_OVERFLOW``, or in legacy mode saturates (NaN is 0; tinyint/smallint wrap from int);
- integers/decimals -> a narrower integer: ``CAST_OVERFLOW``, or in legacy mode wraps around
  as Java's narrowing does (3000000000 as int is -1294967296);
- numbers -> decimal: rounded HALF_UP; too large is ``NUMERIC_VALUE_OUT_OF_RANGE`` / NULL;
- double/float -> string: Java's ``Double.toString``/``Float.toString`` (``texts``);
- array/map/struct -> string: Spark's ``[a, null]``, ``{k -> v}``, ``{a, b}`` (``texts``);
- to and from ``time``: ``calls_times``; a time to integers is its whole seconds from
  midnight, to a decimal its seconds with the fraction (then cast as those would be);
- other types print as DuckDB does, which matches Spark for integers, decimals (scale kept),
  booleans, dates and timestamps.
"""

from __future__ import annotations

from typing import Literal

from sqlglot import exp

from sparkwire.coordinator.worker.compile.calls_times import time_cast, time_seconds
from sparkwire.coordinator.worker.compile.duckdb_types import duckdb_type
from sparkwire.coordinator.worker.compile.errors import ANSI_HINT, raise_error
from sparkwire.coordinator.worker.compile.integers import INTEGER_BITS, bounds, wrapped
from sparkwire.coordinator.worker.compile.nodes import call, cast, paren
from sparkwire.coordinator.worker.compile.templates import template
from sparkwire.coordinator.worker.compile.texts import floating_text, nested_text
from sparkwire.coordinator.worker.compile.zones import from_local, to_local
from sparkwire.planner.logical import typenames
from sparkwire.planner.spark.timezones import DEFAULT_TIME_ZONE, OFFSET_SUFFIX

_SPARK_TYPE = {
    "int8": "TINYINT", "int16": "SMALLINT", "int32": "INT", "int64": "BIGINT",
    "float32": "FLOAT", "float64": "DOUBLE", "string": "STRING", "bool": "BOOLEAN",
    "date": "DATE", "timestamp": "TIMESTAMP", "timestamp_ntz": "TIMESTAMP_NTZ",
    "binary": "BINARY",
}
#: What Spark's ``UTF8String.trimAll`` removes around a value before parsing it.
_WHITESPACE = " \t\n\r\f\v"
_TRUE = ("t", "true", "y", "yes", "1")
_FALSE = ("f", "false", "n", "no", "0")
_DATE = r"([0-9]{4})(?:-([0-9]{1,2})(?:-([0-9]{1,2}))?)?(?:[T ].*)?"
#: A date and a time: DuckDB reads the rest, but also ``infinity``, which Spark does not.
_TIMESTAMP = r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}[T ][0-9].*"


#: ``ansi`` (strict, failing), ``try`` (strict, NULL) or ``legacy`` (lenient, NULL).
Mode = Literal["ansi", "try", "legacy"]


def spark_type(name: str) -> str:
    """The type as Spark's error messages spell it (``INT``, ``DECIMAL(5,2)``)."""
    return _SPARK_TYPE.get(name, name.upper())



def spark_cast(value: exp.Expr, source: str | None, to: str, mode: Mode,
               zone: str = DEFAULT_TIME_ZONE) -> exp.Expr:
    """``CAST(value AS to)`` as Spark computes it from ``source`` (a planner type name, or
    None when the planner made the cast itself and vouches that DuckDB's agrees), reading
    instants in the session time zone ``zone``."""
    if source is None or source == to:
        return exp.Cast(this=value, to=duckdb_type(to))
    if source == "time" and (to in INTEGER_BITS or to.startswith("decimal")):
        # Spark counts the seconds from midnight: whole ones to an integer, all to a decimal
        seconds, exact = time_seconds(value)
        return spark_cast(seconds, "int64", to, mode) if to in INTEGER_BITS \
            else spark_cast(exact, "decimal(14,6)", to, mode)
    if "time" in (source, to):  # Spark's TIME (calls_times)
        return time_cast(value, source, to, mode == "ansi", zone)
    if source == "string" and to == "binary":  # its UTF-8 bytes (DuckDB's cast reads \xNN escapes)
        return call("encode", value)
    if source == "string":
        return _from_string(value, to, mode, zone)
    if "timestamp" in (source, to):
        return _instant(value, source, to, zone)
    if to in INTEGER_BITS and (source.startswith(("float", "decimal")) or source in INTEGER_BITS):
        return _to_integer(value, source, to, mode)
    if to == "string" and source in ("float64", "float32"):
        return floating_text(value)
    if to == "string" and typenames.parse(source).kind in ("array", "map", "struct"):
        return nested_text(value, typenames.parse(source))
    if to.startswith("decimal") and (source in INTEGER_BITS or source.startswith("decimal")) \
            and mode == "ansi":  # DuckDB's cast fails where Spark's does; ``spark_error`` says so
        return exp.Cast(this=value, to=duckdb_type(to))
    if to.startswith("decimal") and (source in INTEGER_BITS or source.startswith(("float", "decimal"))):
        exact = exp.TryCast(this=value, to=duckdb_type(to))
        return _checked(exact, value, mode, _out_of_range(value, to))
    return exp.Cast(this=value, to=duckdb_type(to))


def _checked(result: exp.Expr, value: exp.Expr, mode: Mode,
             failure: exp.Expr) -> exp.Expr:
    """``result``; with ANSI on, ``failure`` where it is NULL for a non-NULL ``value``."""
    if mode != "ansi":
        return result
    bad = exp.And(this=exp.Not(this=exp.Is(this=paren(value), expression=exp.Null())),
                  expression=exp.Is(this=paren(result), expression=exp.Null()))
    return exp.Case(ifs=[exp.If(this=bad, true=failure)], default=result)


def _invalid(value: exp.Expr, to: str) -> exp.Expr:
    return raise_error(
        "CAST_INVALID_INPUT", "The value '", value,
        f"' of the type \"STRING\" cannot be cast to \"{spark_type(to)}\" because it is "
        "malformed. Correct the value as per the syntax, or change its target type. Use "
        f"`try_cast` to tolerate malformed input and return NULL instead. {ANSI_HINT}",
    )


def _out_of_range(value: exp.Expr, to: str) -> exp.Expr:
    return raise_error(
        "NUMERIC_VALUE_OUT_OF_RANGE", "", value,
        f" cannot be represented as {spark_type(to)}. {ANSI_HINT}",
    )


def _overflow(value: exp.Expr, source: str, to: str) -> exp.Expr:
    return raise_error(
        "CAST_OVERFLOW", "The value ", value,
        f" of the type \"{spark_type(source)}\" cannot be cast to \"{spark_type(to)}\" due to an "
        f"overflow. Use `try_cast` to tolerate overflow and return NULL instead. {ANSI_HINT}",
    )


def _matches(text: exp.Expr, pattern: str) -> exp.Expr:
    return call("regexp_full_match", text, pattern)


def _when(condition: exp.Expr, then: exp.Expr) -> exp.Expr:
    return exp.Case(ifs=[exp.If(this=condition, true=then)])


def _instant(value: exp.Expr, source: str, to: str, zone: str) -> exp.Expr:
    """Casts from and to an instant (``timestamp``) go through its wall clock in ``zone``:
    to ``timestamp_ntz``, ``date`` and ``string`` it reads as one; from ``timestamp_ntz`` and
    ``date`` (midnight) the wall clock becomes an instant."""
    if source == "timestamp" and (to in INTEGER_BITS or to == "float64"):
        return _epoch_seconds(value, to)
    if source == "timestamp":
        local = to_local(value, zone)
        return local if to == "timestamp_ntz" else exp.Cast(this=local, to=duckdb_type(to))
    if source in ("timestamp_ntz", "date"):
        return from_local(value, zone)
    if to == "timestamp" and (source in INTEGER_BITS or source.startswith("float")):
        return call("to_timestamp", exp.Cast(this=value, to=duckdb_type("float64")))
    return exp.Cast(this=value, to=duckdb_type(to))


def _epoch_seconds(instant: exp.Expr, to: str) -> exp.Expr:
    """Seconds since the epoch: a double keeps the microseconds; an integer is rounded down
    (Spark's ``floorDiv``: 1960-01-01 00:00:00.000001 is -315619200)."""
    micros = call("epoch_us", instant)
    if to == "float64":
        return exp.Div(this=cast(micros, "DOUBLE"), expression=exp.Literal.number(1_000_000))
    return exp.Cast(this=_FLOOR_SECONDS(us=micros), to=duckdb_type(to))


_FLOOR_SECONDS = template("(:us - ((:us % 1000000) + 1000000) % 1000000) // 1000000")


def _from_string(value: exp.Expr, to: str, mode: Mode, zone: str) -> exp.Expr:
    text = call("trim", value, _WHITESPACE)
    result: exp.Expr
    if to in INTEGER_BITS:
        if mode != "legacy":
            result = _when(_matches(text, "[+-]?[0-9]+"), exp.TryCast(this=text, to=duckdb_type(to)))
        else:
            whole = call("regexp_extract", text, "^[+-]?[0-9]*")
            sign_only = exp.In(this=whole, expressions=[exp.Literal.string(s) for s in ("", "+", "-")])
            result = _when(
                _matches(text, r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)"),
                exp.Case(ifs=[exp.If(this=sign_only, true=exp.Literal.number(0))],
                         default=exp.TryCast(this=whole, to=duckdb_type(to))),
            )
            result = exp.Cast(this=result, to=duckdb_type(to))
    elif to in ("float32", "float64"):
        plain = call("regexp_replace", text, "([0-9.])[dDfF]$", r"\1")
        result = exp.TryCast(this=plain, to=duckdb_type(to))
    elif to.startswith("decimal"):
        result = exp.TryCast(this=text, to=duckdb_type(to))
        if mode == "ansi":
            number = exp.TryCast(this=text, to=duckdb_type("float64"))
            too_big = exp.And(this=exp.Not(this=exp.Is(this=number, expression=exp.Null())),
                              expression=exp.Is(this=result, expression=exp.Null()))
            return _checked(exp.Case(ifs=[exp.If(this=too_big, true=_out_of_range(value, to))],
                                     default=result), value, mode, _invalid(value, to))
    elif to == "date":
        result = _date(text)
    elif to in ("timestamp", "timestamp_ntz"):
        date_only = r"[0-9]{4}(-[0-9]{1,2}){0,2}"
        wall_clock = exp.Case(
            ifs=[exp.If(this=_matches(text, date_only), true=cast(_date(text), "TIMESTAMP"))],
            default=_when(_matches(text, _TIMESTAMP), exp.TryCast(this=text, to=duckdb_type("timestamp_ntz"))),
        )
        if to == "timestamp_ntz":
            result = wall_clock
        else:  # an instant: at the offset the text names, else the wall clock in the zone
            result = exp.Case(ifs=[exp.If(this=_matches(text, _TIMESTAMP + OFFSET_SUFFIX),
                                          true=exp.TryCast(this=text, to=duckdb_type(to)))],
                              default=from_local(wall_clock, zone))
    elif to == "bool":
        lowered = exp.Lower(this=text)
        result = exp.Case(ifs=[
            exp.If(this=exp.In(this=lowered, expressions=[exp.Literal.string(s) for s in _TRUE]),
                   true=exp.Boolean(this=True)),
            exp.If(this=exp.In(this=lowered, expressions=[exp.Literal.string(s) for s in _FALSE]),
                   true=exp.Boolean(this=False)),
        ], default=exp.Null())
    else:
        return exp.Cast(this=value, to=duckdb_type(to))
    return _checked(result, value, mode, _invalid(value, to))


def _date(text: exp.Expr) -> exp.Expr:
    """Spark's date forms rebuilt as ``y-m-d`` for DuckDB; NULL when malformed or impossible."""
    part = [call("regexp_extract", text, _DATE, exp.Literal.number(i)) for i in (1, 2, 3)]
    month = exp.Coalesce(this=call("nullif", part[1], ""), expressions=[exp.Literal.string("1")])
    day = exp.Coalesce(this=call("nullif", part[2], ""), expressions=[exp.Literal.string("1")])
    dashed: exp.Expr = part[0]
    for piece in (month, day):
        dashed = exp.DPipe(this=exp.DPipe(this=dashed, expression=exp.Literal.string("-"), safe=False),
                           expression=piece, safe=False)
    return _when(_matches(text, _DATE), exp.TryCast(this=dashed, to=duckdb_type("date")))


def _to_integer(value: exp.Expr, source: str, to: str, mode: Mode) -> exp.Expr:
    bits = INTEGER_BITS[to]
    low, high = bounds(bits)
    fractional = not source.startswith("int")
    whole = call("trunc", value) if fractional else value
    if mode != "legacy":
        out = exp.Or(this=exp.GT(this=whole, expression=high), expression=exp.LT(this=whole, expression=low))
        if source.startswith("float"):
            out = exp.Or(this=call("isnan", value), expression=exp.Paren(this=out))
        failure = _overflow(value, source, to) if mode == "ansi" else exp.Null()
        return exp.Case(ifs=[exp.If(this=out, true=failure)],
                        default=exp.Cast(this=whole, to=duckdb_type(to)))
    if source.startswith("float"):
        wide = 64 if bits == 64 else 32
        wide_low, wide_high = bounds(wide)
        saturated = exp.Case(ifs=[
            exp.If(this=call("isnan", value), true=exp.Literal.number(0)),
            exp.If(this=exp.GTE(this=value, expression=wide_high), true=wide_high),
            exp.If(this=exp.LTE(this=value, expression=wide_low), true=wide_low),
        ], default=cast(whole, "HUGEINT"))
        if bits < 32:
            return wrapped(saturated, bits, to)
        return exp.Cast(this=saturated, to=duckdb_type(to))
    return wrapped(whole, bits, to)

