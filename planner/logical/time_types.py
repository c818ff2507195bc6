"""Spark's TIME type (``TimeType(6)``, ``time(6)``): a time of day without a date or a zone,
counted in microseconds from midnight, from 00:00:00 to 23:59:59.999999.

Its Arrow type in results is ``time64[ns]``, as PySpark's ``toArrow()`` gives it; inside a
plan and on the worker it is DuckDB's ``TIME`` (``time64[us]`` in Arrow: DuckDB reads a
``time64[ns]`` column as ``TIME_NS``, a type its functions do not take), so a local table's
times are handed to the workers as microseconds (``as_engine_times``) and a result's are
cast back to nanoseconds as the frame returns it. Spark keeps at most microseconds, so
nothing is lost either way.

Only ``time(6)``, Spark's default precision, is supported: ``TIME(p)`` for a smaller ``p``
would need every value truncated to ``p`` digits and its own ``dtypes`` name, which no
function of PySpark's makes (``make_time``, ``to_time``, ``current_time()`` ... all give
``time(6)``); a schema naming one is refused.
"""

from __future__ import annotations

import datetime as dt
import re

import pyarrow as pa

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import typenames
from sparkwire.planner.logical.expressions import Call, Cast, Expr
from sparkwire.planner.logical.literals import literal

#: The planner's Arrow type of a TIME value, PySpark's ``toArrow()`` type.
TIME = pa.time64("ns")
#: The Arrow type DuckDB reads and writes as ``TIME``.
ENGINE_TIME = pa.time64("us")
#: Spark's name of the type (``simpleString``, ``dtypes``, ``typeof``).
SPARK_NAME = "time(6)"
#: The one precision supported (Spark's default and the most it allows).
PRECISION = 6


def on_current_date(time: Expr, to: str, safe: bool) -> Expr:
    """``CAST(time AS to)`` for ``to`` a timestamp, as Spark computes it: the wall clock of
    ``time`` on the current date in the session zone (the query's one clock reading, as
    ``current_date`` reads it), an instant in that zone for ``timestamp``."""
    today = Call(fn="current_date", args=(literal(dt.datetime.now(dt.timezone.utc)),))
    wall_clock = Call(fn="time_on_date", args=(today, time))
    if to == "timestamp_ntz":
        return wall_clock
    return Cast(expr=wall_clock, to="timestamp", source="timestamp_ntz", safe=safe)


def is_time(t: pa.DataType) -> bool:
    """Any Arrow time of day (``time32`` or ``time64``, any unit)."""
    return bool(pa.types.is_time(t))


def checked_precision(precision: int) -> pa.DataType:
    """The type of ``time(precision)`` in a schema, Spark's ``TimeType(precision)``."""
    if precision != PRECISION:
        raise AnalysisError(f"time({precision}) is not supported by sparkwire: its TIME type is "
                            f"time({PRECISION}), microseconds, as Spark's functions make it")
    return TIME


def as_engine_times(table: pa.Table) -> pa.Table:
    """``table`` with its top-level times as DuckDB's ``TIME`` (microseconds), nanoseconds
    dropped: Spark keeps microseconds."""
    if not any(is_time(t) and t != ENGINE_TIME for t in table.schema.types):
        return table
    schema = pa.schema([f.with_type(ENGINE_TIME) if is_time(f.type) else f for f in table.schema])
    return table.cast(schema, safe=False)


#: The wall-clock readers Spark also takes a TIME in: their operand becomes a wall clock
#: on 1970-01-01 (``planner.logical.local_time``; no user cast may do that, ``check_cast``).
FIELDS = frozenset({"hour", "minute", "second"})

#: The units ``time_diff`` and ``time_trunc`` take (any case), in microseconds.
UNIT_MICROS = {"HOUR": 3_600_000_000, "MINUTE": 60_000_000, "SECOND": 1_000_000,
               "MILLISECOND": 1000, "MICROSECOND": 1}


#: The casts to or from ``time`` sparkwire computes, as Spark computes them.
_CASTS = frozenset({("string", "time"), ("timestamp", "time"), ("timestamp_ntz", "time"),
                    ("time", "string"), ("time", "time")})


def check_cast(source: str, to: str) -> None:
    """Refuse a cast to or from ``time`` that Spark refuses, as Spark does. A time to an
    integer or a decimal is its seconds from midnight; to a timestamp, that time on the
    session's current date (``on_current_date``)."""
    if "time" not in (source, to) or (source, to) in _CASTS \
            or (source == "time" and to.startswith(("int", "decimal"))):
        return
    def spark(name: str) -> str:
        return typenames.spark_name(typenames.parse(name)).upper()

    if source == "time" and to in ("timestamp", "timestamp_ntz"):
        return  # on the current date (``on_current_date``)
    raise AnalysisError(
        f"[DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION] cannot cast \"{spark(source)}\" to \"{spark(to)}\"")


#: Spark's time text (``H[H]:m[m][:s[s][.fraction]]``, the fraction of any length), the
#: worker's reading too (``coordinator.worker.compile.calls_times``), after a leading ``T``
#: is dropped and then whitespace trimmed (so `` T01:02`` is malformed, ``T 01:02`` not).
TEXT = r"([01]?[0-9]|2[0-3]):([0-5]?[0-9])(?::([0-5]?[0-9])(?:\.([0-9]*))?)?"
#: What Spark trims (``UTF8String.trimAll``).
WHITESPACE = " \t\n\r\f\v"


def parse_text(text: str) -> dt.time | None:
    """The time ``text`` reads as in Spark (the fraction truncated to microseconds), or
    None where it is malformed."""
    match = re.fullmatch(TEXT, text.removeprefix("T").strip(WHITESPACE))
    if match is None:
        return None
    hour, minute, second, fraction = match.groups()
    micros = int((fraction or "0")[:6].ljust(6, "0"))
    return dt.time(int(hour), int(minute), int(second or 0), micros)
