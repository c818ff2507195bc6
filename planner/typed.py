"""Rewrites of a resolved expression that need its operands' types, applied once the
analyzer has resolved it (``Scope.resolve``), so the plan says what Spark computes:

- a user's cast records its operand's type (``Cast.source``): the worker follows Spark's
  rule for each pair of types (``coordinator.worker.semantics``), e.g. a double cast to int
  truncates toward zero where DuckDB rounds, and ``'1.9'`` is invalid input for an int;
- ``/`` with a decimal operand (and no floating one) is decimal in Spark, typed by
  ``planner.types``; the engine divides doubles, so the quotient is cast to that type.
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from sparkwire.planner import types
from sparkwire.planner.expressions import Call, Cast, Expr
from sparkwire.planner.tree import transform


def spark_typed(expr: Expr, columns: Mapping[str, pa.DataType]) -> Expr:
    """``expr`` (resolved against ``columns``) with casts that know their source type and
    decimal quotients cast to their decimal type."""

    def visit(node: Expr) -> Expr | None:
        if isinstance(node, Cast) and node.source is None:
            inner = spark_typed(node.expr, columns)
            source = types.to_name(types.infer(inner, columns))
            return Cast(expr=inner, to=node.to, source=source)
        if isinstance(node, Call) and node.fn == "div":
            call = Call(fn="div", args=tuple(spark_typed(a, columns) for a in node.args))
            result = types.infer(call, columns)
            if pa.types.is_decimal(result):
                return Cast(expr=call, to=types.to_name(result) or "float64")
            return call
        return None

    return transform(expr, visit)
