"""``Limit`` over ``Limit`` keeps the smaller; ``Limit`` over ``Sort`` becomes a top-k
sort, which the stage cutter runs per task before gathering; so does a ``Limit`` over a
projection of a ``Sort`` (Spark's ``TakeOrderedAndProject``: a sort on columns the query does
not select, ``planner.api.transformations.orderBy``), the projection kept above it. A
``Sort`` within each task (``sortWithinPartitions``) is no top-k: the limit takes the first
rows of the tasks in order, as Spark's does. An offset (``df.offset``) adds up over nested
limits; over a sort the top-k keeps the rows up to the offset's end and the limit stays
above it to skip them (an offset alone makes no top-k)."""

from __future__ import annotations

from sparkwire.planner.logical.plan import Limit, Operator, Project, Sort, transform_up


def merge_limits(plan: Operator) -> Operator:
    def rewrite(op: Operator) -> Operator:
        if not isinstance(op, Limit):
            return op
        match op.input:
            case Limit(input=inner) as below:
                return Limit(input=inner, n=_least(_less(below.n, op.offset), op.n),
                             offset=below.offset + op.offset)
            case Sort(local=False) as sort if op.reach is not None:
                return _topped(op, _top(sort, op.reach))
            case Project(input=Sort(local=False) as sort) as project if op.reach is not None:
                return _topped(op, project.model_copy(update={"input": _top(sort, op.reach)}))
        return op

    return transform_up(plan, rewrite)


def _topped(limit: Limit, top: Operator) -> Operator:
    """The top-k ``top`` in the limit's place, under the limit where it skips rows."""
    return limit.model_copy(update={"input": top}) if limit.offset else top


def _less(n: int | None, skipped: int) -> int | None:
    return None if n is None else max(0, n - skipped)


def _least(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _top(sort: Sort, n: int) -> Sort:
    return sort.model_copy(update={"limit": n if sort.limit is None else min(sort.limit, n)})
