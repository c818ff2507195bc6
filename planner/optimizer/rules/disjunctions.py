"""A condition over both sides of a join that is an OR still says something about each side
alone: every branch that can be true needs its own parts on that side true. So
``(a1 AND b1) OR (a2 AND b2)``, with the ``a`` on the left and the ``b`` on the right, lets
the left keep only rows with ``a1 OR a2`` and the right only rows with ``b1 OR b2``, before
the join (Spark's ``PushPredicateThroughJoin`` since 3.1, and DuckDB, do the same). The
derived filters are implied, not equivalent, so the condition stays where it is; a side gets
one only when each branch has a part on it, and only where a plain condition could move
(``pushdown``'s lists: never into a side the join pads with NULLs). The rule adds them as
filters over the join's inputs; ``push_filters``, which runs next, takes them down.

TPC-H Q19 is the case: its three branches each name a brand, containers and sizes of
``part`` and a quantity range of ``lineitem``. Without this, all of ``part`` (200K rows at
SF1, 2M at SF10) was built into the join's hash table to keep about 500 of them.
"""

from __future__ import annotations

from collections.abc import Sequence

from sparkwire.planner.logical.expressions import Call, Expr
from sparkwire.planner.logical.plan import Filter, Join, Operator, output_columns, transform_up, with_children
from sparkwire.planner.logical.predicates import conjuncts, disjuncts, nonempty_conjunction
from sparkwire.planner.optimizer.rules.pushdown import LEFT_OK, RIGHT_OK
from sparkwire.planner.logical.tree import column_names


def derive_side_filters(plan: Operator) -> Operator:
    def rewrite(op: Operator) -> Operator:
        if isinstance(op, Filter) and isinstance(op.input, Join):
            join = op.input
            sided = _with_side_filters(join, conjuncts(op.predicate),
                                       left=join.how in LEFT_OK, right=join.how in RIGHT_OK)
            return op if sided is join else Filter(input=sided, predicate=op.predicate)
        if isinstance(op, Join) and op.condition is not None and not op.null_aware:
            return _with_side_filters(op, conjuncts(op.condition),
                                      left=op.how in RIGHT_OK, right=op.how in LEFT_OK)
        return op

    return transform_up(plan, rewrite)


def _with_side_filters(join: Join, parts: Sequence[Expr], left: bool, right: bool) -> Join:
    """``join`` with each side under the filters ``parts`` imply for it (where allowed)."""
    sides = [join.left, join.right]
    for index, allowed in enumerate((left, right)):
        if not allowed:
            continue
        columns = set(output_columns(sides[index]))
        implied = [i for p in parts if (i := _implied(p, columns)) is not None]
        if implied:
            sides[index] = Filter(input=sides[index], predicate=nonempty_conjunction(implied))
    if sides[0] is join.left and sides[1] is join.right:
        return join
    return with_children(join, sides)


def _implied(part: Expr, columns: set[str]) -> Expr | None:
    """What the OR ``part`` says about rows with only ``columns``: the OR of each branch's
    parts that read nothing else; None unless ``part`` is such an OR reading other columns
    too, and every branch has a part on ``columns``."""
    branches = disjuncts(part)
    if len(branches) < 2 or set(column_names(part)) <= columns:
        return None
    kept = []
    for branch in branches:
        own = [c for c in conjuncts(branch) if (reads := set(column_names(c))) and reads <= columns]
        if not own:
            return None
        kept.append(nonempty_conjunction(own))
    return Call(fn="or", args=tuple(kept))
