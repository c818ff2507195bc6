"""SQL statements to logical plans, through the same analyzer the DataFrame API uses.

sqlglot parses the text and normalises it (``planner.sql.normalize``): every column
qualified by its table alias, predicates pushed into joins, constant date arithmetic folded.
This module then walks the SELECT the way a query runs, FROM and its joins, WHERE,
(then its lateral generators, ``planner.sql.generators``), GROUP BY and HAVING, the
SELECT list, DISTINCT, ORDER BY and LIMIT, and builds each step
with ``planner.logical.analyzer``, so a SQL query and the equivalent DataFrame program give the
same plan.

Subqueries in WHERE (and in an inner join's ON) are decorrelated here, as joins:

- ``EXISTS (q)`` / ``NOT EXISTS (q)`` become a semi / anti join of the outer relation with
  ``q``'s FROM and local conditions, on ``q``'s correlated conditions (equalities become
  keys, anything else the residual: Q21's ``l2.l_suppkey <> l1.l_suppkey``);
- ``x IN (q)`` a semi join on ``x = q's column``; ``NOT x IN (q)`` a null-aware anti join
  (``NOT IN`` semantics, a NULL in ``q`` keeps nothing);
- a scalar subquery in a comparison: uncorrelated, a cross join with its one row (which
  the cutter broadcasts); correlated by equalities, ``q`` grouped by its correlated columns
  and inner-joined on them (a comparison with a missing group is never true, so no row is
  lost by the inner join).

sqlglot's own ``unnest_subqueries`` is not used: its output for correlated non-equality
conditions (arrays of keys filtered by lambdas, Q21) has no distributed plan, and its
``LEFT JOIN ... IS NULL`` form would need rewriting back into the anti join built here
directly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from sqlglot import exp

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.logical.analyzer import (
    Attribute,
    Relation,
    analyze_join,
    analyze_set_operation,
    fresh,
)
from sparkwire.planner.logical.predicates import conjunction
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.plan import Aggregate, Filter, JoinType, Project, SetKind
from sparkwire.planner.sql.errors import SqlError
from sparkwire.planner.sql.expressions import expression, unsupported
from sparkwire.planner.sql.generators import lateral
from sparkwire.planner.sql.joins import alias_of, ordered_joins, plain_filter, plain_inner, tables_of
from sparkwire.planner.sql.ordering import hidden_order_keys
from sparkwire.planner.sql.outputs import order_limit, project_or_aggregate
from sparkwire.planner.sql.syntax import conjuncts, has_subquery, inline_windows
from sparkwire.planner.logical.tree import has_aggregate, has_window, transform
from sparkwire.planner.logical import types

Catalog = Mapping[str, Relation]


@dataclass(frozen=True)
class _Context:
    catalog: Catalog
    ctes: Mapping[str, Relation]

    def table(self, node: exp.Table) -> Relation:
        name = node.name.casefold()
        if node.args.get("db") is not None:
            raise unsupported(node, "a table with a schema or catalog name")
        found = self.ctes.get(name) or self.catalog.get(name)
        if found is None:
            known = ", ".join(sorted({*self.ctes, *self.catalog})) or "(none)"
            raise SqlError.at(node, f"unknown table {node.name!r}; known tables: {known}")
        return found


def translate(node: exp.Expr, catalog: Catalog) -> Relation:
    return _query(node, _Context(catalog, {}))


def _query(node: exp.Expr, ctx: _Context) -> Relation:
    with_ = node.args.get("with_") or node.args.get("with")
    if with_ is not None:
        ctes = dict(ctx.ctes)
        for cte in with_.expressions:
            relation = _query(cte.this, _Context(ctx.catalog, ctes))
            ctes[cte.alias.casefold()] = _renamed_columns(relation, cte.args.get("alias"))
        ctx = _Context(ctx.catalog, ctes)
    match node:
        case exp.Select():
            return _select(node, ctx)
        case exp.Union() | exp.Intersect() | exp.Except():
            return _set_operation(node, ctx)
        case exp.Subquery():
            return _query(node.this, ctx)
    raise unsupported(node, type(node).__name__.upper())


_SET_KINDS: dict[type[exp.Expr], SetKind] = {
    exp.Union: "union", exp.Intersect: "intersect", exp.Except: "except",
}


def _set_operation(node: exp.SetOperation, ctx: _Context) -> Relation:
    left, right = _query(node.left, ctx), _query(node.right, ctx)
    kind = _SET_KINDS[type(node)]
    plan, attrs = analyze_set_operation(
        left.plan, left.attrs, right.plan, right.attrs, kind, not node.args.get("distinct")
    )
    return order_limit(node, Relation(plan, attrs))


# -- SELECT ------------------------------------------------------------------------------
def _select(node: exp.Select, ctx: _Context) -> Relation:
    relation, correlated = _source(node, ctx)
    if correlated:
        raise unsupported(correlated[0], "a reference to a column of no table in scope")
    _windows_only_in_select_list(node)
    inline_windows(node)
    source = relation
    relation = project_or_aggregate(node, source, lambda sub: _query(sub, ctx))
    hidden = hidden_order_keys(node, relation)
    if hidden:  # SELECT again, computing the keys too: rare, and planning is cheap
        relation = project_or_aggregate(node, source, lambda sub: _query(sub, ctx), hidden)
    if node.args.get("distinct") is not None:
        keys = tuple(ex.NamedExpr(name=a.internal, expr=a.column) for a in relation.attrs)
        relation = Relation(Aggregate(input=relation.plan, keys=keys, aggregates=()), relation.attrs)
    return order_limit(node, relation, hidden)


def _windows_only_in_select_list(node: exp.Select) -> None:
    """Window functions are computed for the SELECT list; Spark refuses them in WHERE,
    GROUP BY and HAVING, and sparkwire does not order by them or join on them either."""
    clauses = [(part, node.args.get(part)) for part in ("where", "group", "having", "order")]
    clauses += [("JOIN ... ON", j.args.get("on")) for j in node.args.get("joins") or []]
    for name, clause in clauses:
        window = clause.find(exp.Window) if clause is not None else None
        if window is not None:
            raise unsupported(window, f"a window function in {name.upper()}")


def _from_item(node: exp.Expr, ctx: _Context) -> Relation:
    alias = node.alias_or_name if isinstance(node, exp.Table) else node.alias
    match node:
        case exp.Table():
            relation = ctx.table(node)
        case exp.Subquery():
            relation = _renamed_columns(_query(node.this, ctx), node.args.get("alias"))
        case _:
            raise unsupported(node, f"{type(node).__name__.upper()} in FROM")
    return relation.qualified(alias or None)


def _renamed_columns(relation: Relation, alias: exp.TableAlias | None) -> Relation:
    """``AS t (a, b)``: the relation's columns under the listed names."""
    if alias is None or not alias.columns:
        return relation
    columns = alias.columns
    if len(columns) != len(relation.attrs):
        raise SqlError.at(alias, f"{len(columns)} column names for {len(relation.attrs)} columns")
    return _renamed(relation, [c.name for c in columns])


