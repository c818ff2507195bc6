"""Semi and anti joins move below inner joins, to the input whose rows they filter.

A semi or anti join keeps or drops each left row by looking it up in its right side, so it
is a filter on the columns it reads, and like a filter it can be applied to the input of an
inner join those columns come from (or the preserved side of an outer join) before the join
runs. TPC-H Q18's ``o_orderkey IN (orders with more than 300 items)`` so keeps 57 of
1,500,000 orders before they are shuffled to meet ``lineitem``, instead of after.

Only a small right side moves (at most ``DEFAULT_BROADCAST_THRESHOLD`` estimated bytes):
it is broadcast wherever it lands, so moving it costs no new shuffle; a big one would be
shuffled, and then the place it had is as good as any.
"""

from __future__ import annotations

from sparkwire.planner.estimates import DEFAULT_BROADCAST_THRESHOLD, estimate_bytes
from sparkwire.planner.expressions import Column
from sparkwire.planner.plan import Filter, Join, Operator, Project, children, output_columns, with_children
from sparkwire.planner.tree import column_names

# Which inputs of a join below a semi join may take it: those whose rows the join does not pad.
_SIDES = {"inner": ("left", "right"), "cross": ("left", "right"), "left": ("left",), "right": ("right",)}


def push_semi_joins(plan: Operator) -> Operator:
    """Top-down: each small semi or anti join sinks as far as it can, then its inputs are visited."""
    if (isinstance(plan, Join) and plan.how in ("semi", "anti")
            and estimate_bytes(plan.right) <= DEFAULT_BROADCAST_THRESHOLD):
        plan = _sink(plan)
    return with_children(plan, [push_semi_joins(c) for c in children(plan)])


def _sink(semi: Join) -> Operator:
    below = semi.left
    reads = _left_reads(semi)
    match below:
        case Join(how=how) if how in _SIDES:
            for side in _SIDES[how]:
                child = getattr(below, side)
                if reads <= set(output_columns(child)):
                    return below.model_copy(update={side: _sink(semi.model_copy(update={"left": child}))})
        case Filter():
            return with_children(below, [_sink(semi.model_copy(update={"left": below.input}))])
        case Project():
            passing = {c.name for c in below.columns if c.expr == Column(name=c.name)}
            if reads <= passing:
                return with_children(below, [_sink(semi.model_copy(update={"left": below.input}))])
    return semi


def _left_reads(semi: Join) -> set[str]:
    """The left columns the semi join reads: its left keys and its condition's left side."""
    left = set(output_columns(semi.left))
    names = {n for key in semi.left_keys for n in column_names(key)}
    if semi.condition is not None:
        names |= set(column_names(semi.condition)) & left
    return names
