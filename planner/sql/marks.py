"""``EXISTS (q)`` and ``x IN (q)`` where a semi or anti join cannot stand for them: under
OR (TPC-DS Q10 and Q35's ``EXISTS (web) OR EXISTS (catalog)``, Q45's ``zip IN (...) OR
item IN (SELECT ...)``), under a NOT of more than the predicate itself, inside a CASE, in
the SELECT list of a query that does not aggregate (``outputs``). Each
becomes a **mark**: a boolean the condition then reads like any column, as DuckDB's and
DataFusion's mark joins make it. Here it is built from ordinary operators, so the cutter
plans it as it plans any join (the subquery's side broadcast when small, else both sides
shuffled on the keys):

- ``EXISTS (q)`` correlated by equalities: the outer relation left-joined to the DISTINCT
  correlation keys of ``q``, so no outer row is duplicated; the mark is "a key matched"
  (a key that matched is not NULL). Uncorrelated: joined to ``count(*)`` of ``q``, one row,
  the mark ``count > 0``. EXISTS is never NULL.
- ``x IN (q)``: the same, ``q``'s value one more key, matched to ``x``. SQL's three-valued
  logic makes an unmatched ``x`` NULL, not FALSE, when ``x`` is NULL or ``q`` (its rows of
  that correlation) holds a NULL, unless those rows are none; a second left join, to
  ``count(*)`` and ``count(value)`` of ``q`` per correlation key, tells which. Where the
  condition cannot tell NULL from FALSE (the predicate reached from the top of a WHERE
  condition through AND and OR only: both drop the row, whatever else the condition says,
  since NULL is "TRUE or FALSE, unknown"), that join is left out.

A correlated condition that is not an equality has no DISTINCT key to join on without
duplicating outer rows: refused, naming it.
"""

from __future__ import annotations

import pyarrow as pa
from sqlglot import exp

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.logical.analyzer import Attribute, Relation, analyze_join
from sparkwire.planner.logical.plan import Aggregate, JoinType
from sparkwire.planner.logical.predicates import conjunction
from sparkwire.planner.sql.context import Context
from sparkwire.planner.sql.correlation import correlated_source, correlation_key, plain_select
from sparkwire.planner.sql.errors import SqlError
from sparkwire.planner.sql.expressions import expression, unsupported
from sparkwire.planner.sql.syntax import in_nested_query, is_lambda_exists

_BIGINT = pa.int64()


def predicate_subqueries(condition: exp.Expr) -> list[exp.Expr]:
    """The ``EXISTS`` and ``IN (subquery)`` nodes of ``condition``, outside nested queries."""
    return [
        node for node in condition.find_all(exp.Exists, exp.In)
        if ((isinstance(node, exp.Exists) and not is_lambda_exists(node))
            or node.args.get("query") is not None)
        and not in_nested_query(node, condition)
    ]


def marked(relation: Relation, condition: exp.Expr, ctx: Context,
           value: bool = False) -> tuple[Relation, exp.Expr]:
    """``relation`` with a mark joined in for each predicate subquery of ``condition`` (a
    WHERE conjunct, or with ``value`` an expression whose value is kept: a SELECT item,
    where NULL and FALSE differ), and the condition reading the marks instead (columns by
    their internal names, which ``subqueries`` resolves as they are)."""
    replaced = condition.copy()
    for node in predicate_subqueries(replaced):
        exact = value or not _null_as_false(node, replaced)
        if isinstance(node, exp.In):
            relation, mark = _in_mark(relation, node, exact, ctx)
        else:
            relation, mark = _exists_mark(relation, plain_select(node.this), ctx)
        node.replace(exp.paren(mark))
    return relation, replaced


def _null_as_false(node: exp.Expr, top: exp.Expr) -> bool:
    """Whether ``node`` reaches ``top`` through AND, OR and parentheses only: then no row
    passes the filter with ``node`` NULL that would not pass with it FALSE."""
    parent = node.parent
    while parent is not None and node is not top:
        if not isinstance(parent, exp.And | exp.Or | exp.Paren):
            return False
        node, parent = parent, parent.parent
    return True


def _exists_mark(relation: Relation, select: exp.Select, ctx: Context) -> tuple[Relation, exp.Expr]:
    inner, keys = _keyed_source(select, relation, ctx)
    tag = _tag(relation)
    if not keys:
        relation = _counts_joined(relation, inner, keys, None, tag)
        return relation, exp.GT(this=exp.column(f"{tag}_rows"), expression=exp.Literal.number(0))
    relation = _distinct_joined(relation, inner, keys, tag)
    return relation, _not_null(f"{tag}_key0")