def respelled(relation: Relation, spellings: Sequence[str | None]) -> Relation:
    """The query's outputs under the aliases' spellings as written (``normalize``), where
    one output per SELECT item holds (no ``*``) and only the case differs."""
    if len(spellings) != len(relation.attrs):
        return relation
    names = [s if s is not None and s.casefold() == a.name.casefold() else a.name
             for s, a in zip(spellings, relation.attrs, strict=True)]
    if names == [a.name for a in relation.attrs]:
        return relation
    return _renamed(relation, names)


def _renamed(relation: Relation, names: Sequence[str]) -> Relation:
    items = tuple(ex.NamedExpr(name=n, expr=a.column) for n, a in zip(names, relation.attrs, strict=True))
    attrs = tuple(Attribute(n, n, a.type) for n, a in zip(names, relation.attrs, strict=True))
    return Relation(Project(input=relation.plan, columns=items), attrs)


_SIDES: dict[str, JoinType] = {"LEFT": "left", "RIGHT": "right", "FULL": "full"}


def _join(left: Relation, node: exp.Join, ctx: _Context) -> tuple[Relation, list[exp.Expr]]:
    """The join, and the ON conditions holding subqueries, which an inner join may apply
    after it as WHERE conditions."""
    right = _from_item(node.this, ctx)
    side, kind = (node.args.get("side") or "").upper(), (node.args.get("kind") or "").upper()
    if node.args.get("using"):
        raise unsupported(node, "JOIN ... USING")
    how: JoinType = _SIDES.get(side, "inner")
    if kind in ("SEMI", "ANTI"):
        how = kind.lower()  # type: ignore[assignment]
    on = node.args.get("on")
    parts = conjuncts(on) if on is not None else []
    moved = [p for p in parts if has_subquery(p)]
    if moved and how != "inner":
        raise unsupported(node, "a subquery in the ON condition of an outer join")
    condition = conjunction([expression(p) for p in parts if p not in moved])
    if condition is None and how not in ("inner", "cross"):
        raise unsupported(node, f"{how.upper()} JOIN without a condition")
    plan, attrs = analyze_join(left.plan, left.attrs, right.plan, right.attrs,
                               "cross" if condition is None else how, condition)
    return Relation(plan, attrs), moved


