"""A subtree the plan reads more than once, each time through a filter, computes only the rows
some reader keeps: the readers' conditions, ORed, move into it (DuckDB's CTE filter pusher).

A view or CTE used twice is one subtree the plan holds twice, which the stage cutter
computes once and every reader reads whole (``physical.stages``). When each reader filters
it, every row no reader keeps is computed for nothing: TPC-DS q04 reads its ``year_total``
(every customer's sales per year, over three channels) six times, each for one year and
channel, and all six years of sales were joined and aggregated to keep two. With the OR of
the readers' conditions pushed in (``pushdown``: through the union, and what it implies by
year through the aggregate, down to ``date_dim``), the shared subtree stays one subtree,
equal in every reader, and each reader keeps its own filter above it.

Only where every read of the subtree is filtered (a reader that is not would lose rows) and
every condition is deterministic; only subtrees that do work (a join, an aggregate, a set
operation, a window), which are what the cutter shares.
"""

from __future__ import annotations

from collections import defaultdict

from sparkwire.planner.logical.expressions import Call
from sparkwire.planner.logical.function_types import NONDETERMINISTIC
from sparkwire.planner.logical.plan import (Aggregate, Filter, Join, Operator, SetOperation, Window,
                                            operators, transform_up)
from sparkwire.planner.logical.predicates import conjuncts
from sparkwire.planner.logical.tree import walk
from sparkwire.planner.optimizer.rules.pushdown import push_filters

__all__ = ["filter_shared"]

_WORK = (Join, Aggregate, SetOperation, Window)


def filter_shared(plan: Operator) -> Operator:
    readers: defaultdict[Operator, list[Filter]] = defaultdict(list)
    for op in operators(plan):
        if isinstance(op, Filter) and isinstance(op.input, _WORK):
            readers[op.input].append(op)
    shared = {subtree: filters for subtree, filters in readers.items()
              if len(filters) > 1 and _all_reads_filtered(plan, subtree, len(filters))
              and all(_deterministic(f) for f in filters)}
    if not shared:
        return plan
    narrowed = {subtree: _narrowed(subtree, filters) for subtree, filters in shared.items()}

    def rewrite(op: Operator) -> Operator:
        if isinstance(op, Filter) and op.input in narrowed:
            return Filter(input=narrowed[op.input], predicate=op.predicate)
        return op

    return transform_up(plan, rewrite)


def _all_reads_filtered(plan: Operator, subtree: Operator, filtered: int) -> bool:
    """Whether the plan holds ``subtree`` exactly ``filtered`` times (each under a filter)."""
    kind = type(subtree)
    return sum(1 for op in operators(plan) if type(op) is kind and op == subtree) == filtered


def _deterministic(op: Filter) -> bool:
    return not any(isinstance(n, Call) and n.fn in NONDETERMINISTIC for n in walk(op.predicate))


def _narrowed(subtree: Operator, filters: list[Filter]) -> Operator:
    """``subtree`` under the OR of its readers' conditions, pushed into it; what stays on top
    goes where every reader checks it anyway (one condition that could not move at all)."""
    predicates = list(dict.fromkeys(f.predicate for f in filters))
    either = predicates[0] if len(predicates) == 1 else Call(fn="or", args=tuple(predicates))
    narrowed = push_filters(Filter(input=subtree, predicate=either))
    if isinstance(narrowed, Filter) and all(
            set(conjuncts(narrowed.predicate)) <= set(conjuncts(f.predicate)) for f in filters):
        return narrowed.input
    return narrowed
