"""The ``Aggregate`` operator: ``SELECT keys, aggregates FROM (input) GROUP BY`` the keys'
positions; the aggregate functions themselves are ``calls_aggregate``."""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.context import Context, unique_names
from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.nodes import select_from
from sparkwire.planner.logical.plan import Aggregate

__all__ = ["aggregate"]


def aggregate(ctx: Context, op: Aggregate) -> exp.Select:
    source = ctx.input(op.input)
    unique_names((c.name for c in (*op.keys, *op.aggregates)), "aggregate")
    outputs = [*map(ctx.named, op.keys), *map(ctx.named, op.aggregates)]
    if not outputs:
        raise CompileError("an aggregate with neither keys nor aggregates")
    query = select_from(outputs, source)
    if op.keys:
        # Group by output position: keys come first, and positions cannot be captured by
        # an output alias that happens to share a name with an input column.
        positions = [exp.Literal.number(i + 1) for i in range(len(op.keys))]
        query = query.group_by(*positions, copy=False)
    return query