def _in_mark(relation: Relation, node: exp.In, exact: bool, ctx: Context) -> tuple[Relation, exp.Expr]:
    query = node.args["query"]
    select = plain_select(query)
    if len(select.expressions) != 1:
        raise SqlError.at(node, "IN (subquery) needs a subquery of one column")
    inner, keys = _keyed_source(select, relation, ctx)
    if keys:
        if select.args.get("group") is not None or select.args.get("having") is not None:
            raise unsupported(node, "a correlated IN subquery with GROUP BY or HAVING")
        item = select.expressions[0]
        value = inner.scope.resolve(expression(item.unalias() if isinstance(item, exp.Alias) else item))
    else:  # uncorrelated: the whole query (GROUP BY, HAVING, ...), its one column the value
        inner = ctx.query(select, ctx)
        value = inner.attrs[0].column
    tag = _tag(relation)
    probe = expression(node.this)
    relation = _distinct_joined(relation, inner, [*keys, (value, probe)], tag)
    matched = _not_null(f"{tag}_key{len(keys)}")
    if not exact:
        return relation, matched
    relation = _counts_joined(relation, inner, keys, value, tag)
    rows, values = exp.column(f"{tag}_rows"), exp.column(f"{tag}_values")
    none = exp.or_(exp.Is(this=rows.copy(), expression=exp.Null()),
                   exp.EQ(this=rows.copy(), expression=exp.Literal.number(0)))
    unknown = exp.or_(exp.Is(this=node.this.copy(), expression=exp.Null()), exp.GT(this=rows, expression=values))
    return relation, exp.Case(ifs=[
        exp.If(this=matched, true=exp.true()),
        exp.If(this=none, true=exp.false()),
        exp.If(this=unknown, true=exp.null()),
    ], default=exp.false())


def _tag(relation: Relation) -> str:
    """The prefix of a mark's columns: the first ``_mkN`` no column of ``relation`` has
    (counted per query, so a plan reads the same whatever was planned before it)."""
    taken = [a.internal.casefold() for a in relation.attrs]
    n = 1
    while any(t.startswith(f"_mk{n}_") for t in taken):
        n += 1
    return f"_mk{n}"


def _keyed_source(
    select: exp.Select, outer: Relation, ctx: Context
) -> tuple[Relation, list[tuple[ex.Expr, ex.Expr]]]:
    """The subquery's FROM and local conditions, and its correlation keys: (inner side
    resolved, outer side as written) of each correlated equality."""
    inner, correlated = correlated_source(select, outer, ctx)
    keys = []
    for condition in correlated:
        pair = correlation_key(condition, inner, outer)
        if pair is None:
            raise unsupported(condition, "a correlated condition other than an equality in a subquery "
                                         "under OR, NOT or CASE")
        keys.append(pair)
    return inner, keys


def _distinct_joined(
    relation: Relation, inner: Relation, keys: list[tuple[ex.Expr, ex.Expr]], tag: str
) -> Relation:
    """``relation`` LEFT JOIN (SELECT DISTINCT inner keys FROM inner) ON the outer sides
    equal to them: each outer row once, the keys NULL where none matched."""
    items = tuple(ex.NamedExpr(name=f"{tag}_key{i}", expr=k) for i, (k, _) in enumerate(keys))
    attrs = tuple(Attribute(i.name, i.name, inner.scope.type_of(i.expr), tag) for i in items)
    on = conjunction([ex.Call(fn="eq", args=(outer, ex.Column(name=f"{tag}.{a.name}")))
                      for (_, outer), a in zip(keys, attrs, strict=True)])
    return _joined(relation, Aggregate(input=inner.plan, keys=items, aggregates=()), attrs, "left", on)


def _counts_joined(
    relation: Relation, inner: Relation, keys: list[tuple[ex.Expr, ex.Expr]],
    value: ex.Expr | None, tag: str,
) -> Relation:
    """``relation`` joined to ``count(*)`` (``{tag}_rows``) and ``count(value)``
    (``{tag}_values``) of ``inner`` per correlation key: a left join, or without keys a
    cross join with the one row of a global count."""
    items = tuple(ex.NamedExpr(name=f"{tag}_group{i}", expr=k) for i, (k, _) in enumerate(keys))
    counts = (ex.NamedExpr(name=f"{tag}_rows", expr=ex.AggCall(fn="count")),
              *(() if value is None else (ex.NamedExpr(name=f"{tag}_values", expr=ex.AggCall(fn="count", arg=value)),)))
    attrs = (*(Attribute(i.name, i.name, inner.scope.type_of(i.expr), tag) for i in items),
             *(Attribute(c.name, c.name, _BIGINT, tag) for c in counts))
    on = conjunction([ex.Call(fn="eq", args=(outer, ex.Column(name=f"{tag}.{a.name}")))
                      for (_, outer), a in zip(keys, attrs[:len(items)], strict=True)])
    plan = Aggregate(input=inner.plan, keys=items, aggregates=counts)
    return _joined(relation, plan, attrs, "left" if keys else "cross", on)


def _joined(relation: Relation, right: Aggregate, attrs: tuple[Attribute, ...], how: JoinType,
            on: ex.Expr | None) -> Relation:
    plan, joined = analyze_join(relation.plan, relation.attrs, right, attrs, how, on)
    return Relation(plan, joined)


def _not_null(name: str) -> exp.Expr:
    return exp.Not(this=exp.Is(this=exp.column(name), expression=exp.Null()))
