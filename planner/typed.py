"""Rewrites of a resolved expression that need its operands' types, applied once the
analyzer has resolved it (``Scope.resolve``), so the plan says what Spark computes:

- a user's cast records its operand's type (``Cast.source``): the worker follows Spark's
  rule for each pair of types (``coordinator.worker.semantics``), e.g. a double cast to int
  truncates toward zero where DuckDB rounds, and ``'1.9'`` is invalid input for an int;
- ``/`` with a decimal operand (and no floating one) is decimal in Spark, typed by
  ``planner.types``, and exact: it becomes ``decimal_div(a, b, scale)`` over the operands
  cast to their decimal types (an integer operand as Spark widens it), computed by the
  worker in 128-bit integers and rounded HALF_UP to the result's scale.
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from sparkwire.planner import types
from sparkwire.planner.expressions import Call, Cast, Expr, Lit
from sparkwire.planner.tree import transform


def spark_typed(expr: Expr, columns: Mapping[str, pa.DataType]) -> Expr:
    """``expr`` (resolved against ``columns``) with casts that know their source type and
    decimal quotients cast to their decimal type."""

    def visit(node: Expr) -> Expr | None:
        if isinstance(node, Cast) and node.source is None:
            inner = spark_typed(node.expr, columns)
            source = types.to_name(types.infer(inner, columns))
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
        return None

    return transform(expr, visit)
