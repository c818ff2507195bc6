"""Semi and anti joins move below inner joins, to the input whose rows they filter.

A semi or anti join keeps or drops each left row by looking it up in its right side, so it
is a filter on the columns it reads, and like a filter it can be applied to the input of an
inner join those columns come from (or the preserved side of an outer join) before the join
runs. TPC-H Q18's ``o_orderkey IN (orders with more than 300 items)`` so keeps 57 of
1,500,000 orders before they are shuffled to meet ``lineitem``, instead of after.

A small right side moves (at most ``DEFAULT_BROADCAST_THRESHOLD`` estimated bytes): it is
broadcast wherever it lands, so moving it costs no new shuffle. A larger one is shuffled on
its keys wherever it is, and so is its left input; it moves only when it has no residual
condition and then passes under an inner join on those same keys. There the join's own
shuffle partitions its new left input as it needs, and the shuffle of its old left input,
the join's output, is gone. At TPC-H SF10, Q18's orders of more than 300 items were
estimated at 10M of 15M (a HAVING on a sum has no statistics; they are 624), too many to
broadcast: the 60M rows of lineitem joined to orders and customers were shuffled before the
semi join kept 4,400 of them. Moved under the join of lineitem and orders on the order key,
it keeps its 624 orders first: Q18 took 9-13 s instead of 28.5. With a residual condition the move measured worse: Q21's ``EXISTS (...
l_suppkey <> ...)`` moved under its join with orders, where the copies of the other semi
joins no longer pre-filter lineitem (``transitivity``), and took 2.6-3.3x as long at SF1.
"""

from __future__ import annotations

from sparkwire.planner.optimizer.estimates import DEFAULT_BROADCAST_THRESHOLD, estimate_bytes, estimate_rows
from sparkwire.planner.logical.expressions import Column, Expr
from sparkwire.planner.logical.plan import Filter, Join, Operator, Project, children, output_columns, with_children
from sparkwire.planner.logical.tree import column_names

#: A semi join with a residual condition moves down only where its right side has fewer than
#: one row for every ``CHEAP_SHARE`` rows it would probe there (``_filters_cheaply``).
CHEAP_SHARE = 10

# Which inputs of a join below a semi join may take it: those whose rows the join does not pad.
_SIDES = {"inner": ("left", "right"), "cross": ("left", "right"), "left": ("left",), "right": ("right",)}


def push_semi_joins(plan: Operator) -> Operator:
    """Top-down: each semi or anti join sinks as far as it can, if small, or if it has no
    residual condition and passes under a join on its own keys; then its inputs are visited."""
    if isinstance(plan, Join) and plan.how in ("semi", "anti"):
        sunk, keyed, landed = _sink(plan)
        small = estimate_bytes(plan.right) <= DEFAULT_BROADCAST_THRESHOLD
        if (keyed and plan.condition is None) or (small and _filters_cheaply(plan, landed)):
            plan = sunk
    return with_children(plan, [push_semi_joins(c) for c in children(plan)])


def _sink(semi: Join) -> tuple[Operator, bool, Operator]:
    """``semi`` moved as far down its left input as it can, whether it passed under an
    inner join whose keys on that side are its own left keys, and the left input it landed on."""
    below = semi.left
    reads = _left_reads(semi)
    match below:
        case Join(how=how) if how in _SIDES:
            for side in _SIDES[how]:
                child = getattr(below, side)
                if reads <= set(output_columns(child)):
                    moved, keyed, landed = _sink(semi.model_copy(update={"left": child}))
                    keys = below.left_keys if side == "left" else below.right_keys
                    return below.model_copy(update={side: moved}), keyed or _same(keys, semi.left_keys), landed
        case Filter():
            moved, keyed, landed = _sink(semi.model_copy(update={"left": below.input}))
            return with_children(below, [moved]), keyed, landed
        case Project():
            passing = {c.name for c in below.columns if c.expr == Column(name=c.name)}
            if reads <= passing:
                moved, keyed, landed = _sink(semi.model_copy(update={"left": below.input}))
                return with_children(below, [moved]), keyed, landed
    return semi, False, semi.left


def _filters_cheaply(semi: Join, landed: Operator) -> bool:
    """Whether a small semi join is worth moving down to ``landed``: always without a
    residual condition (a lookup of a few keys); with one, only where its right side has far
    fewer rows than ``landed`` (``CHEAP_SHARE``). A semi join with a condition is a join, not a
    lookup: under the joins that select the rows it probes, it probes every row of the table
    below them. TPC-DS q16's ``EXISTS (another row of the same order from another warehouse)``
    probed all 1.4M rows of catalog_sales, where above the joins on a date range, a state and
    a county it probes 70K: 0.88 s against DuckDB's 0.06."""
    if semi.condition is None:
        return True
    return estimate_rows(semi.right) * CHEAP_SHARE < estimate_rows(landed)


def _same(keys: tuple[Expr, ...], semi_keys: tuple[Expr, ...]) -> bool:
    """Whether a join's keys on one side are the semi join's left keys (in any order)."""
    return bool(keys) and len(keys) == len(semi_keys) and set(keys) == set(semi_keys)


def _left_reads(semi: Join) -> set[str]:
    """The left columns the semi join reads: its left keys and its condition's left side."""
    left = set(output_columns(semi.left))
    names = {n for key in semi.left_keys for n in column_names(key)}
    if semi.condition is not None:
        names |= set(column_names(semi.condition)) & left
    return names
