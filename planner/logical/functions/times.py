"""The functions of Spark's TIME type (``planner.logical.time_types``): ``make_time``,
``to_time``, ``try_to_time``, ``current_time``, ``time_diff``, ``time_trunc``,
``time_to_micros``/``_millis``/``_seconds`` and ``time_from_micros``/``_millis``/``_seconds``;
their semantics on the worker, checked against PySpark 4.3, in
``coordinator.worker.compile.calls_times``.

A format of ``to_time``/``try_to_time`` is read as ``to_timestamp``'s is
(``planner.spark.datetime_patterns``, the same letters refused). What sparkwire refuses,
and why: ``current_time(p)`` for ``p`` other than 6 (its type would be ``time(p)``,
``time_types``), and a unit of ``time_diff``/``time_trunc`` that is not a literal (it is
checked when the plan is built, where Spark checks it per row).
"""

from __future__ import annotations

import datetime as dt

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Expr
from sparkwire.planner.logical.functions.base import Function, checked_call, int_option, option, plain
from sparkwire.planner.logical.literals import literal
from sparkwire.planner.logical.time_types import PRECISION, UNIT_MICROS


def _parse(name: str) -> Function:
    """``to_time``/``try_to_time`` of a text, with an optional format: a literal of Spark's
    pattern letters (checked by ``literal_args``, as ``to_timestamp``'s is)."""
    def build(text: Expr, pattern: Expr | None = None) -> Expr:
        patterns = () if pattern is None else (pattern,)
        return checked_call("to_time" if name == "to_time" else "try_to_time", text, *patterns)

    return Function.of(name, build)


def current_time(precision: Expr | None = None) -> Expr:
    if precision is not None and int_option(precision) != PRECISION:
        raise AnalysisError(f"current_time takes the precision {PRECISION} in sparkwire (its TIME is "
                            f"time({PRECISION})), got {option(precision)!r}")
    return checked_call("current_time", literal(dt.datetime.now(dt.timezone.utc)))


def _united(name: str) -> Function:
    """``time_diff(unit, start, end)`` or ``time_trunc(unit, time)``: the unit a literal of
    ``time_types.UNIT_MICROS``, refused with Spark's error otherwise."""
    def build(unit: Expr, *times: Expr) -> Expr:
        value = option(unit)
        if not isinstance(value, str) or value.upper() not in UNIT_MICROS:
            raise AnalysisError(
                f"[INVALID_PARAMETER_VALUE.TIME_UNIT] The value of parameter(s) `unit` in `{name}` is "
                "invalid: expects one of the units 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND', "
                f"'MICROSECOND', but got '{value!r}'.")
        return checked_call("time_diff" if name == "time_diff" else "time_trunc", unit, *times)

    return Function(name, build, 3 if name == "time_diff" else 2, 3 if name == "time_diff" else 2)


FUNCTIONS = (
    plain("make_time", 3),
    _parse("to_time"),
    _parse("try_to_time"),
    Function.of("current_time", current_time),
    _united("time_diff"),
    _united("time_trunc"),
    *(plain(name) for name in ("time_to_micros", "time_to_millis", "time_to_seconds",
                               "time_from_micros", "time_from_millis", "time_from_seconds")),
)
