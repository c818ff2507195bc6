"""Rewrites of a resolved expression that need its operands' types, applied once the
analyzer has resolved it (``Scope.resolve``), so the plan says what Spark computes:

- a user's cast records its operand's type (``Cast.source``): the worker follows Spark's
  rule for each pair of types (``coordinator.worker.compile.casts``), e.g. a double cast to int
  truncates toward zero where DuckDB rounds, and ``'1.9'`` is invalid input for an int;
- ``/`` with a decimal operand (and no floating one) is decimal in Spark, typed by
  ``planner.logical.types``, and exact: it becomes ``decimal_div(a, b, scale)`` over the operands
  cast to their decimal types (an integer operand as Spark widens it), computed by the
  worker in 128-bit integers and rounded HALF_UP to the result's scale;
- integer ``+ - *`` and unary ``-`` name their Spark type (``add(a, b, 'int32')``) and an
  integer ``sum`` becomes ``exact_integer(sum(x), 'int64')`` (DuckDB sums in 128 bits): with
  ANSI off the worker wraps around as Java does, with it on it fails with
  ``ARITHMETIC_OVERFLOW`` (``coordinator.worker.compile.integers``);
- ``avg`` of a decimal is Spark's exact ``sum / count`` at the scale of its type: the sum (of
  Spark's sum type) and the count become ``decimal_avg(sum, count, scale)``, cast to the
  ``avg`` type (``coordinator.worker.compile.division``); two-phase aggregation then merges the sum
  and the count as it does for any ``sum`` and ``count``, and divides once.

``try_sum``, ``try_avg`` and ``mode`` are made plain for their argument's type
(``planner.logical.tolerant``).

An aggregate over a window keeps DuckDB's (a checked integer sum, a decimal average through
a double): its ``Over`` holds one aggregate call.
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from sparkwire.planner.logical import time_types, types
from sparkwire.planner.logical.expressions import AggCall, Call, Cast, Expr, Lit, Over
from sparkwire.planner.logical.literal_args import INTEGER_TYPES, TYPED_ARITHMETIC
from sparkwire.planner.logical.tolerant import TYPE_DEPENDENT, plain_aggregate
from sparkwire.planner.logical.tree import transform


#: What ``spark_typed`` acts on (``planner.logical.type_passes``): these calls, and every
#: ``Cast``, ``AggCall`` and ``Over``. A case added to ``spark_typed`` is named here.
REWRITTEN_CALLS = frozenset({"div", "exact_integer", *TYPED_ARITHMETIC})
REWRITTEN_NODES = (Cast, AggCall, Over)


def spark_typed(expr: Expr, columns: Mapping[str, pa.DataType]) -> Expr:
    """``expr`` (resolved against ``columns``) with casts that know their source type and
    decimal quotients cast to their decimal type."""

    def visit(node: Expr) -> Expr | None:
        if isinstance(node, Cast) and node.source is None:
            inner = spark_typed(node.expr, columns)
            source = types.to_name(types.infer(inner, columns))
            if source is not None:
                time_types.check_cast(source, node.to)
            if source == "time" and node.to in ("timestamp", "timestamp_ntz"):
                return time_types.on_current_date(inner, node.to, node.safe)
            return node.model_copy(update={"expr": inner, "source": source})
        if isinstance(node, Call) and node.fn == "div":
            call = Call(fn="div", args=tuple(spark_typed(a, columns) for a in node.args))
            result = types.infer(call, columns)
            if not pa.types.is_decimal(result):
                return call
            operands = tuple(
                Cast(expr=arg, to=f"decimal({t.precision},{t.scale})")
                for arg, t in zip(call.args, types.decimal_operands(call, columns), strict=True)
            )
            exact = Call(fn="decimal_div", args=(*operands, Lit(value=result.scale)))
            return Cast(expr=exact, to=f"decimal({result.precision},{result.scale})")
        if isinstance(node, Call) and len(node.args) == TYPED_ARITHMETIC.get(node.fn):
            call = Call(fn=node.fn, args=tuple(spark_typed(a, columns) for a in node.args))
            name = types.to_name(types.infer(call, columns))
            if name not in INTEGER_TYPES:
                return call
            return Call(fn=node.fn, args=(*call.args, Lit(value=name)))
        if isinstance(node, Call) and node.fn == "exact_integer":
            return node  # typed already
        if isinstance(node, AggCall) and node.fn in TYPE_DEPENDENT and node.arg is not None:
            return plain_aggregate(node.model_copy(update={"arg": spark_typed(node.arg, columns)}), columns)
        if isinstance(node, AggCall) and node.fn == "sum" and node.arg is not None:
            arg = spark_typed(node.arg, columns)
            summed = node.model_copy(update={"arg": arg})
            if not pa.types.is_integer(types.infer(arg, columns)):
                return summed
            return Call(fn="exact_integer", args=(summed, Lit(value="int64")))
        if isinstance(node, AggCall) and node.fn == "avg" and node.arg is not None:
            averaged = node.model_copy(update={"arg": spark_typed(node.arg, columns)})
            return _decimal_average(averaged, columns) or averaged
        if isinstance(node, Over):  # its function stays a call: an Over holds one
            over = transform(node, lambda e: None if e is node else _children_typed(e, columns)
                             if e is node.function else spark_typed(e, columns))
            assert isinstance(over, Over)
            function = over.function
            if isinstance(function, AggCall) and function.fn in TYPE_DEPENDENT and function.arg is not None:
                return plain_aggregate(function, columns, over)
            if isinstance(function, AggCall) and function.fn == "avg" and function.arg is not None:
                return _decimal_average(function, columns, over) or over
            return over
        return None

    return transform(expr, visit)


def _decimal_average(call: AggCall, columns: Mapping[str, pa.DataType],
                     over: Over | None = None) -> Expr | None:
    """``avg`` of a decimal as ``decimal_avg`` over its sum and count, each over the window
    ``over`` when the average is; None for other averages."""
    result = types.infer(call, columns)
    if not pa.types.is_decimal(result):
        return None

    def windowed(aggregate: AggCall) -> Expr:
        return aggregate if over is None else over.model_copy(update={"function": aggregate})

    total = AggCall(fn="sum", arg=call.arg)
    total_type, result_type = types.to_name(types.infer(total, columns)), types.to_name(result)
    assert total_type is not None and result_type is not None  # every decimal has a name
    exact = Call(fn="decimal_avg", args=(Cast(expr=windowed(total), to=total_type),
                                         windowed(AggCall(fn="count", arg=call.arg)),
                                         Lit(value=result.scale)))
    return Cast(expr=exact, to=result_type, source=f"decimal(38,{result.scale})")


def _children_typed(expr: Expr, columns: Mapping[str, pa.DataType]) -> Expr:
    """``expr`` with its operands typed, itself unchanged."""
    return transform(expr, lambda e: None if e is expr else spark_typed(e, columns))
