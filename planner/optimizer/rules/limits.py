"""``Limit`` over ``Limit`` keeps the smaller; ``Limit`` over ``Sort`` becomes a top-k
sort, which the stage cutter runs per task before gathering; so does a ``Limit`` over a
projection of a ``Sort`` (Spark's ``TakeOrderedAndProject``: a sort on columns the query does
not select, ``planner.api.transformations.orderBy``), the projection kept above it. A
``Sort`` within each task (``sortWithinPartitions``) is no top-k: the limit takes the first
rows of the tasks in order, as Spark's does."""

from __future__ import annotations

from sparkwire.planner.logical.plan import Limit, Operator, Project, Sort, transform_up


def merge_limits(plan: Operator) -> Operator:
    def rewrite(op: Operator) -> Operator:
        if not isinstance(op, Limit):
            return op
        match op.input:
            case Limit(input=inner, n=n):
                return Limit(input=inner, n=min(n, op.n))
            case Sort(local=False) as sort:
                return _top(sort, op.n)
            case Project(input=Sort(local=False) as sort) as project:
                return project.model_copy(update={"input": _top(sort, op.n)})
        return op

    return transform_up(plan, rewrite)


def _top(sort: Sort, n: int) -> Sort:
    return sort.model_copy(update={"limit": n if sort.limit is None else min(sort.limit, n)})
