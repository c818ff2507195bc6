"""Grouping sets (``ROLLUP``, ``CUBE``, ``GROUPING SETS``; ``df.rollup``, ``df.cube``) as
Spark plans them, for both front ends: one ``Expand`` below one ordinary aggregate.

The ``Expand`` emits each input row once per set, the keys a set leaves out NULLed, plus
the set's grouping id (Spark's ``spark_grouping_id``: bit ``n - 1 - i`` set when key ``i``
is not in the set). The aggregate then groups by the expanded keys and the id, so the
existing two-phase aggregate and its shuffle apply unchanged, and the id keeps a key NULLed
by the expansion apart from a NULL key value. Aggregate calls read the input's own columns,
which the ``Expand`` passes through unchanged (``sum(a) ... GROUP BY ROLLUP(a)`` sums every
``a``).

``grouping(k)`` and ``grouping_id(k...)`` (``expressions.Grouping``) become expressions over
the id, with Spark's types (tinyint, bigint) and rules: ``grouping``'s column must be a
group key, ``grouping_id``'s columns all the keys in order, or none; outside grouping sets
both are refused. Two equal grouping sets, which Spark answers with duplicate rows, are
refused: the aggregate could not tell them apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, product

import pyarrow as pa

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.limits import MAX_GROUPING_KEYS, MAX_GROUPING_SETS
from sparkwire.planner.logical.aggregation import GroupKey, analyze_aggregate
from sparkwire.planner.logical.analyzer import Attribute, Relation, check_unique, fresh
from sparkwire.planner.logical.expressions import AggCall, Call, Case, Column, Expr, Grouping, Lit, NamedExpr
from sparkwire.planner.logical.plan import Expand, Project
from sparkwire.planner.logical.render import sql
from sparkwire.planner.logical.tree import transform, walk

#: The grouping id column's name, as Spark's plans show it.
GROUPING_ID = "spark_grouping_id"

#: A grouping set: the positions of the keys it groups by.
GroupingSet = frozenset[int]


def rollup(positions: Sequence[int]) -> list[GroupingSet]:
    """``ROLLUP(k0, k1, ...)``: every prefix of the keys, longest first."""
    return [frozenset(positions[:n]) for n in range(len(positions), -1, -1)]


def cube(positions: Sequence[int]) -> list[GroupingSet]:
    """``CUBE(k0, k1, ...)``: every subset of the keys, largest first."""
    return [frozenset(c) for n in range(len(positions), -1, -1) for c in combinations(positions, n)]


def crossed(parts: Sequence[Sequence[GroupingSet]]) -> list[GroupingSet]:
    """``GROUP BY a, ROLLUP(b, c)``: one set from each part, united, for every choice."""
    return [frozenset().union(*choice) for choice in product(*parts)]


@dataclass(frozen=True)
class Expanded:
    """The ``Expand`` over the input (``relation``: the input's attributes, then the
    expanded keys', then the id's) and the group keys over it, the id last; ``original``
    holds the keys as the front end resolved them against the input, which
    ``over_expanded`` matches; ``grouping_id`` is the id's column."""

    relation: Relation
    keys: tuple[GroupKey, ...]
    original: tuple[Expr, ...]
    sets: tuple[int, ...]
    grouping_id: Column


def expand(relation: Relation, keys: Sequence[GroupKey], sets: Sequence[GroupingSet],
           taken: set[str]) -> Expanded:
    """``relation`` expanded by ``sets`` of ``keys`` (resolved against it, each with the
    attribute its column has after the aggregate); ``taken`` (case-folded names) gets the
    new columns' names."""
    n = len(keys)
    if n > MAX_GROUPING_KEYS:
        raise AnalysisError(f"{n} grouping keys exceed the limit of {MAX_GROUPING_KEYS}")
    ids = [sum(1 << (n - 1 - i) for i in range(n) if i not in s) for s in sets]
    if len(ids) > MAX_GROUPING_SETS:
        raise AnalysisError(f"{len(ids)} grouping sets exceed the limit of {MAX_GROUPING_SETS}")
    if len(set(ids)) != len(ids):
        raise AnalysisError("the same grouping set twice is not supported by sparkwire "
                            "(Spark repeats its rows)")
    taken |= {a.internal.casefold() for a in relation.attrs}
    named = [NamedExpr(name=fresh(k.attr.name, taken), expr=k.expr) for k in keys]
    gid = fresh(GROUPING_ID, taken)
    plan = Expand(input=relation.plan, keys=tuple(named), sets=tuple(ids), grouping_id=gid)
    expanded = [Attribute(k.attr.name, e.name, k.attr.type) for k, e in zip(keys, named, strict=True)]
    gid_attr = Attribute(GROUPING_ID, gid, pa.int64())
    group = [GroupKey(a.column, k.attr) for a, k in zip(expanded, keys, strict=True)]
    group.append(GroupKey(gid_attr.column, Attribute(GROUPING_ID, fresh(GROUPING_ID, taken), pa.int64())))
    return Expanded(Relation(plan, (*relation.attrs, *expanded, gid_attr)), tuple(group),
                    tuple(k.expr for k in keys), tuple(ids), gid_attr.column)


