"""Subqueries in WHERE (and in an inner join's ON) are decorrelated here, as joins:

- ``EXISTS (q)`` / ``NOT EXISTS (q)`` become a semi / anti join of the outer relation with
  ``q``'s FROM and local conditions, on ``q``'s correlated conditions (equalities become
  keys, anything else the residual: Q21's ``l2.l_suppkey <> l1.l_suppkey``);
- ``x IN (q)`` a semi join on ``x = q's column``; ``NOT x IN (q)`` a null-aware anti join
  (``NOT IN`` semantics, a NULL in ``q`` keeps nothing);
- a scalar subquery in a condition (or, correlated, in a SELECT list: ``scalar_columns``,
  for ``planner.sql.outputs``): uncorrelated, any query, a cross join with its one
  row (which the cutter broadcasts; ``planner.sql.scalars``, with Spark's check that it
  returned at most one row); correlated by equalities, ``q`` grouped by its correlated
  columns and joined on them, a value that is no aggregate checked per group
  (``planner.logical.scalars``): an inner join where the subquery is compared at the top
  of the condition and its value over no rows is NULL (a missing group then fails the
  comparison anyway), else a left join, a missing group reading the value over no rows
  (``aggregation.over_no_rows``: a ``count`` is 0, not NULL);
- ``EXISTS`` and ``IN (q)`` anywhere else in a condition (under OR, NOT, CASE) and a
  correlated ``NOT IN``: mark joins (``planner.sql.marks``), the condition then a filter
  over the marks.

What every kind shares (the subquery's source, correlated conditions factored across OR
branches, their keys) is ``planner.sql.correlation``.

sqlglot's own ``unnest_subqueries`` is not used: its output for correlated non-equality
conditions (arrays of keys filtered by lambdas, Q21) has no distributed plan, and its
``LEFT JOIN ... IS NULL`` form would need rewriting back into the anti join built here
directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sqlglot import exp

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.logical.aggregation import over_no_rows
from sparkwire.planner.logical.analyzer import Attribute, Relation, analyze_join, fresh
from sparkwire.planner.logical.plan import Filter, JoinType, Project
from sparkwire.planner.logical.predicates import conjunction, nonempty_conjunction
from sparkwire.planner.logical.scalars import scalar_value
from sparkwire.planner.logical.tree import has_aggregate, has_window, transform
from sparkwire.planner.sql.context import Context
from sparkwire.planner.sql.correlation import correlated_source, correlation_key, plain_select
from sparkwire.planner.sql.errors import SqlError
from sparkwire.planner.sql.expressions import expression, unsupported
from sparkwire.planner.sql.marks import marked, predicate_subqueries
from sparkwire.planner.sql.joins import alias_of, plain_filter, tables_of
from sparkwire.planner.sql.scalars import subquery_tag, uncorrelated_value
from sparkwire.planner.sql.syntax import conjuncts, has_subquery, in_nested_query


def subquery_filters(relation: Relation, conditions: Sequence[exp.Expr], ctx: Context) -> Relation:
    """``relation`` filtered by WHERE conditions: the plain ones first, as one filter, then
    each one holding a subquery, as the join that decorrelates it."""
    relation = plain_filter(relation, [c for c in conditions if not has_subquery(c)])
    for condition in conditions:
        if has_subquery(condition):
            relation = _subquery_condition(relation, condition, ctx)
    return relation


def _subquery_condition(relation: Relation, node: exp.Expr, ctx: Context) -> Relation:
    negated = isinstance(node, exp.Not)
    inner = node.this.unnest() if negated else node
    if isinstance(inner, exp.Exists):
        return _exists(relation, inner.this, "anti" if negated else "semi", ctx)
    if isinstance(inner, exp.In) and inner.args.get("query") is not None:
        return _in_subquery(relation, inner, negated, ctx)
    if predicate_subqueries(node):  # under OR, NOT, CASE...: mark joins
        relation, node = marked(relation, node, ctx)
    return _scalar_comparison(relation, node, ctx)


def _exists(relation: Relation, query: exp.Expr, how: JoinType, ctx: Context) -> Relation:
    select = plain_select(query)
    inner, correlated = correlated_source(select, relation, ctx)
    local, _ = _sourcetables_of(select, ctx)
    inner, correlated = _isolated(inner, correlated, local)
    condition = conjunction([expression(c) for c in correlated])
    if condition is None:
        # Uncorrelated: every outer row is kept (semi) or dropped (anti) alike, decided by
        # whether the subquery has a row; a keyless semi/anti join says exactly that.
        condition = ex.Lit(value=True)
    plan, attrs = analyze_join(relation.plan, relation.attrs, inner.plan, inner.attrs, how, condition)
    return Relation(plan, attrs)


def _in_subquery(relation: Relation, node: exp.In, negated: bool, ctx: Context) -> Relation:
    """``x IN (q)``: an uncorrelated ``q`` is translated whole (GROUP BY, HAVING ...) and
    joined on its one column; a correlated one by its FROM and conditions."""
    query = node.args["query"]
    select = plain_select(query.this if isinstance(query, exp.Subquery) else query)
    if len(select.expressions) != 1:
        raise SqlError.at(node, "IN (subquery) needs a subquery of one column")
    local, correlated = _sourcetables_of(select, ctx)
    if correlated:
        inner, correlated = correlated_source(select, relation, ctx)
        if select.args.get("group") is not None or select.args.get("having") is not None:
            raise unsupported(node, "a correlated IN subquery with GROUP BY or HAVING")
        inner, value = _with_value(inner, select.expressions[0])
    else:
        inner = ctx.query(select, ctx)
        value = inner.attrs[0]
    inner, correlated = _isolated(inner, correlated, local)
    tagged = next(a for a in inner.attrs if a.internal == value.internal)
    key_eq = ex.Call(fn="eq", args=(expression(node.this), ex.Column(name=f"{tagged.qualifier}.{tagged.name}")))
    parts = [key_eq, *(expression(c) for c in correlated)]
    if negated and len(parts) > 1:  # a null-aware anti join has one key: a mark instead
        return _scalar_comparison(*marked(relation, exp.Not(this=node.copy()), ctx), ctx)
    plan, attrs = analyze_join(relation.plan, relation.attrs, inner.plan, inner.attrs,
                               "anti" if negated else "semi", conjunction(parts))
    if negated:
        plan = plan.model_copy(update={"null_aware": True})
    return Relation(plan, attrs)


def _isolated(
    inner: Relation, correlated: list[exp.Expr], local: set[str]
) -> tuple[Relation, list[exp.Expr]]:
    """``inner`` under a table alias of its own, its columns named by their (unique)
    internal names, and the correlated conditions rewritten to name them so: an alias
    the subquery shares with the outer query (Q17's ``lineitem``) cannot make a
    condition ambiguous."""
    tag = subquery_tag()
    scope = inner.scope
    renamed = []
    for condition in correlated:
        copy = condition.copy()
        for column in list(copy.find_all(exp.Column)):
            if column.table not in local:
                continue  # the outer query's: SQL resolves the subquery's own aliases first
            attr = scope.lookup(f"{column.table}.{column.name}")
            column.replace(exp.column(attr.internal, table=tag))
        renamed.append(copy)
    attrs = tuple(replace(a, name=a.internal, qualifier=tag) for a in inner.attrs)
    return Relation(inner.plan, attrs), renamed


def _sourcetables_of(select: exp.Select, ctx: Context) -> tuple[set[str], list[exp.Expr]]:
    """The aliases a SELECT's FROM defines and its conditions naming other tables."""
    source = select.args.get("from_") or select.args.get("from")
    if source is None:
        raise unsupported(select, "a subquery without FROM")
    aliases = {alias_of(source.this), *(alias_of(j.this) for j in select.args.get("joins") or [])}
    conditions = [
        *(p for j in select.args.get("joins") or [] if j.args.get("on") is not None
          for p in conjuncts(j.args["on"])),
        *(conjuncts(select.args["where"].this) if select.args.get("where") is not None else []),
    ]
    return aliases, [c for c in conditions if not tables_of(c) <= aliases]


def _scalar_comparison(relation: Relation, node: exp.Expr, ctx: Context) -> Relation:
    """A condition holding scalar subqueries: each one joined in as a column, then the
    condition is a plain filter over it (``scalar_columns``)."""
    relation, replaced, defaults = scalar_columns(relation, node, ctx, filtering=True)
    predicate = _resolve_internal(relation, expression(replaced))
    predicate = transform(predicate, lambda n: defaults.get(n.name) if isinstance(n, ex.Column) else None)
    return Relation(Filter(input=relation.plan, predicate=predicate), relation.attrs)


def scalar_columns(
    relation: Relation, node: exp.Expr, ctx: Context, filtering: bool = False,
) -> tuple[Relation, exp.Expr, dict[str, ex.Expr]]:
    """``relation`` with each scalar subquery of ``node`` joined in as a column, a copy of
    ``node`` naming those columns instead, and what each column reads where a correlated
    subquery's group is missing (by column; the value over no rows, a ``count`` 0). An
    uncorrelated one is any query, one row with Spark's row check (``planner.sql.scalars``);
    a correlated one is grouped by its correlated columns and joined on them: an inner join
    where ``filtering`` and it is compared at the top of the condition (a missing group
    fails the comparison anyway), else a left join."""
    replaced = node.copy()
    defaults: dict[str, ex.Expr] = {}
    for sub in [s for s in replaced.find_all(exp.Subquery) if not in_nested_query(s, replaced)]:
        if _correlated(sub, ctx):
            value, on, empty = _correlated_value(sub, relation, ctx)
            inner = empty is None and filtering and _null_dropped(sub, replaced)
            plan, attrs = analyze_join(relation.plan, relation.attrs, value.plan, value.attrs,
                                       "inner" if inner else "left", on)
        else:
            value, empty = uncorrelated_value(sub, ctx), None
            plan, attrs = analyze_join(relation.plan, relation.attrs, value.plan, value.attrs, "cross", None)
        relation = Relation(plan, attrs)
        # a join lists the right side's columns last: the value is the last
        column = relation.attrs[-1].internal
        if empty is not None:  # a missing group reads the value over no rows
            matched = relation.attrs[-len(value.attrs)].column  # a key: NULL only there
            defaults[column] = ex.Case(branches=((ex.Call(fn="is_null", args=(matched,)), empty),),
                                       otherwise=ex.Column(name=column))
        sub.replace(exp.column(column))
    return relation, replaced, defaults


def correlated_subqueries(node: exp.Expr, ctx: Context) -> list[exp.Subquery]:
    """The scalar subqueries of ``node`` (outside nested queries) that name outer columns."""
    return [s for s in node.find_all(exp.Subquery)
            if not in_nested_query(s, node) and _correlated(s, ctx)
            and not (isinstance(s.parent, exp.In) and s.parent.args.get("query") is s)]


_COMPARISONS = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE)


