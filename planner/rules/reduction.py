"""A big side of a semi or anti join is first cut down to the rows whose keys the small
side holds (a semi-join reduction, as in distributed databases since SDD-1).

``L SEMI JOIN R ON k`` with a small ``L`` and a big ``R`` would shuffle all of ``R`` to meet
``L``. But only the rows of ``R`` whose key is one of ``L``'s can match, so it becomes
``L SEMI JOIN (R SEMI JOIN keys(L))``: the inner semi join's right side, ``L``'s keys, is
small and is broadcast to ``R``'s tasks, which then send on only the rows that can match.
TPC-H Q4 so shuffles the lineitems of ~57K orders instead of 3.8M lineitem rows. The same
holds for an anti join (an ``L`` row is dropped only by an ``R`` row with one of its keys),
but not for a null-aware one (``NOT IN``), where any NULL key of ``R`` empties the result:
the reduction would drop it. The small side is computed twice, once for its keys, so it
must be cheap as well as small: a scan with filters and projections, not a join or an
aggregate (whose small output may cost a big input: TPC-H Q15's revenue view aggregates
lineitem). Sizes are the planner's estimates (``planner.estimates``).
"""

from __future__ import annotations

from sparkwire.planner.estimates import DEFAULT_BROADCAST_THRESHOLD, estimate_bytes
from sparkwire.planner.expressions import Column, NamedExpr
from sparkwire.planner.plan import (
    Filter, Join, LocalSource, Operator, ParquetScan, Project, operators, output_columns, transform_up,
)
from sparkwire.planner.tree import fresh_name


def reduce_semi_join_inputs(plan: Operator) -> Operator:
    taken = {name for node in operators(plan) for name in output_columns(node)}

    def rewrite(node: Operator) -> Operator:
        if not (isinstance(node, Join) and node.how in ("semi", "anti") and node.left_keys
                and not node.null_aware and _cheap(node.left)
                and estimate_bytes(node.left) <= DEFAULT_BROADCAST_THRESHOLD
                < estimate_bytes(node.right)):
            return node
        names = [fresh_name("_key", taken) for _ in node.left_keys]
        keys = Project(input=node.left, columns=tuple(
            NamedExpr(name=name, expr=key) for name, key in zip(names, node.left_keys, strict=True)))
        reduced = Join(left=node.right, right=keys, how="semi", left_keys=node.right_keys,
                       right_keys=tuple(Column(name=name) for name in names))
        return node.model_copy(update={"right": reduced})

    return transform_up(plan, rewrite)


def _cheap(side: Operator) -> bool:
    """A scan under filters and projections only: computing it again costs one scan."""
    return all(isinstance(node, (ParquetScan, LocalSource, Filter, Project)) for node in operators(side))
