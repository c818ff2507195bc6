"""SQL statements to logical plans, through the same analyzer the DataFrame API uses.

sqlglot parses the text and normalises it (``planner.sql.normalize``): every column
qualified by its table alias, predicates pushed into joins, constant date arithmetic folded.
This module then walks the SELECT the way a query runs, FROM and its joins, WHERE,
(then its lateral generators, ``planner.sql.generators``), GROUP BY and HAVING, the
SELECT list, DISTINCT, ORDER BY and LIMIT, and builds each step
with ``planner.logical.analyzer``, so a SQL query and the equivalent DataFrame program give the
same plan.

Subqueries in WHERE (and in an inner join's ON) are decorrelated as joins by
``planner.sql.subqueries``; uncorrelated scalar subqueries elsewhere (the SELECT list,
HAVING, ORDER BY) are joined in as one-row columns (``planner.sql.scalars``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from sqlglot import exp

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.logical.analyzer import Attribute, Relation, analyze_join, analyze_set_operation, fresh
from sparkwire.planner.logical.plan import Aggregate, JoinType, Project, SetKind
from sparkwire.planner.logical.predicates import conjunction
from sparkwire.planner.logical.ranges import range_source
from sparkwire.planner.sql.context import Catalog, Context
from sparkwire.planner.sql.errors import SqlError
from sparkwire.planner.sql.expressions import expression, unsupported
from sparkwire.planner.sql.generators import lateral
from sparkwire.planner.sql.joins import alias_of, ordered_joins, plain_inner, tables_of
from sparkwire.planner.sql.ordering import hidden_order_keys
from sparkwire.planner.sql.outputs import order_limit, project_or_aggregate
from sparkwire.planner.sql.scalars import uncorrelated_value
from sparkwire.planner.sql.subqueries import subquery_filters
from sparkwire.planner.sql.syntax import conjuncts, has_subquery, in_nested_query, inline_windows


def translate(node: exp.Expr, catalog: Catalog) -> Relation:
    return _query(node, Context(catalog, {}, _query, _source))


def _query(node: exp.Expr, ctx: Context) -> Relation:
    with_ = node.args.get("with_") or node.args.get("with")
    if with_ is not None:
        ctes = dict(ctx.ctes)
        for cte in with_.expressions:
            relation = _query(cte.this, ctx.with_ctes(ctes))
            ctes[cte.alias.casefold()] = _renamed_columns(relation, cte.args.get("alias"))
        ctx = ctx.with_ctes(ctes)
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


def _set_operation(node: exp.SetOperation, ctx: Context) -> Relation:
    left, right = _query(node.left, ctx), _query(node.right, ctx)
    kind = _SET_KINDS[type(node)]
    plan, attrs = analyze_set_operation(
        left.plan, left.attrs, right.plan, right.attrs, kind, not node.args.get("distinct")
    )
    return order_limit(node, Relation(plan, attrs))


# -- SELECT ------------------------------------------------------------------------------
def _select(node: exp.Select, ctx: Context) -> Relation:
    relation, correlated = _source(node, ctx)
    if correlated:
        raise unsupported(correlated[0], "a reference to a column of no table in scope")
    _windows_only_in_select_list(node)
    inline_windows(node)
    source = relation
    value = partial(uncorrelated_value, ctx=ctx)
    relation = project_or_aggregate(node, source, value, ctx)
    hidden = hidden_order_keys(node, relation)
    if hidden:  # SELECT again, computing the keys too: rare, and planning is cheap
        relation = project_or_aggregate(node, source, value, ctx, hidden)
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
        if clause is None:
            continue
        # a window inside a subquery is the subquery's own
        window = next((w for w in clause.find_all(exp.Window) if not in_nested_query(w, clause)), None)
        if window is not None:
            raise unsupported(window, f"a window function in {name.upper()}")


def _from_item(node: exp.Expr, ctx: Context) -> Relation:
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
    """The outputs under ``names``; names equal but for case (``SELECT 1 AS a, 2 AS A``,
    two columns to Spark) get plan names kept apart, as DuckDB ignores case."""
    taken: set[str] = set()
    internals = []
    for n in names:
        internals.append(fresh(n, taken) if n.casefold() in taken else n)
        taken.add(internals[-1].casefold())
    items = tuple(ex.NamedExpr(name=i, expr=a.column) for i, a in zip(internals, relation.attrs, strict=True))
    attrs = tuple(Attribute(n, i, a.type) for n, i, a in zip(names, internals, relation.attrs, strict=True))
    return Relation(Project(input=relation.plan, columns=items), attrs)


_SIDES: dict[str, JoinType] = {"LEFT": "left", "RIGHT": "right", "FULL": "full"}


def _join(left: Relation, node: exp.Join, ctx: Context) -> tuple[Relation, list[exp.Expr]]:
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


def _source(select: exp.Select, ctx: Context) -> tuple[Relation, list[exp.Expr]]:
    """FROM, its joins and WHERE as one relation, and the conditions naming tables not in
    this FROM (correlated, for an enclosing query to join on).

    FROM's first table and the inner and comma joins that follow it (``_inner_group``) are
    ordered by ``planner.sql.joins``; outer, semi and anti joins keep the written order,
    after them. Without FROM, one row (``_one_row``).
    """
    source = select.args.get("from_") or select.args.get("from")
    joins, laterals = _laterals(select)
    if source is None:
        return _one_row(select, ctx, joins, laterals), []
    first = alias_of(source.this)
    items = {first: _from_item(source.this, ctx)}
    grouped = _inner_group(joins)
    conditions: list[exp.Expr] = []
    for join in joins[:grouped]:
        items[_new_alias(join, items)] = _from_item(join.this, ctx)
        on = join.args.get("on")
        conditions.extend(conjuncts(on) if on is not None else [])
    where = select.args.get("where")
    written = conjuncts(where.this) if where is not None else []
    group = set(items)
    if grouped:
        # WHERE conditions over the group's tables alone are applied with it, so they steer
        # its order: a left, semi or anti join after it keeps or drops the group's rows
        # whole and never changes them, so such a condition holds before it as after.
        conditions.extend(c for c in written if grouped == len(joins) or tables_of(c) <= group)
        written = [c for c in written if grouped < len(joins) and not tables_of(c) <= group]
    deferred = [c for c in conditions if not tables_of(c) <= group]
    conditions = [c for c in conditions if tables_of(c) <= group]
    relation = items[first]
    if len(items) > 1:
        relation, conditions = ordered_joins(items, conditions)
    relation = subquery_filters(relation, conditions, ctx)
    for join in joins[grouped:]:
        alias = _new_alias(join, items)
        relation, moved = _join(relation, join, ctx)
        items[alias] = relation
        deferred.extend(moved)
    deferred.extend(written)
    local = set(items)
    generated = {alias_of(node) for node in laterals}
    correlated = [c for c in deferred if not tables_of(c) <= local | generated]
    after = [c for c in deferred if tables_of(c) <= local | generated and not tables_of(c) <= local]
    relation = subquery_filters(relation, [c for c in deferred if tables_of(c) <= local], ctx)
    for node in laterals:
        relation = lateral(relation, node)
    return subquery_filters(relation, after, ctx), correlated


def _inner_group(joins: Sequence[exp.Join]) -> int:
    """How many of the joins are ordered together with FROM's first table: all of them when
    all are inner or comma joins; else those before the first other join, unless a right or
    full join follows, which NULL-extends the group's rows (WHERE must see them after it),
    so everything keeps the written order. TPC-DS q72's ten inner joins before two left
    joins were joined as written: the first one, catalog_sales to inventory on the item
    alone, made billions of rows before the date filter could apply."""
    count = next((i for i, join in enumerate(joins) if not plain_inner(join)), len(joins))
    if any((j.args.get("side") or "").upper() in ("RIGHT", "FULL") for j in joins[count:]):
        return 0
    return count


def _new_alias(join: exp.Join, items: dict[str, Relation]) -> str:
    alias = alias_of(join.this)
    if alias in items:
        raise SqlError.at(join, f"table alias {alias!r} is used twice")
    return alias


def _one_row(select: exp.Select, ctx: Context, joins: list[exp.Join],
             laterals: list[exp.Lateral]) -> Relation:
    """``SELECT 1 AS x``, ``SELECT current_date()``: Spark's one row of no columns
    (``OneRowRelation``), here a range of one row whose column no name reaches; WHERE may
    filter it."""
    if joins or laterals:
        raise unsupported(select, "a join or LATERAL without FROM")
    where = select.args.get("where")
    one = Relation(range_source(0, 1, 1, 1), ())
    return subquery_filters(one, conjuncts(where.this) if where is not None else [], ctx)


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