def _null_dropped(sub: exp.Subquery, condition: exp.Expr) -> bool:
    """Whether ``condition`` cannot hold where the subquery's value is NULL, so an inner
    join may drop the outer rows whose group is missing: the subquery compared at the top
    of the condition. Under OR, NOT or a function the row may still pass, and the join
    must keep it (a left join)."""
    return sub.parent is condition and isinstance(condition, _COMPARISONS)


def _correlated(sub: exp.Subquery, ctx: Context) -> bool:
    """Whether a SELECT's conditions name a table outside its FROM (a set operation, or
    a SELECT whose only outer references are elsewhere, is translated as uncorrelated,
    which refuses such a reference)."""
    select = sub.this
    return isinstance(select, exp.Select) and bool(_sourcetables_of(select, ctx)[1])


def _correlated_value(
    sub: exp.Subquery, relation: Relation, ctx: Context
) -> tuple[Relation, ex.Expr, ex.Expr | None]:
    """A correlated scalar subquery's value per correlation key, the condition joining it
    to ``relation`` (its correlated equalities), and what an outer row with no group reads:
    None for NULL (a value that is no aggregate: no row), else the aggregate over no rows
    (``over_no_rows``: a count is 0)."""
    select = plain_select(sub.this)
    if len(select.expressions) != 1:
        raise SqlError.at(sub, "a scalar subquery needs exactly one column")
    for clause in ("group", "having", "distinct", "order", "limit"):
        if select.args.get(clause) is not None:
            raise unsupported(sub, f"{clause.upper()} in a correlated scalar subquery")
    inner, correlated = correlated_source(select, relation, ctx)
    keys: list[tuple[ex.Expr, ex.Expr]] = []
    for condition in correlated:
        pair = correlation_key(condition, inner, relation)
        if pair is None:
            raise unsupported(condition, "a correlated scalar subquery condition other than equality")
        keys.append(pair)
    item = select.expressions[0]
    value = inner.scope.resolve(expression(item.unalias() if isinstance(item, exp.Alias) else item))
    if has_window(value):
        raise unsupported(item, "a window function in a scalar subquery")
    tag = subquery_tag()
    value_rel = scalar_value(inner, [k for k, _ in keys], value, tag)
    on = nonempty_conjunction([
        ex.Call(fn="eq", args=(outer, ex.Column(name=f"{tag}.{key_attr.name}")))
        for (_, outer), key_attr in zip(keys, value_rel.attrs[:-1], strict=True)
    ])
    return value_rel, on, over_no_rows(value) if has_aggregate(value) else None


def _with_value(inner: Relation, item: exp.Expr) -> tuple[Relation, Attribute]:
    """The relation with an IN subquery's value as a column (appended unless it is one)."""
    value = inner.scope.resolve(expression(item.unalias() if isinstance(item, exp.Alias) else item))
    ref = inner.scope.attribute_of(value)
    if ref is not None:
        return inner, ref
    name = fresh("_in", {a.internal.casefold() for a in inner.attrs})
    attr = Attribute(name, name, inner.scope.type_of(value))
    items = (*(ex.NamedExpr(name=a.internal, expr=a.column) for a in inner.attrs),
             ex.NamedExpr(name=name, expr=value))
    return Relation(Project(input=inner.plan, columns=items), (*inner.attrs, attr)), attr


def _resolve_internal(relation: Relation, expr: ex.Expr) -> ex.Expr:
    """Resolve user references; names already internal (planner-made) pass as they are."""
    internals = {a.internal for a in relation.attrs}

    def replace_ref(node: ex.Expr) -> ex.Expr | None:
        if isinstance(node, ex.Column):
            if node.name in internals:
                return node
            return relation.scope.resolve(node)
        return None

    return transform(expr, replace_ref)