# -- WHERE and its subqueries --------------------------------------------------------------
def _where(relation: Relation, conditions: Sequence[exp.Expr], ctx: _Context) -> Relation:
    relation = plain_filter(relation, [c for c in conditions if not has_subquery(c)])
    for condition in conditions:
        if has_subquery(condition):
            relation = _subquery_condition(relation, condition, ctx)
    return relation


def _subquery_condition(relation: Relation, node: exp.Expr, ctx: _Context) -> Relation:
    negated = isinstance(node, exp.Not)
    inner = node.this.unnest() if negated else node
    if isinstance(inner, exp.Exists):
        return _exists(relation, inner.this, "anti" if negated else "semi", ctx)
    if isinstance(inner, exp.In) and inner.args.get("query") is not None:
        return _in_subquery(relation, inner, negated, ctx)
    if negated:
        raise unsupported(node, "NOT of a condition with a subquery")
    return _scalar_comparison(relation, node, ctx)


def _exists(relation: Relation, query: exp.Expr, how: JoinType, ctx: _Context) -> Relation:
    select = _plain_select(query)
    inner, correlated = _correlated_source(select, relation, ctx)
    local, _ = _sourcetables_of(select, ctx)
    inner, correlated = _isolated(inner, correlated, local)
    condition = conjunction([expression(c) for c in correlated])
    if condition is None:
        # Uncorrelated: every outer row is kept (semi) or dropped (anti) alike, decided by
        # whether the subquery has a row; a keyless semi/anti join says exactly that.
        condition = ex.Lit(value=True)
    plan, attrs = analyze_join(relation.plan, relation.attrs, inner.plan, inner.attrs, how, condition)
    return Relation(plan, attrs)


def _in_subquery(relation: Relation, node: exp.In, negated: bool, ctx: _Context) -> Relation:
    """``x IN (q)``: an uncorrelated ``q`` is translated whole (GROUP BY, HAVING ...) and
    joined on its one column; a correlated one by its FROM and conditions."""
    query = node.args["query"]
    select = _plain_select(query.this if isinstance(query, exp.Subquery) else query)
    if len(select.expressions) != 1:
        raise SqlError.at(node, "IN (subquery) needs a subquery of one column")
    local, correlated = _sourcetables_of(select, ctx)
    if correlated:
        inner, correlated = _correlated_source(select, relation, ctx)
        if select.args.get("group") is not None or select.args.get("having") is not None:
            raise unsupported(node, "a correlated IN subquery with GROUP BY or HAVING")
        inner, value = _with_value(inner, select.expressions[0])
    else:
        inner = _query(select, ctx)
        value = inner.attrs[0]
    inner, correlated = _isolated(inner, correlated, local)
    tagged = next(a for a in inner.attrs if a.internal == value.internal)
    key_eq = ex.Call(fn="eq", args=(expression(node.this), ex.Column(name=f"{tagged.qualifier}.{tagged.name}")))
    parts = [key_eq, *(expression(c) for c in correlated)]
    if negated and len(parts) > 1:
        raise unsupported(node, "NOT IN with a correlated subquery")
    plan, attrs = analyze_join(relation.plan, relation.attrs, inner.plan, inner.attrs,
                               "anti" if negated else "semi", conjunction(parts))
    if negated:
        plan = plan.model_copy(update={"null_aware": True})
    return Relation(plan, attrs)


