"""``Limit`` over ``Limit`` keeps the smaller; ``Limit`` over ``Sort`` becomes a top-k
sort, which the stage cutter runs per task before gathering."""

from __future__ import annotations

from sparkwire.planner.logical.plan import Limit, Operator, Sort, transform_up


def merge_limits(plan: Operator) -> Operator:
    def rewrite(op: Operator) -> Operator:
        if not isinstance(op, Limit):
            return op
        match op.input:
            case Limit(input=inner, n=n):
                return Limit(input=inner, n=min(n, op.n))
            case Sort(limit=limit) as sort:
                k = op.n if limit is None else min(limit, op.n)
                return sort.model_copy(update={"limit": k})
        return op

    return transform_up(plan, rewrite)
