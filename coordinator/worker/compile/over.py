"""A compiled function put over its window: ``f OVER (PARTITION BY ... ORDER BY ... frame)``.

``windows`` compiles the function and the window's keys; this module places the ``OVER``
clause. It goes on the aggregate itself, not on what an aggregate's builder wraps around it
(the COALESCE that gives ``collect_list`` its ``[]`` for no rows, ``collect_set``'s
``list_distinct``): ``COALESCE(...) OVER (...)`` is a syntax error.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.nodes import cast
from sparkwire.planner.logical.expressions import Frame

__all__ = ["over"]

#: Scalar functions an aggregate's builder wraps its aggregate in (``calls_collections``).
_AROUND_AGGREGATES = frozenset({"list_distinct", "flatten"})


def over(call: exp.Expr, partition_by: list[exp.Expr], order_by: list[exp.Ordered],
         frame: Frame | None, integer: bool) -> exp.Expr:
    """``call`` over its window; ``integer`` casts the result to INTEGER, Spark's type for
    ranks and buckets (DuckDB's is BIGINT), so a key hashed later hashes as planned."""
    inner = _aggregate_inside(call)
    window = exp.Window(
        this=inner.copy(),
        partition_by=partition_by or None,
        order=exp.Order(expressions=order_by) if order_by else None,
        spec=None if frame is None else _frame(frame),
    )
    if inner is not call:
        inner.replace(window)
        return call
    return cast(window, "INTEGER") if integer else window


def _aggregate_inside(call: exp.Expr) -> exp.Expr:
    """The aggregate in an aggregate's compiled form, where ``OVER`` goes: inside the
    COALESCE that gives a value for no rows (``collect_list``'s ``[]``, ``count_if``'s 0)
    and the functions applied to its result (``collect_set``'s ``list_distinct``)."""
    node = call
    while True:
        if isinstance(node, exp.Coalesce):
            node = node.this
        elif isinstance(node, exp.Anonymous) and node.name.lower() in _AROUND_AGGREGATES:
            node = node.expressions[0]
        else:
            return node


def _frame(frame: Frame) -> exp.WindowSpec:
    """``ROWS``/``RANGE BETWEEN start AND end``; negative bounds precede the current row."""
    start, start_side = _bound(frame.start, "PRECEDING")
    end, end_side = _bound(frame.end, "FOLLOWING")
    return exp.WindowSpec(kind=frame.unit.upper(), start=start, start_side=start_side,
                          end=end, end_side=end_side)


def _bound(value: int | None, unbounded_side: str) -> tuple[str | exp.Expr, str | None]:
    if value is None:
        return "UNBOUNDED", unbounded_side
    if value == 0:
        return "CURRENT ROW", None
    return exp.Literal.number(abs(value)), "PRECEDING" if value < 0 else "FOLLOWING"
