"""Uncorrelated scalar subqueries anywhere an expression stands: WHERE (``planner.sql.
subqueries``), the SELECT list and inside its CASEs (TPC-DS q09: fifteen of them), HAVING
and ORDER BY (``planner.sql.outputs``).

Each one is translated whole, as any query (DISTINCT, GROUP BY, HAVING, a set operation,
LIMIT: whatever it holds), made its one row with Spark's row check
(``planner.logical.scalars``), and lifted out of the expression: the expression names the
value's column instead, and the caller joins the value in once (a cross join of one row,
broadcast) before it computes the expression, or after aggregating where the expression is
computed over the aggregate's output.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlglot import exp

from sparkwire.planner.logical.analyzer import Relation, analyze_join
from sparkwire.planner.logical.scalars import one_row
from sparkwire.planner.sql.context import Context
from sparkwire.planner.sql.errors import SqlError
from sparkwire.planner.sql.syntax import in_nested_query

#: A scalar subquery's value: a relation of one row and one column.
Value = Callable[[exp.Subquery], Relation]

_tags = iter(range(1, 1 << 62))


def subquery_tag() -> str:
    """A table alias no query writes and no other subquery of the session takes."""
    return f"_sq{next(_tags)}"


def uncorrelated_value(sub: exp.Subquery, ctx: Context) -> Relation:
    """The one row of an uncorrelated scalar subquery, its column ``<tag>_value``; a
    correlated one is refused when the query inside names a table it does not hold."""
    relation = ctx.query(sub.this, ctx)
    if len(relation.attrs) != 1:
        raise SqlError.at(sub, "a scalar subquery needs exactly one column")
    return one_row(relation, subquery_tag())


def lifted(nodes: Sequence[exp.Expr], value: Value) -> tuple[list[exp.Expr], list[Relation]]:
    """``nodes`` with each scalar subquery (not one nested in another) replaced by the column
    of its value, in copies of the nodes that hold one (copying all of them was a tenth of
    planning TPC-DS), and the values, in order."""
    values: list[Relation] = []
    copies: list[exp.Expr] = []
    for node in nodes:
        if isinstance(node, exp.Subquery):  # a SELECT item that is one, its alias aside
            relation = value(node)
            values.append(relation)
            copies.append(exp.column(relation.attrs[-1].name))
            continue
        if node.find(exp.Subquery) is None:
            copies.append(node)
            continue
        copy = node.copy()
        for sub in [s for s in copy.find_all(exp.Subquery) if not in_nested_query(s, copy)]:
            if isinstance(sub.parent, exp.In) and sub.parent.args.get("query") is sub:
                continue  # IN (subquery): a semi join's, not a value (planner.sql.subqueries)
            relation = value(sub)
            values.append(relation)
            sub.replace(exp.column(relation.attrs[-1].name))
        copies.append(copy)
    return copies, values


def joined(relation: Relation, values: Sequence[Relation]) -> Relation:
    """``relation`` with each one-row value's column appended (a cross join apiece)."""
    for value in values:
        plan, attrs = analyze_join(relation.plan, relation.attrs, value.plan, value.attrs, "cross", None)
        relation = Relation(plan, attrs)
    return relation

