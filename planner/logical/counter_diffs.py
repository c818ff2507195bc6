"""``counter_diff(counter[, startTime]) OVER (PARTITION BY ... ORDER BY ...)``: a cumulative
counter as deltas, written out by the analyzer (``planner.logical.windowing``) into window
expressions every worker already runs, as Spark's ``CounterDiff`` and
``CounterDiffWithStartTime`` compute it (checked against PySpark in
``tests/spark/test_counter_diffs.py``):

- the window must be ordered, and its frame is ``ROWS BETWEEN UNBOUNDED PRECEDING AND
  CURRENT ROW`` (any other is refused, as Spark refuses it); the counter is numeric, the
  start time a timestamp (either kind); the result has the counter's type;
- the previous counter is the last non-NULL one before the row, the previous start time the
  start time of that same row (Spark's buffer moves both on when the counter is not NULL);
- a row's value is NULL where its counter is NULL; Spark's
  ``COUNTER_DIFF_NEGATIVE_COUNTER_VALUE`` where the counter is negative; with a start time,
  ``COUNTER_DIFF_START_TIME_DECREASED`` where it is before the previous one, NULL (a reset)
  where it is after; NULL where the counter went down (a reset) or has no previous value;
  else the counter minus the previous one. A NULL start time on either side is no reset.

The previous counter and start time are one ``last(struct IGNORE NULLS)`` over the rows
before the current one (``ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING``).
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import types
from sparkwire.planner.logical.expressions import AggCall, Call, Case, Cast, Expr, Frame, Lit, Over, WindowCall
from sparkwire.planner.logical.functions.assertions import failure
from sparkwire.planner.logical.render import output_name

#: The rows before the current one.
_BEFORE = Frame(unit="rows", start=None, end=-1)
_NULL = Lit(value=None)


def is_counter_diff(over: Over) -> bool:
    return isinstance(over.function, WindowCall) and over.function.fn == "counter_diff"


def expanded(over: Over, type_of: Callable[[Expr], pa.DataType], column: Callable[[Over], Expr]) -> Expr:
    """``over`` (a checked ``counter_diff`` window) as an expression over the window column
    ``column`` gives for the previous counter and start time."""
    call = over.function
    assert isinstance(call, WindowCall) and call.arg is not None
    counter, start = call.arg, call.start
    kind = _checked_types(over, type_of)
    fields: tuple[Expr, ...] = (Lit(value="c"), counter)
    if start is not None:
        fields = (*fields, Lit(value="s"), start)
    kept = Case(branches=((Call(fn="is_not_null", args=(counter,)), Call(fn="named_struct", args=fields)),))
    previous = column(over.model_copy(update={
        "function": AggCall(fn="last", arg=kept, ignore_nulls=True), "frame": _BEFORE}))
    prev_counter = Call(fn="get_field", args=(previous, Lit(value="c")))
    branches: list[tuple[Expr, Expr]] = [
        (Call(fn="is_null", args=(counter,)), _NULL),
        (Call(fn="lt", args=(counter, Lit(value=0))), _negative(counter, kind)),
    ]
    if start is not None:
        prev_start = Call(fn="get_field", args=(previous, Lit(value="s")))
        branches += [(Call(fn="lt", args=(start, prev_start)), _decreased(prev_start, start, type_of(start))),
                     (Call(fn="lt", args=(prev_start, start)), _NULL)]
    branches.append((Call(fn="lt", args=(counter, prev_counter)), _NULL))
    name = types.to_name(kind)
    assert name is not None  # every number has a name
    difference = Cast(expr=Call(fn="sub", args=(counter, prev_counter)), to=name)
    return Case(branches=tuple(branches), otherwise=difference)


def _checked_types(over: Over, type_of: Callable[[Expr], pa.DataType]) -> pa.DataType:
    """The counter's type, a number; the start time a timestamp, as Spark's type check says."""
    call = over.function
    assert isinstance(call, WindowCall) and call.arg is not None
    kind = type_of(call.arg)
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind)):
        raise AnalysisError(f"[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] {output_name(over)}: the first "
                            f"parameter requires a numeric type, got {types.spark_type_name(kind)}")
    if call.start is not None and not pa.types.is_timestamp(start_kind := type_of(call.start)):
        raise AnalysisError(f"[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] {output_name(over)}: the second "
                            "parameter requires the (\"TIMESTAMP\" or \"TIMESTAMP_NTZ\") type, got "
                            f"{types.spark_type_name(start_kind)}")
    return kind


def _text(value: Expr, kind: pa.DataType) -> Expr:
    """``value`` as Spark's cast writes it into the message (a timestamp in the session's
    zone, without one)."""
    return Cast(expr=value, to="string", source=types.to_name(kind))


def _negative(counter: Expr, kind: pa.DataType) -> Expr:
    return failure("COUNTER_DIFF_NEGATIVE_COUNTER_VALUE", Call(fn="concat", args=(
        Lit(value="A negative counter value "), _text(counter, kind),
        Lit(value=" was provided to function `counter_diff`. Negative counter values are not allowed."))))


def _decreased(previous: Expr, current: Expr, kind: pa.DataType) -> Expr:
    return failure("COUNTER_DIFF_START_TIME_DECREASED", Call(fn="concat", args=(
        Lit(value="Start time provided to function `counter_diff` decreased from "), _text(previous, kind),
        Lit(value=" to "), _text(current, kind), Lit(value=". Start time is required to be non-decreasing."))))
