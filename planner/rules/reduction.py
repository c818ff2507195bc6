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
must be cheap as well as small: scans with filters, projections and inner joins to
broadcast-sized sides, not an aggregate (whose small output may cost a big input: TPC-H
Q15's revenue view aggregates lineitem). When ``L`` itself is not cheap, the keys may come
from below it: a semi or anti join keeps some of its left rows, so the keys of its left
input are a superset that cuts as well. TPC-H Q21's ``(L SEMI l2) ANTI l3`` so cuts both
``l2`` and ``l3`` to the 76K order keys of ``L``, one keys subtree (one stage) for both.
Sizes are the planner's estimates (``planner.estimates``).
"""

from __future__ import annotations

from sparkwire.planner.estimates import DEFAULT_BROADCAST_THRESHOLD, estimate_bytes
from sparkwire.planner.expressions import Column, Expr, NamedExpr
from sparkwire.planner.plan import (
    Filter, Join, LocalSource, Operator, ParquetScan, Project, operators, output_columns, transform_up,
)
from sparkwire.planner.tree import column_names, fresh_name


def reduce_semi_join_inputs(plan: Operator) -> Operator:
    taken = {name for node in operators(plan) for name in output_columns(node)}
    made: dict[tuple[Operator, tuple[Expr, ...]], Project] = {}

    def rewrite(node: Operator) -> Operator:
        if not (isinstance(node, Join) and node.how in ("semi", "anti") and node.left_keys
                and not node.null_aware and DEFAULT_BROADCAST_THRESHOLD < estimate_bytes(node.right)):
            return node
        source = _key_source(node.left, node.left_keys)
        if source is None:
            return node
        keys = made.get((source, node.left_keys))
        if keys is None:  # the same keys twice are one subtree, so one stage (``stages``)
            keys = made[source, node.left_keys] = Project(input=source, columns=tuple(
                NamedExpr(name=fresh_name("_key", taken), expr=key) for key in node.left_keys))
        names = [column.name for column in keys.columns]
        reduced = Join(left=node.right, right=keys, how="semi", left_keys=node.right_keys,
                       right_keys=tuple(Column(name=name) for name in names))
        return node.model_copy(update={"right": reduced})

    return transform_up(plan, rewrite)


def _key_source(left: Operator, keys: tuple[Expr, ...]) -> Operator | None:
    """The first input down from ``left`` that is cheap and small and holds every key value
    ``left`` can hold: ``left`` itself, or below filters, projections that pass the key
    columns through, and semi and anti joins (each keeps a subset of its left rows)."""
    names = {name for key in keys for name in column_names(key)}
    node = left
    while True:
        if _cheap(node) and estimate_bytes(node) <= DEFAULT_BROADCAST_THRESHOLD:
            return node
        match node:
            case Filter():
                node = node.input
            case Join(how="semi" | "anti"):
                node = node.left
            case Project() if all(c.expr == Column(name=c.name) for c in node.columns if c.name in names):
                node = node.input
            case _:
                return None


def _cheap(side: Operator) -> bool:
    """Scans under filters, projections and broadcast-sized inner joins: computing it again
    costs a scan and the small sides' hash tables."""
    return all(
        isinstance(node, (ParquetScan, LocalSource, Filter, Project))
        or (isinstance(node, Join) and node.how == "inner"
            and estimate_bytes(node.right) <= DEFAULT_BROADCAST_THRESHOLD)
        for node in operators(side))
