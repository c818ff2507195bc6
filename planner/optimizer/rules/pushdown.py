"""Filters move below projections and joins, toward the scans, so fewer rows are computed
and fewer cross the network: a condition on one side of a join is applied to that side
before it is shuffled or broadcast. A filter's condition moves below a join only to a side
whose rows the join does not pad with NULLs (the left of a left join, either of an inner
one), and below a projection only when every column it reads passes through by name. A
join's own condition is the mirror image: a part reading one side moves into that side
when the join does not keep that side's unmatched rows (the right of a left join, where
``o_comment NOT LIKE ...`` in TPC-H Q13's ``ON`` drops orders before they are shuffled).
A filter moves below a window only where it reads nothing but partition keys that are plain
columns (Spark's rule): it then drops whole partitions, which changes no other row's window
values; any other condition would remove rows a window function counts or ranks. Below an
aggregate, likewise, a deterministic condition on plain grouping keys: TPC-DS q39 reads one
year's inventory aggregate twice, for January and for February, and each month's rows are
now chosen before the join and the aggregate, not after."""

from __future__ import annotations

from sparkwire.planner.logical.expressions import Call, Column, Expr
from sparkwire.planner.logical.function_types import NONDETERMINISTIC
from sparkwire.planner.logical.plan import (
    Aggregate,
    Filter,
    Join,
    Operator,
    Project,
    Window,
    children,
    output_columns,
    with_children,
)
from sparkwire.planner.logical.predicates import conjunction, conjuncts, nonempty_conjunction
from sparkwire.planner.logical.tree import column_names, transform, walk

#: The joins a filter above may move into the left (right) input of: those that do not pad
#: that side with NULLs. A part of a join's own condition moves into its left input by
#: ``RIGHT_OK`` and into its right by ``LEFT_OK``: the mirror image.
LEFT_OK = ("inner", "left", "semi", "anti", "cross")
RIGHT_OK = ("inner", "right", "cross")


def push_filters(plan: Operator) -> Operator:
    """Top-down: each filter sinks as far as it can, then its inputs are visited."""
    if isinstance(plan, Filter):
        plan = _sink(plan)
    elif isinstance(plan, Join) and plan.condition is not None and not plan.null_aware:
        plan = _sink_condition(plan)
    return with_children(plan, [push_filters(c) for c in children(plan)])


def _sink_condition(join: Join) -> Join:
    """The parts of the join's condition that read one side only, moved into that side
    when the join drops that side's unmatched rows."""
    parts = conjuncts(join.condition)
    left_cols, right_cols = set(output_columns(join.left)), set(output_columns(join.right))
    to_left = [p for p in parts if _reads(p) and _reads(p) <= left_cols and join.how in RIGHT_OK]
    to_right = [p for p in parts if _reads(p) and _reads(p) <= right_cols and join.how in LEFT_OK]
    if not to_left and not to_right:
        return join
    kept = [p for p in parts if p not in to_left and p not in to_right]
    moved = with_children(join, [_filtered(join.left, to_left), _filtered(join.right, to_right)])
    return moved.model_copy(update={"condition": conjunction(kept)})


def _sink(op: Filter) -> Operator:
    """The filter's conditions placed as low as one step allows; what cannot move stays."""
    below = op.input
    parts = conjuncts(op.predicate)
    if isinstance(below, Join):
        left_cols, right_cols = set(output_columns(below.left)), set(output_columns(below.right))
        to_left = [p for p in parts if _reads(p) and _reads(p) <= left_cols and below.how in LEFT_OK]
        to_right = [p for p in parts if _reads(p) and _reads(p) <= right_cols and below.how in RIGHT_OK]
        kept = [p for p in parts if p not in to_left and p not in to_right]
        if not to_left and not to_right:
            return op
        join = with_children(below, [_filtered(below.left, to_left), _filtered(below.right, to_right)])
        return _filtered(join, kept)
    if isinstance(below, Project | Window | Aggregate):
        passing = _passing(below)
        moved = [p for p in parts if _reads(p) and _reads(p) <= passing.keys()
                 and (not isinstance(below, Aggregate) or _deterministic(p))]
        if not moved:
            return op
        kept = [p for p in parts if p not in moved]
        renamed = [_renamed(p, passing) for p in moved]
        return _filtered(with_children(below, [_filtered(below.input, renamed)]), kept)
    return op


def _passing(op: Project | Window | Aggregate) -> dict[str, str]:
    """The columns a condition may read to move below ``op``, each with its name below:
    a projection's plain columns (renamed or not), a window's partition keys, an
    aggregate's plain grouping keys (a condition on them keeps or drops whole groups:
    Spark's rule, for deterministic conditions)."""
    if isinstance(op, Window):
        return {k.name: k.name for k in op.partition_by if isinstance(k, Column)}
    named = op.columns if isinstance(op, Project) else op.keys
    return {c.name: c.expr.name for c in named if isinstance(c.expr, Column)}


def _renamed(predicate: Expr, names: dict[str, str]) -> Expr:
    return transform(predicate, lambda e: Column(name=names[e.name]) if isinstance(e, Column) else None)


def _deterministic(predicate: Expr) -> bool:
    """Whether ``predicate`` gives one answer for one row; moved below an aggregate it runs
    once per input row, not once per group."""
    return not any(isinstance(n, Call) and n.fn in NONDETERMINISTIC for n in walk(predicate))


def _reads(predicate: Expr) -> set[str]:
    return set(column_names(predicate))


def _filtered(op: Operator, parts: list[Expr]) -> Operator:
    """``op`` under a filter of ``parts`` (merged into a filter already there), sunk."""
    predicate = conjunction(parts)
    if predicate is None:
        return op
    if isinstance(op, Filter):
        return Filter(input=op.input, predicate=nonempty_conjunction([*conjuncts(op.predicate), *parts]))
    return _sink(Filter(input=op, predicate=predicate))
