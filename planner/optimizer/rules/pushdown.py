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
values; any other condition would remove rows a window function counts or ranks."""

from __future__ import annotations

from sparkwire.planner.logical.expressions import Column, Expr
from sparkwire.planner.logical.plan import (
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
from sparkwire.planner.logical.tree import column_names

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
    if isinstance(below, Project | Window):
        passing = _passing(below)
        moved = [p for p in parts if _reads(p) and _reads(p) <= passing]
        if not moved:
            return op
        kept = [p for p in parts if p not in moved]
        return _filtered(with_children(below, [_filtered(below.input, moved)]), kept)
    return op


def _passing(op: Project | Window) -> set[str]:
    """The columns a condition may read to move below ``op``: those a projection passes
    through by name, a window's partition keys."""
    if isinstance(op, Window):
        return {k.name for k in op.partition_by if isinstance(k, Column)}
    return {c.name for c in op.columns if c.expr == Column(name=c.name)}


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
