"""A ``Filter`` over a ``Filter`` becomes one, its predicates ANDed (inner first), so later
rules and the compiler see one predicate per relation."""

from __future__ import annotations

from sparkwire.planner.logical.expressions import Call
from sparkwire.planner.logical.plan import Filter, Operator, transform_up


def merge_filters(plan: Operator) -> Operator:
    def rewrite(op: Operator) -> Operator:
        if isinstance(op, Filter) and isinstance(op.input, Filter):
            inner = op.input
            return Filter(input=inner.input, predicate=Call(fn="and", args=(inner.predicate, op.predicate)))
        return op

    return transform_up(plan, rewrite)
