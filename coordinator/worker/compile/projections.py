"""Row-wise operators: ``Filter`` (``WHERE``, or ``QUALIFY``) and ``Project`` (named expressions), each one
``SELECT`` over its input."""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.context import Context, unique_names
from sparkwire.coordinator.worker.compile.hoisting import hoist_operands
from sparkwire.coordinator.worker.compile.nodes import select_from, star_from
from sparkwire.planner.logical.plan import Filter, Project

__all__ = ["filter_rows", "project"]


def filter_rows(ctx: Context, op: Filter) -> exp.Select:
    """``WHERE``, or ``QUALIFY`` where the predicate numbers the rows (``calls_task``): a
    window cannot sit in a ``WHERE``."""
    source = ctx.input(op.input)
    predicate = ctx.expr(op.predicate)
    if predicate.find(exp.Window) is not None:
        return star_from(source).qualify(predicate, copy=False)
    return star_from(source).where(predicate, copy=False)


def project(ctx: Context, op: Project) -> exp.Select:
    unique_names((c.name for c in op.columns), "project")
    op = hoist_operands(op)
    source = ctx.input(op.input)
    return select_from(map(ctx.named, op.columns), source)
