"""What every decorrelated subquery needs first: its SELECT, its FROM with its local
conditions applied, and its correlated conditions (those naming a table of the enclosing
query), split into keys where they are equalities. Shared by the semi/anti and scalar joins
(``planner.sql.subqueries``) and the mark joins (``planner.sql.marks``).

A correlated condition is factored before it is split (``factored``): TPC-DS Q41 writes its
one correlation, ``i_manufact = i1.i_manufact``, inside both branches of an OR, which would
otherwise leave no equality to join on.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.logical.analyzer import Relation
from sparkwire.planner.sql.context import Context
from sparkwire.planner.sql.expressions import expression, unsupported
from sparkwire.planner.sql.joins import plain_filter, tables_of
from sparkwire.planner.sql.syntax import conjuncts, has_subquery


def plain_select(node: exp.Expr) -> exp.Select:
    if isinstance(node, exp.Subquery):
        node = node.this
    if not isinstance(node, exp.Select):
        raise unsupported(node, "a set operation inside a subquery predicate")
    return node


def correlated_source(
    select: exp.Select, outer: Relation, ctx: Context
) -> tuple[Relation, list[exp.Expr]]:
    """A subquery's FROM with its local conditions applied, and its correlated conditions
    (naming a table of the outer query), left for the join that decorrelates it. A part a
    correlated condition shares across its OR branches is taken out (``factored``); what is
    then local (Q41's colours and sizes) filters the subquery's FROM."""
    inner, conditions = ctx.source(select, ctx)
    aliases = {a.qualifier for a in inner.attrs}
    parts = [part for condition in conditions for part in factored(condition)]
    correlated = [p for p in parts if not tables_of(p) <= aliases]
    for condition in correlated:
        if has_subquery(condition):
            raise unsupported(condition, "a correlated condition holding another subquery")
    return plain_filter(inner, [p for p in parts if tables_of(p) <= aliases]), correlated


def factored(condition: exp.Expr) -> list[exp.Expr]:
    """The conjuncts of ``condition``, with the conjuncts every branch of a top-level OR
    shares taken out of it: ``(A AND p) OR (A AND q)`` gives ``A`` and ``(p OR q)``, and
    ``A OR (A AND q)`` gives ``A``. Sound in SQL's three-valued logic: AND and OR over
    TRUE, NULL and FALSE (Kleene's logic) distribute over each other and absorb as in
    Boolean algebra, so the result is the same value, NULL included, for every row. The
    same rewrite on planned expressions is ``planner.logical.predicates.factor_common``;
    this one runs on the SQL tree, before a condition is split into local and correlated."""
    branches = _disjuncts(condition)
    if len(branches) < 2:
        return conjuncts(condition)
    parts = [conjuncts(branch) for branch in branches]
    common = [p for i, p in enumerate(parts[0]) if p not in parts[0][:i]
              and all(p in other for other in parts[1:])]
    if not common:
        return [condition]
    rests = [[p for p in branch if p not in common] for branch in parts]
    if not all(rests):  # a branch is all common: the OR is just that
        return common
    return [*common, exp.paren(exp.or_(*(exp.and_(*rest) for rest in rests)))]


def _disjuncts(node: exp.Expr) -> list[exp.Expr]:
    node = node.unnest() if isinstance(node, exp.Paren) else node
    if isinstance(node, exp.Or):
        return [*_disjuncts(node.this), *_disjuncts(node.expression)]
    return [node]


def correlation_key(
    condition: exp.Expr, inner: Relation, outer: Relation
) -> tuple[ex.Expr, ex.Expr] | None:
    """``(inner side resolved, outer side as written)`` of a correlated equality; the
    outer side is resolved again, with the subquery's value, by the join."""
    if not isinstance(condition, exp.EQ):
        return None
    a, b = expression(condition.this), expression(condition.expression)
    for first, second in ((a, b), (b, a)):
        resolved = inner.scope.probe(first)
        if resolved is not None and outer.scope.probe(second) is not None:
            return resolved, second
    return None
