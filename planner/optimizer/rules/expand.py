"""Aggregate before expanding: grouping sets copy each row once per set, so an aggregate over
an ``Expand`` works on sets × rows. Where every aggregate call can merge partial results
(``sum``, ``count``, ``count_if``, ``min``, ``max``, ``any_value``, ``first``, ``last``,
``avg`` as a sum and a count, and what the statistical aggregates and the average of a
decimal were rewritten into before), each task first
aggregates its rows by all the keys together (a ``local`` aggregate, which the stage cutter
keeps in the task), the ``Expand`` copies those partial results, and the aggregate above
merges them: ``sum`` of sums, ``sum`` of counts, ``min`` of minima. The aggregate above is
still an ordinary one, split in two phases around its shuffle. On TPC-DS q22 at SF 1 (5
sets of 2.3 million joined rows, 4 string keys) the expansion fell from ~1.4 s to ~0.1 s
(CHANGELOG, issue 34). A call without such a merge (``count(DISTINCT ...)``,
``collect_list`` ...) leaves the plan as it is.
"""

from __future__ import annotations

from sparkwire.planner.logical.expressions import AggCall, AggregateFunction, Call, Cast, Column, Expr, NamedExpr
from sparkwire.planner.logical.plan import Aggregate, Expand, Operator, output_columns, transform_up
from sparkwire.planner.logical.render import output_name
from sparkwire.planner.logical.tree import column_names, fresh_name, transform, walk

#: The calls whose partial results merge with the same function.
_SAME: frozenset[AggregateFunction] = frozenset({"sum", "min", "max", "any_value", "first", "last"})
#: The calls whose partial results are counts, merged by summing them.
_COUNTS: frozenset[AggregateFunction] = frozenset({"count", "count_if"})


def aggregate_before_expand(plan: Operator) -> Operator:
    return transform_up(plan, _rewritten)


def _rewritten(op: Operator) -> Operator:
    if not (isinstance(op, Aggregate) and isinstance(op.input, Expand)):
        return op
    expand = op.input
    passed = set(output_columns(expand.input))
    calls = list(dict.fromkeys(n for a in op.aggregates for n in walk(a.expr) if isinstance(n, AggCall)))
    mergeable = _SAME | _COUNTS | {"avg"}
    if not calls or any(c.fn not in mergeable or not set(column_names(c)) <= passed for c in calls):
        return op
    taken = set(output_columns(expand))
    keys = tuple(NamedExpr(name=fresh_name(k.name, taken), expr=k.expr) for k in expand.keys)
    partials: dict[AggCall, str] = {}

    def partial(call: AggCall) -> Column:
        if call not in partials:
            partials[call] = fresh_name(output_name(call), taken)
        return Column(name=partials[call])

    def merged(node: Expr) -> Expr | None:
        if not isinstance(node, AggCall):
            return None
        if node.fn == "avg":  # as the stage cutter splits it: the sum of sums over the sum of counts
            total = AggCall(fn="sum", arg=partial(AggCall(fn="sum", arg=node.arg)))
            return Call(fn="div", args=(total, AggCall(fn="sum", arg=partial(AggCall(fn="count", arg=node.arg)))))
        if node.fn in _COUNTS:
            return Cast(expr=AggCall(fn="sum", arg=partial(node)), to="int64")
        return AggCall(fn=node.fn, arg=partial(node), ignore_nulls=node.ignore_nulls)

    aggregates = tuple(a.model_copy(update={"expr": transform(a.expr, merged)}) for a in op.aggregates)
    local = Aggregate(input=expand.input, keys=keys, local=True,
                      aggregates=tuple(NamedExpr(name=n, expr=c) for c, n in partials.items()))
    copied = expand.model_copy(update={
        "input": local,
        "keys": tuple(NamedExpr(name=k.name, expr=Column(name=p.name)) for k, p in zip(expand.keys, keys, strict=True)),
    })
    return op.model_copy(update={"input": copied, "aggregates": aggregates})
