"""The ``Window`` operator: every input row and column, and one column per window item,
``f OVER (PARTITION BY ... ORDER BY ... frame)``.

An item's function is a ranking or offset function (``calls_window``), ``first``/``last``
over the frame, or any aggregate (``calls_aggregate``); ``over`` places the ``OVER``
clause on it.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.calls_window import (
    INTEGER_WINDOW_CALLS,
    WINDOW_CALLS,
    edge_over_window,
)
from sparkwire.coordinator.worker.compile.context import Context, unique_names
from sparkwire.coordinator.worker.compile.nodes import col, ident, select_from
from sparkwire.coordinator.worker.compile.over import over
from sparkwire.planner.logical.expressions import WindowCall, WindowItem
from sparkwire.planner.logical.plan import Window, output_columns

__all__ = ["window"]


def window(ctx: Context, op: Window) -> exp.Select:
    """``SELECT *, f OVER (PARTITION BY ... ORDER BY ... frame) AS name, ... FROM
    (input)``: every input row and column, one column per window item."""
    inputs = output_columns(op.input)
    unique_names([*inputs, *(f.name for f in op.functions)], "window")
    source = ctx.input(op.input)
    items = [exp.alias_(_over(ctx, op, f), ident(f.name), copy=False) for f in op.functions]
    return select_from([*map(col, inputs), *items], source)


def _over(ctx: Context, op: Window, item: WindowItem) -> exp.Expr:
    """The item's function over its window (``over.over``)."""
    function = item.function
    call: exp.Expr
    if isinstance(function, WindowCall):
        args = [ctx.expr(a) for a in (function.arg, function.default) if a is not None]
        call = WINDOW_CALLS[function.fn](args, function.offset)
        if function.ignore_nulls:
            call = exp.IgnoreNulls(this=call)
    elif function.fn in ("first", "last"):
        assert function.arg is not None
        call = edge_over_window(function.fn, ctx.expr(function.arg), function.ignore_nulls)
    else:
        call = ctx.aggregate(function)
    integer = isinstance(function, WindowCall) and function.fn in INTEGER_WINDOW_CALLS
    return over(call, [ctx.expr(k) for k in op.partition_by],
                [ctx.sort_key(k) for k in op.order_by], item.frame, integer)