_isolation = iter(range(1, 1 << 62))


def _isolated(
    inner: Relation, correlated: list[exp.Expr], local: set[str]
) -> tuple[Relation, list[exp.Expr]]:
    """``inner`` under a table alias of its own, its columns named by their (unique)
    internal names, and the correlated conditions rewritten to name them so: an alias
    the subquery shares with the outer query (Q17's ``lineitem``) cannot make a
    condition ambiguous."""
    tag = f"_sq{next(_isolation)}"
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


def _sourcetables_of(select: exp.Select, ctx: _Context) -> tuple[set[str], list[exp.Expr]]:
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


def _scalar_comparison(relation: Relation, node: exp.Expr, ctx: _Context) -> Relation:
    """A condition holding scalar subqueries: each one joined in as a column, then the
    condition is a plain filter over it."""
    replaced = node.copy()
    for sub in list(replaced.find_all(exp.Subquery)):
        select = _plain_select(sub.this)
        if len(select.expressions) != 1:
            raise SqlError.at(sub, "a scalar subquery needs exactly one column")
        inner, correlated = _correlated_source(select, relation, ctx)
        keys: list[tuple[ex.Expr, ex.Expr]] = []
        for condition in correlated:
            pair = _correlation_key(condition, inner, relation)
            if pair is None:
                raise unsupported(condition, "a correlated scalar subquery condition other than equality")
            keys.append(pair)
        if select.args.get("group") is not None or select.args.get("having") is not None:
            raise unsupported(sub, "GROUP BY or HAVING in a scalar subquery")
        tag = f"_sq{next(_isolation)}"
        value_rel = _grouped_value(inner, [k for k, _ in keys], select.expressions[0], tag)
        on = conjunction([
            ex.Call(fn="eq", args=(outer, ex.Column(name=f"{tag}.{key_attr.name}")))
            for (_, outer), key_attr in zip(keys, value_rel.attrs[:-1], strict=True)
        ])
        plan, attrs = analyze_join(relation.plan, relation.attrs, value_rel.plan, value_rel.attrs,
                                   "inner" if keys else "cross", on)
        relation = Relation(plan, attrs)
        # an inner or cross join lists the right side's columns last: the value is the last
        sub.replace(exp.column(relation.attrs[-1].internal))
    predicate = _resolve_internal(relation, expression(replaced))
    return Relation(Filter(input=relation.plan, predicate=predicate), relation.attrs)


def _grouped_value(
    inner: Relation, keys: Sequence[ex.Expr], item: exp.Expr, tag: str
) -> Relation:
    """``SELECT keys..., item FROM inner GROUP BY keys`` (no keys: one global row), its
    columns named after ``tag`` (unique in the query) and qualified by it."""
    scope = inner.scope
    value = scope.resolve(expression(item.unalias() if isinstance(item, exp.Alias) else item))
    if not has_aggregate(value):
        raise unsupported(item, "a scalar subquery that is not an aggregate")
    if has_window(value):
        raise unsupported(item, "a window function in a scalar subquery")
    key_items = tuple(ex.NamedExpr(name=f"{tag}_key{i}", expr=k) for i, k in enumerate(keys))
    name = f"{tag}_value"
    aggregate = Aggregate(input=inner.plan, keys=key_items,
                          aggregates=(ex.NamedExpr(name=name, expr=value),))
    key_types = {k.name: scope.type_of(k.expr) for k in key_items}
    attrs = (
        *(Attribute(k.name, k.name, key_types[k.name], tag) for k in key_items),
        Attribute(name, name, types.infer(value, {**scope.types, **key_types}), tag),
    )
    return Relation(aggregate, attrs)


