"""The aggregates whose computation depends on their argument's type, made plain once it is
known (``planner.logical.typed`` calls here while typing a resolved expression):

- ``try_sum`` of an integer is the exact (128-bit) sum as a bigint, NULL beyond a bigint
  (``exact_integer(sum, 'int64', true)``), whatever the ANSI mode; of a floating value it
  is the ``sum``, which does not fail; ``try_avg`` of a non-decimal is the ``avg``, whose
  sum is a double in Spark too. Of a decimal both are refused: DuckDB fails a decimal sum
  past 38 digits, where Spark gives NULL;
- ``mode`` of a floating value counts -0.0 as 0.0, as Spark's hash map does (DuckDB would
  count them apart and print whichever came first).

Each keeps Spark's name through ``AggCall.alias``; over a window, the window's aggregate is
rewritten and stays inside its ``Over`` (``mode`` over a window is refused: its DuckDB form
is an expression over an aggregate, which ``OVER`` cannot take).
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import types
from sparkwire.planner.logical.expressions import AggCall, Call, Case, Expr, Lit, Over

#: The aggregates rewritten here.
TYPE_DEPENDENT = frozenset({"try_sum", "try_avg", "mode"})


def plain_aggregate(call: AggCall, columns: Mapping[str, pa.DataType],
                    over: Over | None = None) -> Expr:
    """``call`` (its argument typed already) as the plan computes it; ``over`` the window
    it runs over, if any."""
    assert call.arg is not None
    arg_type = types.infer(call.arg, columns)

    def windowed(aggregate: AggCall) -> Expr:
        return aggregate if over is None else over.model_copy(update={"function": aggregate})

    if call.fn == "mode":
        if over is not None:
            raise AnalysisError("mode over a window is not supported by sparkwire")
        if not pa.types.is_floating(arg_type):
            return windowed(call)
        zero = Lit(value=0.0, type=types.to_name(arg_type))
        positive = Case(branches=((Call(fn="eq", args=(call.arg, zero)), zero),), otherwise=call.arg)
        return windowed(call.model_copy(update={"arg": positive}))
    if pa.types.is_decimal(arg_type):
        raise AnalysisError(f"{call.fn} of a decimal is not supported by sparkwire (DuckDB fails "
                            "a decimal sum past 38 digits where Spark gives NULL); cast it to double")
    if call.fn == "try_avg":
        return windowed(AggCall(fn="avg", arg=call.arg, alias="try_avg"))
    total = windowed(AggCall(fn="sum", arg=call.arg, alias="try_sum"))
    if not pa.types.is_integer(arg_type):
        return total
    return Call(fn="exact_integer", args=(total, Lit(value="int64"), Lit(value=True)))