def aggregate_sets(relation: Relation, keys: Sequence[GroupKey], sets: Sequence[GroupingSet],
                   outputs: Sequence[tuple[str, Expr]]) -> Relation:
    """The DataFrame API's ``rollup(...).agg(...)`` and ``cube(...).agg(...)``: the keys,
    then ``outputs`` (as the user wrote them: resolved here, against ``relation``), as
    PySpark's columns; the grouping id stays inside. SQL builds the same ``Expand`` and
    aggregate, with its own projection (``planner.sql.outputs``)."""
    taken = {a.internal.casefold() for a in relation.attrs}
    resolved = [(name, relation.scope.resolve(expr)) for name, expr in outputs]
    expanded = expand(relation, keys, sets, taken)
    aggregation = analyze_aggregate(
        expanded.relation, expanded.keys, [(n, over_expanded(e, expanded)) for n, e in resolved],
        keys_by="expression", fresh_names=taken,
    )
    mid = aggregation.relation
    check_unique([*(k.attr.name for k in keys), *(name for name, _ in outputs)])
    columns = [NamedExpr(name=k.attr.name, expr=k.attr.column) for k in expanded.keys[:-1]]
    attrs = [k.attr for k in expanded.keys[:-1]]
    for name, expr in aggregation.outputs:
        columns.append(NamedExpr(name=name, expr=expr))
        attrs.append(Attribute(name, name, mid.scope.type_of(expr)))
    return Relation(Project(input=mid.plan, columns=tuple(columns)), tuple(attrs))


def over_expanded(expr: Expr, expanded: Expanded) -> Expr:
    """A resolved output or HAVING condition over the expanded columns: each part equal to
    a key (outside aggregate calls, which read the input's own columns) is that key's
    expanded column, each ``grouping``/``grouping_id`` an expression over the id."""
    columns = {k: g.expr for k, g in zip(expanded.original, expanded.keys[:-1], strict=True)}

    def replace(node: Expr) -> Expr | None:
        if isinstance(node, AggCall):
            return node
        if isinstance(node, Grouping):
            return _answer(node, expanded)
        return columns.get(node)

    return transform(expr, replace)


def refuse_grouping(exprs: Sequence[Expr]) -> None:
    """Spark's error for ``grouping``/``grouping_id`` in an aggregate without grouping sets."""
    for expr in exprs:
        found = next((n for n in walk(expr) if isinstance(n, Grouping)), None)
        if found is not None:
            raise AnalysisError(f"{sql(found)}: grouping()/grouping_id() can only be used with "
                                "GroupingSets/Cube/Rollup")


def _answer(node: Grouping, expanded: Expanded) -> Expr:
    """``grouping(k)``: 1 in the sets without ``k``, else 0 (tinyint); ``grouping_id()``:
    the id itself."""
    keys = expanded.original
    if node.fn == "grouping_id":
        if node.args and tuple(node.args) != keys:
            raise AnalysisError(
                f"columns of {sql(node)} do not match the grouping columns "
                f"({', '.join(sql(k) for k in keys)})")
        return expanded.grouping_id
    if node.args[0] not in keys:
        raise AnalysisError(f"column of {sql(node)} is not a grouping column "
                            f"({', '.join(sql(k) for k in keys)})")
    bit = 1 << (len(keys) - 1 - keys.index(node.args[0]))
    without = [Lit(value=s) for s in expanded.sets if s & bit]
    one, zero = Lit(value=1, type="int8"), Lit(value=0, type="int8")
    if len(without) in (0, len(expanded.sets)):
        return one if without else zero
    test = Call(fn="in", args=(expanded.grouping_id, *without))
    return Case(branches=((test, one),), otherwise=zero)

