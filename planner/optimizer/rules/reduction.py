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
must be cheap as well as small: scans with filters, projections and inner or semi joins
to broadcast-sized sides, not an aggregate (whose small output may cost a big input: TPC-H
Q15's revenue view aggregates lineitem). When ``L`` itself is not cheap, the keys may come
from below it: a semi or anti join keeps some of its left rows, so the keys of its left
input are a superset that cuts as well. TPC-H Q21's ``(L SEMI l2) ANTI l3`` so cuts both
``l2`` and ``l3`` to the 76K order keys of ``L``, one keys subtree (one stage) for both.
An inner join of a small side with an aggregate of a big one, on the aggregate's group
keys, drops whole groups: the aggregate's input is cut the same way before it is grouped
(TPC-H Q17 averages the lineitems of 204 parts instead of all 200K; Q20 sums those of the
``partsupp`` rows of its ``forest`` parts), when the small side has fewer rows than the
aggregate has groups. The rule runs after semi joins are
pushed down and copied, so it sees them in the small side. Keys are taken from
the smaller input of a join that holds them (Q17's filtered ``part``, not the lineitems
joined to it). Sizes are the planner's estimates (``planner.optimizer.estimates``).
"""

from __future__ import annotations

from collections.abc import Callable

from sparkwire.planner.optimizer.estimates import (
    DEFAULT_BROADCAST_THRESHOLD, distinct_combinations, estimate_bytes, estimate_rows,
)
from sparkwire.planner.logical.expressions import Column, Expr, NamedExpr
from sparkwire.planner.logical.plan import (Aggregate, Filter, Join, Operator, operators,
                                            output_columns, Project, transform_up)
from sparkwire.planner.logical.sources import LocalSource, ParquetScan
from sparkwire.planner.logical.tree import column_names, fresh_name


def reduce_semi_join_inputs(plan: Operator) -> Operator:
    taken = {name for node in operators(plan) for name in output_columns(node)}
    made: dict[tuple[Operator, tuple[Expr, ...]], Project] = {}

    def keys_of(source: Operator, keys: tuple[Expr, ...]) -> Project:
        made_keys = made.get((source, keys))
        if made_keys is None:  # the same keys twice are one subtree, so one stage (``stages``)
            made_keys = made[source, keys] = Project(input=source, columns=tuple(
                NamedExpr(name=fresh_name("_key", taken), expr=key) for key in keys))
        return made_keys

    def cut(big: Operator, big_keys: tuple[Expr, ...], source: Operator,
            small_keys: tuple[Expr, ...]) -> Join:
        keys = keys_of(source, small_keys)
        return Join(left=big, right=keys, how="semi", left_keys=big_keys,
                    right_keys=tuple(Column(name=c.name) for c in keys.columns))

    def rewrite(node: Operator) -> Operator:
        if not (isinstance(node, Join) and node.left_keys):
            return node
        if (node.how in ("semi", "anti") and not node.null_aware
                and DEFAULT_BROADCAST_THRESHOLD < estimate_bytes(node.right)):
            source = _key_source(node.left, node.left_keys)
            if source is None:
                return node
            return node.model_copy(update={"right": cut(node.right, node.right_keys, source, node.left_keys)})
        if node.how != "inner":
            return node
        for small, big, small_keys, big_keys in (("left", "right", node.left_keys, node.right_keys),
                                                 ("right", "left", node.right_keys, node.left_keys)):
            source = _key_source(getattr(node, small), small_keys)
            if source is None:
                continue
            reduced = _grouped_by(
                getattr(node, big), big_keys, lambda agg_input, keys: cut(agg_input, keys, source, small_keys),
                estimate_rows(source))
            if reduced is not None:
                return node.model_copy(update={big: reduced})
        return node

    return transform_up(plan, rewrite)


def _grouped_by(op: Operator, keys: tuple[Expr, ...],
                cut: Callable[[Operator, tuple[Expr, ...]], Operator], source: int) -> Operator | None:
    """``op``, an aggregate grouped by ``keys`` (under projections passing them through),
    with its input cut by ``cut`` on the input columns those group keys are, when the keys'
    source has fewer rows (``source``) than the aggregate has groups: an inner join on the
    keys drops whole groups, so their rows need not be aggregated (TPC-H Q17's average per
    part, of the 204 parts the outer query keeps instead of all 200K). Groups are counted
    from the keys' distinct values, as the footers give them: TPC-H Q15's 10K suppliers
    cut none of its 10K revenue groups, and cutting cost it the revenue stage's reuse."""
    if not all(isinstance(key, Column) for key in keys):
        return None
    names = [key.name for key in keys]  # type: ignore[union-attr]
    match op:
        case Project():
            sources = {c.name: c.expr for c in op.columns}
            if not all(isinstance(sources.get(n), Column) for n in names):
                return None
            inner = _grouped_by(op.input, tuple(sources[n] for n in names), cut, source)
            return None if inner is None else op.model_copy(update={"input": inner})
        case Aggregate():
            groups = {g.name: g.expr for g in op.keys}
            if not all(isinstance(groups.get(n), Column) for n in names):
                return None
            inputs = [groups[n].name for n in names]  # type: ignore[union-attr]
            if distinct_combinations(op.input, inputs) <= source:
                return None
            return op.model_copy(update={"input": cut(op.input, tuple(groups[n] for n in names))})
    return None


def _key_source(left: Operator, keys: tuple[Expr, ...]) -> Operator | None:
    """The first input down from ``left`` that is cheap and small and holds every key value
    ``left`` can hold: ``left`` itself, or below filters, projections that pass the key
    columns through, and semi and anti joins (each keeps a subset of its left rows)."""
    names = {name for key in keys for name in column_names(key)}
    node = left
    while True:
        if _cheap(node) and estimate_bytes(node) <= DEFAULT_BROADCAST_THRESHOLD:
            return _narrowest(node, names)
        match node:
            case Filter():
                node = node.input
            case Join(how="semi" | "anti"):
                node = node.left
            case Project() if all(c.expr == Column(name=c.name) for c in node.columns if c.name in names):
                node = node.input
            case _:
                return None


def _narrowest(source: Operator, names: set[str]) -> Operator:
    """``source``, or below it the smaller input of an inner join that holds the key
    columns (through projections passing them): that input's keys are a superset, and
    computing them again costs only that input (TPC-H Q17: the 204 ``part`` keys, not the
    ``lineitem`` rows joined to them). The bigger input is never taken: the smaller one's
    join is what filters it (Q21's lineitem keys are cut by the nation)."""
    node = source
    while True:
        match node:
            case Project() if all(c.expr == Column(name=c.name) for c in node.columns if c.name in names):
                node = node.input
            case Join(how="inner"):
                side, other = ((node.left, node.right) if names <= set(output_columns(node.left))
                               else (node.right, node.left))
                if not names <= set(output_columns(side)) or estimate_bytes(side) > estimate_bytes(other):
                    return source
                node = source = side
            case _:
                return source


def _cheap(side: Operator) -> bool:
    """Scans under filters, projections and inner or semi joins to broadcast-sized sides:
    computing it again costs a scan and the small sides' hash tables."""
    return all(
        isinstance(node, (ParquetScan, LocalSource, Filter, Project))
        or (isinstance(node, Join) and node.how in ("inner", "semi")
            and estimate_bytes(node.right) <= DEFAULT_BROADCAST_THRESHOLD)
        for node in operators(side))
