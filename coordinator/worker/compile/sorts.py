"""Ordering and cutting: ``Sort`` (``ORDER BY``, with the limit a top-N carries) and
``Limit``."""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.context import Context
from sparkwire.coordinator.worker.compile.nodes import star_from
from sparkwire.planner.logical.plan import Limit, Sort

__all__ = ["limit", "sort"]


def sort(ctx: Context, op: Sort) -> exp.Select:
    source = ctx.input(op.input)
    query = star_from(source).order_by(*map(ctx.sort_key, op.keys), copy=False)
    return query if op.limit is None else query.limit(op.limit, copy=False)


def limit(ctx: Context, op: Limit) -> exp.Select:
    source = ctx.input(op.input)
    query = star_from(source)
    if op.n is not None:
        query = query.limit(op.n, copy=False)
    return query.offset(op.offset, copy=False) if op.offset else query
