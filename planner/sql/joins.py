"""Ordering inner and comma joins, for the SQL front end.

sqlglot's ``optimize_joins`` gives up on correlated subqueries (a cycle on TPC-H Q2) and
keeps a cross join where a later condition connects the tables, so the translator orders
them here: each table's own conditions are applied to it first; the join starts from the
largest table and adds, each step, the smallest table a condition connects to what is
joined so far (a cross join only when none is connected), with every condition whose
tables are then all present. Dimension tables so join the fact table one by one, small
enough to be broadcast. A table added is first joined to the tables only it connects to
that make it smaller (``_Group``): TPC-H Q3's ``orders`` to the ``customer`` rows of one
segment, so ``lineitem`` probes a fifth of ``orders`` (0.20 -> 0.12 s at SF1), and Q21's
``supplier`` to its one nation.

"Smallest" is the estimated rows of the join it makes, not of the table: when the keys are
unique in the added table, the left rows times the share of that table its filters keep
(TPC-H Q9 meets the ``part`` rows named green before ``orders``, shuffling a twentieth of
``lineitem``), else rows(left) x rows(right) / the larger number of distinct values on
either side of each key pair (``planner.optimizer.estimates.equi_join_rows``, from the footers' key
ranges). Joining TPC-H Q5's
``lineitem`` to ``customer`` on the nation key alone multiplies rows by thousands; joining
it to ``orders`` on the order key does not, though ``orders`` is the larger table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlglot import exp

from sparkwire.planner.logical.analyzer import Relation, analyze_join
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.optimizer.estimates import (equi_join_rows, estimate_bytes, estimate_rows,
                                                  proven_unique)
from sparkwire.planner.logical.plan import Filter
from sparkwire.planner.logical.predicates import conjunction, nonempty_conjunction
from sparkwire.planner.sql.expressions import expression
from sparkwire.planner.sql.syntax import has_subquery, in_nested_query


def plain_filter(relation: Relation, conditions: Sequence[exp.Expr]) -> Relation:
    """``relation`` filtered by conditions without subqueries."""
    if not conditions:
        return relation
    predicate = relation.scope.resolve(nonempty_conjunction([expression(c) for c in conditions]))
    return Relation(Filter(input=relation.plan, predicate=predicate), relation.attrs)


def ordered_joins(
    items: dict[str, Relation], conditions: list[exp.Expr]
) -> tuple[Relation, list[exp.Expr]]:
    """Inner and comma joins of the FROM items, ordered; returns the joined relation and
    the conditions still to apply (those holding subqueries)."""
    plain = [c for c in conditions if not has_subquery(c)]
    rest = [c for c in conditions if has_subquery(c)]
    named = {id(c): frozenset(tables_of(c)) for c in plain}  # asked again and again below

    def tables(condition: exp.Expr) -> frozenset[str]:
        return named[id(condition)]

    filtered = {}
    for alias, relation in items.items():
        own = [c for c in plain if tables(c) == {alias}]
        filtered[alias] = plain_filter(relation, own)
    rest.extend(c for c in plain if not tables(c))
    pending = [c for c in plain if len(tables(c)) > 1]
    size = {alias: estimate_bytes(r.plan) for alias, r in filtered.items()}
    start = max(filtered, key=lambda a: (size[a], -list(filtered).index(a)))
    present, relation = frozenset({start}), filtered[start]
    while len(present) < len(filtered):
        remaining = [a for a in filtered if a not in present]
        connected = [a for a in remaining if _connected(frozenset({a}), present, pending, tables)]
        groups = {a: _Group.reduced(a, filtered, present, pending, tables) for a in connected or remaining}
        rows = {a: _join_order(relation, present, group.relation, group.tables,
                               [c for c in pending if tables(c) <= present | group.tables])
                for a, group in groups.items()}
        pick = groups[min(rows, key=lambda a: (rows[a], size[a], remaining.index(a)))]
        used = {id(c) for c in pick.conditions}
        now = [c for c in pending if id(c) not in used and tables(c) <= present | pick.tables]
        used |= {id(c) for c in now}
        pending = [c for c in pending if id(c) not in used]
        relation = _joined(relation, pick.relation, now)
        present |= pick.tables
    return relation, [*pending, *rest]


#: The FROM items a join condition names (``tables_of``, computed once per condition).
_Tables = Callable[[exp.Expr], frozenset[str]]


def _connected(a: frozenset[str], b: frozenset[str], conditions: list[exp.Expr],
               tables: _Tables) -> bool:
    """Whether a condition on the tables of ``a`` and ``b`` names some of each."""
    return any(tables(c) <= a | b and tables(c) & a and tables(c) & b for c in conditions)


def _joined(left: Relation, right: Relation, conditions: list[exp.Expr]) -> Relation:
    condition = conjunction([expression(c) for c in conditions])
    plan, attrs = analyze_join(left.plan, left.attrs, right.plan, right.attrs,
                               "inner" if condition is not None else "cross", condition)
    return Relation(plan, attrs)


@dataclass(frozen=True)
class _Group:
    """A FROM item to join next, joined first to the items that only it connects to the
    rest and that make it smaller: TPC-H Q3's ``orders`` meets the ``customer`` rows of one
    segment before ``lineitem`` does, so a fifth of ``orders`` is broadcast, not all."""

    tables: frozenset[str]
    relation: Relation
    conditions: tuple[exp.Expr, ...]

    @classmethod
    def reduced(cls, alias: str, items: dict[str, Relation], present: frozenset[str],
                pending: list[exp.Expr], tables: _Tables) -> _Group:
        group = cls(frozenset({alias}), items[alias], ())
        while True:
            used = {id(c) for c in group.conditions}
            own = [c for c in pending if id(c) not in used]
            options = {}
            for other in sorted(items.keys() - present - group.tables):
                single = frozenset({other})
                if _connected(single, present, own, tables) or not _connected(single, group.tables, own, tables):
                    continue
                joint = [c for c in own if tables(c) <= group.tables | single]
                options[other] = (_join_rows(group.relation, group.tables, items[other], single, joint),
                                  joint)
            if not options:
                return group
            other = min(options, key=lambda a: (options[a][0], a))
            rows, joint = options[other]
            if rows >= estimate_rows(group.relation.plan):
                return group
            group = cls(group.tables | {other}, _joined(group.relation, items[other], joint),
                        (*group.conditions, *joint))


def _join_order(left: Relation, left_tables: frozenset[str], right: Relation,
                right_tables: frozenset[str], conditions: list[exp.Expr]) -> tuple[int, bool]:
    """What orders the candidates to join next: the estimated rows (``_join_rows``), then,
    among equal estimates, first those whose keys the footers show unique on the added side:
    an estimate that rests on a key of unknown distinct values (a zip code, taken as unique)
    may hide a join that multiplies rows (TPC-DS q24 joined ``customer_address`` on
    ``s_zip = ca_zip`` before ``customer``: 40M rows where 0.6M, 4.9 s where DuckDB 0.1 s)."""
    pairs = _key_pairs(left, left_tables, right, right_tables, conditions)
    proven = bool(pairs) and proven_unique(right.plan, [b for _, b in pairs])
    return equi_join_rows(left.plan, right.plan, pairs), not proven


def _join_rows(left: Relation, left_tables: frozenset[str], right: Relation,
               right_tables: frozenset[str], conditions: list[exp.Expr]) -> int:
    """Estimated rows of ``left`` (FROM items ``left_tables``) joined to ``right`` on the
    equalities among ``conditions`` of a column of each (``planner.optimizer.estimates.equi_join_rows``)."""
    return equi_join_rows(left.plan, right.plan,
                          _key_pairs(left, left_tables, right, right_tables, conditions))


def _key_pairs(left: Relation, left_tables: frozenset[str], right: Relation,
               right_tables: frozenset[str], conditions: list[exp.Expr]) -> list[tuple[str, str]]:
    """The (left, right) internal column names of the equalities among ``conditions`` of a
    column of each side."""
    pairs = []
    for condition in conditions:
        if not (isinstance(condition, exp.EQ) and isinstance(condition.this, exp.Column)
                and isinstance(condition.expression, exp.Column)):
            continue
        ours, theirs = condition.this, condition.expression
        if ours.table in right_tables:
            ours, theirs = theirs, ours
        if ours.table not in left_tables or theirs.table not in right_tables:
            continue
        try:
            pairs.append((left.scope.lookup(f"{ours.table}.{ours.name}").internal,
                          right.scope.lookup(f"{theirs.table}.{theirs.name}").internal))
        except AnalysisError:
            continue  # ambiguous or computed: no estimate from this condition
    return pairs


def plain_inner(join: exp.Join) -> bool:
    side, kind = (join.args.get("side") or "").upper(), (join.args.get("kind") or "").upper()
    return not side and kind in ("", "INNER", "CROSS") and not join.args.get("using")


def alias_of(node: exp.Expr) -> str:
    return node.alias_or_name if isinstance(node, exp.Table) else node.alias


def tables_of(condition: exp.Expr) -> set[str]:
    """The table aliases a condition names, outside any subquery it holds."""
    return {
        c.table for c in condition.find_all(exp.Column)
        if c.table and not in_nested_query(c, condition)
    }
