"""Calls whose engine form depends on an operand's type, chosen once names are resolved.

``round``/``bround`` of a double round the decimal the double prints as (Spark's
``BigDecimal(d)``), which the worker does through a DECIMAL; of an integer or a decimal
they round the value itself. The worker does not know operand types, so the analyzer
names the double case ``round_double``/``bround_double``; a float is rounded as a double
and cast back, keeping Spark's result type.
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from sparkwire.planner import types
from sparkwire.planner.expressions import Call, Cast, Expr
from sparkwire.planner.tree import transform

_DOUBLE_FORMS = {"round": "round_double", "bround": "bround_double"}


def typed_calls(expr: Expr, columns: Mapping[str, pa.DataType]) -> Expr:
    def visit(node: Expr) -> Expr | None:
        if not (isinstance(node, Call) and node.fn in _DOUBLE_FORMS):
            return None
        operand = typed_calls(node.args[0], columns)
        kind = types.infer(operand, columns)
        if not pa.types.is_floating(kind):
            return Call(fn=node.fn, args=(operand, *node.args[1:]))
        if kind == pa.float64():
            return Call(fn=_DOUBLE_FORMS[node.fn], args=(operand, *node.args[1:]))
        widened = Call(fn=_DOUBLE_FORMS[node.fn], args=(Cast(expr=operand, to="float64"), *node.args[1:]))
        return Cast(expr=widened, to="float32")

    return transform(expr, visit)