def _correlated_source(
    select: exp.Select, outer: Relation, ctx: _Context
) -> tuple[Relation, list[exp.Expr]]:
    """A subquery's FROM with its local conditions applied, and its correlated conditions
    (naming a table of the outer query), left for the join that decorrelates it."""
    inner, correlated = _source(select, ctx)
    for condition in correlated:
        if has_subquery(condition):
            raise unsupported(condition, "a correlated condition holding another subquery")
    return inner, correlated


def _source(select: exp.Select, ctx: _Context) -> tuple[Relation, list[exp.Expr]]:
    """FROM, its joins and WHERE as one relation, and the conditions naming tables not in
    this FROM (correlated, for an enclosing query to join on).

    Inner and comma joins are ordered by ``planner.sql.joins``; outer, semi and anti
    joins keep the written order.
    """
    source = select.args.get("from_") or select.args.get("from")
    if source is None:
        raise unsupported(select, "SELECT without FROM")
    joins, laterals = _laterals(select)
    items = {alias_of(source.this): _from_item(source.this, ctx)}
    conditions: list[exp.Expr] = []
    ordered = all(plain_inner(j) for j in joins)
    relation = items[alias_of(source.this)]
    for join in joins:
        alias = alias_of(join.this)
        if alias in items:
            raise SqlError.at(join, f"table alias {alias!r} is used twice")
        on = join.args.get("on")
        if ordered:
            items[alias] = _from_item(join.this, ctx)
            conditions.extend(conjuncts(on) if on is not None else [])
        else:
            relation, moved = _join(relation, join, ctx)
            items[alias] = relation
            conditions.extend(moved)
    where = select.args.get("where")
    conditions.extend(conjuncts(where.this) if where is not None else [])
    local = set(items)
    generated = {alias_of(node) for node in laterals}
    correlated = [c for c in conditions if not tables_of(c) <= local | generated]
    after = [c for c in conditions if tables_of(c) <= local | generated and not tables_of(c) <= local]
    conditions = [c for c in conditions if tables_of(c) <= local]
    if ordered and len(items) > 1:
        relation, conditions = ordered_joins(items, conditions)
    relation = _where(relation, conditions, ctx)
    for node in laterals:
        relation = lateral(relation, node)
    return _where(relation, after, ctx), correlated


def _laterals(select: exp.Select) -> tuple[list[exp.Join], list[exp.Lateral]]:
    """The joins of ``select``, and its lateral generators in order: ``, LATERAL f(...)``
    items (after every join) and ``LATERAL VIEW``s, applied to what the joins make."""
    joins = select.args.get("joins") or []
    lateral_joins = [j for j in joins if isinstance(j.this, exp.Lateral)]
    tables = [j for j in joins if not isinstance(j.this, exp.Lateral)]
    if tables and lateral_joins and joins.index(tables[-1]) > joins.index(lateral_joins[0]):
        raise unsupported(tables[-1], "a join after a LATERAL item")
    for join in lateral_joins:
        if join.args.get("on") is not None or not plain_inner(join):
            raise unsupported(join, "a LATERAL join other than a cross join")
    return tables, [*(j.this for j in lateral_joins), *(select.args.get("laterals") or [])]


def _correlation_key(
    condition: exp.Expr, inner: Relation, outer: Relation
) -> tuple[ex.Expr, ex.Expr] | None:
    """``(inner side resolved, outer side as written)`` of a correlated equality; the
    outer side is resolved again, with the subquery's value, by the join."""
    if not isinstance(condition, exp.EQ):
        return None
    a, b = expression(condition.this), expression(condition.expression)
    for first, second in ((a, b), (b, a)):
        try:
            resolved = inner.scope.resolve(first)
            outer.scope.resolve(second)
        except AnalysisError:
            continue
        return resolved, second
    return None


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


def _plain_select(node: exp.Expr) -> exp.Select:
    if isinstance(node, exp.Subquery):
        node = node.this
    if not isinstance(node, exp.Select):
        raise unsupported(node, "a set operation inside a subquery predicate")
    return node


