"""The last steps of a SELECT: its output list, GROUP BY and HAVING, ORDER BY and LIMIT.

Aggregation computes each distinct aggregate call once, under the group keys, then the
SELECT list is a projection over keys and calls; a key that is a column keeps its name and
table alias, so ORDER BY ``t.c`` still finds it. ``ROLLUP``, ``CUBE`` and ``GROUPING SETS``
(``planner.sql.grouping``) put an ``Expand`` below the aggregate
(``planner.logical.grouping_sets``). Unnamed outputs were named as Spark names
them before normalisation (``planner.sql.naming``). A generator in the SELECT list
(``explode(arr) AS x``) is planned below the projection (``planner.sql.generators``); a
window function of an aggregating SELECT above the aggregate (``planner.logical.aggregation``).
ORDER BY keys that are no outputs are computed as hidden items (``planner.sql.ordering``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from sqlglot import exp

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.logical.aggregation import GroupKey, analyze_aggregate
from sparkwire.planner.logical.analyzer import Attribute, Relation, Scope, analyze_join, fresh
from sparkwire.planner.logical.grouping_sets import GroupingSet, expand, over_expanded, refuse_grouping
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.plan import Filter, Limit, Project, Sort
from sparkwire.planner.sql.errors import SqlError
from sparkwire.planner.sql.expressions import expression, sort_key, unsupported
from sparkwire.planner.sql.generators import generated, is_generator, select_generator
from sparkwire.planner.sql.grouping import group_by
from sparkwire.planner.sql.syntax import has_subquery
from sparkwire.planner.logical.tree import has_aggregate, has_window, transform
from sparkwire.planner.logical.windowing import pull_windows

#: Translates a (scalar) subquery into its relation, in the enclosing query's scope.
Subquery = Callable[[exp.Expr], Relation]


def project_or_aggregate(
    node: exp.Select, relation: Relation, subquery: Subquery, hidden: Sequence[exp.Ordered] = (),
) -> Relation:
    """The SELECT list, grouped and aggregated when GROUP BY, HAVING or an aggregate
    asks for it; ``subquery`` translates a scalar subquery in HAVING. The ``hidden`` ORDER
    BY keys (``planner.sql.ordering``) are computed as more items, after the SELECT list."""
    columns = relation.attrs  # what * means, without generated columns
    generator, relation, added = _generator(node, relation)
    scope = relation.scope
    items: list[tuple[str, ex.Expr]] = []
    for item in node.expressions:
        if isinstance(item, exp.Star) or (isinstance(item, exp.Column) and isinstance(item.this, exp.Star)):
            items.extend((a.name, a.column) for a in columns)
            continue
        if item is generator:
            items.extend((a.name, a.column) for a in added)
            continue
        if has_subquery(item):
            raise unsupported(item, "a subquery in the SELECT list")
        name = item.alias_or_name
        value = item.unalias() if isinstance(item, exp.Alias) else item
        items.append((name, scope.resolve(expression(value))))
    taken = {name.casefold() for name, _ in items}
    items.extend((fresh("_sort", taken), scope.resolve(expression(key.this))) for key in hidden)
    group = node.args.get("group")
    having = node.args.get("having")
    grouped = group is not None or having is not None or any(has_aggregate(e) for _, e in items)
    if not grouped:
        refuse_grouping([e for _, e in items])
        return _projected(relation, items)
    if generator is not None:
        raise unsupported(generator, "a generator in an aggregating SELECT")
    keys, sets = group_by(group, lambda g: scope.resolve(expression(g)))
    return _aggregate(relation, items, keys, having, subquery, sets)


def _generator(
    node: exp.Select, relation: Relation,
) -> tuple[exp.Expr | None, Relation, list[Attribute]]:
    """The SELECT list's generator, if any (``planner.sql.generators``), and the relation
    with its columns appended."""
    found = [item for item in node.expressions if is_generator(item)]
    if len(found) > 1:
        raise unsupported(found[1], "a second generator in one SELECT")
    if not found:
        return None, relation, []
    generator = select_generator(found[0])
    if has_aggregate(generator.expr) or has_window(generator.expr):
        raise unsupported(found[0], "a generator of an aggregate or window function")
    relation, added = generated(relation, generator, found[0])
    return found[0], relation, added


def _aggregate(
    relation: Relation, items: list[tuple[str, ex.Expr]], keys: list[ex.Expr],
    having: exp.Having | None, subquery: Subquery, sets: list[GroupingSet] | None = None,
) -> Relation:
    """Aggregate by the group keys computing every aggregate call once, filter by HAVING,
    then project the SELECT list over keys and calls (``planner.logical.aggregation``). An
    uncorrelated scalar subquery in HAVING (Q11) is cross-joined to the aggregate as a
    column first. With grouping ``sets`` the keys and ``grouping()`` calls are read from
    the ``Expand`` below the aggregate."""
    scope = relation.scope
    taken = {a.internal.casefold() for a in relation.attrs} | {n.casefold() for n, _ in items}
    group = [_group_key(scope, key, taken) for key in keys]
    condition, values = (None, []) if having is None else _having(having, scope, taken, subquery)
    if sets is None:
        refuse_grouping([e for _, e in items] + ([] if condition is None else [condition]))
    else:
        expanded = expand(relation, group, sets, taken)
        relation, group = expanded.relation, list(expanded.keys)
        items = [(name, over_expanded(e, expanded)) for name, e in items]
        condition = None if condition is None else over_expanded(condition, expanded)
    aggregation = analyze_aggregate(
        relation, group, items, keys_by="expression", fresh_names=taken, having=condition,
        late={value.attrs[0].internal for value in values},
    )
    mid = aggregation.relation
    for value in values:
        plan, attrs = analyze_join(mid.plan, mid.attrs, value.plan, value.attrs, "cross", None)
        mid = Relation(plan, attrs)
    if aggregation.having is not None:
        mid = Relation(Filter(input=mid.plan, predicate=aggregation.having), mid.attrs)
    return _projected(mid, aggregation.outputs)


def _group_key(scope: Scope, key: ex.Expr, taken: set[str]) -> GroupKey:
    """A key under an internal name; a key that is a column keeps its name and table
    alias, so ORDER BY can still name it as ``t.c``."""
    internal = fresh("_group", taken)
    source = scope.attribute_of(key)
    if source is None:
        return GroupKey(key, Attribute(internal, internal, scope.type_of(key)))
    return GroupKey(key, Attribute(source.name, internal, scope.type_of(key), source.qualifier))


def _having(
    having: exp.Having, scope: Scope, taken: set[str], subquery: Subquery,
) -> tuple[ex.Expr, list[Relation]]:
    """HAVING's condition resolved against the input, and the relation of each scalar
    subquery in it, which the condition names by its one column."""
    condition = having.this.copy()
    placeholders: dict[str, ex.Expr] = {}
    values: list[Relation] = []
    for sub in list(condition.find_all(exp.Subquery)):
        value = subquery(sub.this)
        if len(value.attrs) != 1:
            raise SqlError.at(sub, "a scalar subquery needs exactly one column")
        placeholder = fresh("_having", taken)
        placeholders[placeholder] = value.attrs[0].column
        values.append(value)
        sub.replace(exp.column(placeholder))
    if has_subquery(condition):
        raise unsupported(having, "this subquery in HAVING")

    def resolve(node: ex.Expr) -> ex.Expr | None:
        if isinstance(node, ex.Column):
            return placeholders.get(node.name) or scope.resolve(node)
        return None

    return transform(expression(condition), resolve), values


def _projected(relation: Relation, items: Sequence[tuple[str, ex.Expr]]) -> Relation:
    """SELECT list under its names, window expressions computed below it
    (``planner.logical.windowing``); a column passed through keeps its identity."""
    windowed = pull_windows(relation.plan, relation.attrs, [expr for _, expr in items])
    items = [(name, expr) for (name, _), expr in zip(items, windowed.exprs, strict=True)]
    relation = Relation(windowed.plan, windowed.attrs)
    by_internal = {a.internal: a for a in relation.attrs}
    taken: set[str] = set()
    named, attrs = [], []
    scope = relation.scope
    for name, expr in items:
        internal = name if name.casefold() not in taken else fresh(name, taken)
        taken.add(internal.casefold())
        named.append(ex.NamedExpr(name=internal, expr=expr))
        kept = by_internal.get(expr.name) if isinstance(expr, ex.Column) else None
        if kept is not None:
            attrs.append(replace(kept, name=name, internal=internal))
        else:
            attrs.append(Attribute(name, internal, scope.type_of(expr)))
    return Relation(Project(input=relation.plan, columns=tuple(named)), tuple(attrs))


def order_limit(node: exp.Expr, relation: Relation, hidden: Sequence[exp.Ordered] = ()) -> Relation:
    """ORDER BY (output names, or the columns outputs pass through) and LIMIT; the last
    columns of ``relation`` are the ``hidden`` ORDER BY keys (``planner.sql.ordering``),
    sorted on and then dropped."""
    order = node.args.get("order")
    outputs = relation.attrs[:len(relation.attrs) - len(hidden)]
    computed = {id(key): attr for key, attr in zip(hidden, relation.attrs[len(outputs):], strict=True)}
    if order is not None:
        keys = [_sort_key(o, relation) if id(o) not in computed
                else sort_key(o).model_copy(update={"expr": computed[id(o)].column})
                for o in order.expressions]
        relation = Relation(Sort(input=relation.plan, keys=tuple(keys)), relation.attrs)
    limit = node.args.get("limit")
    if limit is not None:
        value = limit.expression
        if not (isinstance(value, exp.Literal) and not value.is_string and value.this.isdigit()):
            raise unsupported(limit, "LIMIT other than a non-negative integer")
        relation = Relation(Limit(input=relation.plan, n=int(value.this)), relation.attrs)
    if node.args.get("offset") is not None:
        raise unsupported(node.args["offset"], "OFFSET")
    if hidden:
        kept = tuple(ex.NamedExpr(name=a.internal, expr=a.column) for a in outputs)
        relation = Relation(Project(input=relation.plan, columns=kept), outputs)
    return relation


def _sort_key(node: exp.Ordered, relation: Relation) -> ex.SortKey:
    """A SELECT output by name, or by its source column (``qualify`` writes ``t.c`` for an
    output that passes ``t.c`` through, and grouped outputs keep their qualifier)."""
    key = sort_key(node)
    if has_aggregate(key.expr):  # outputs are per-row values, aggregated already
        raise unsupported(node, "ORDER BY an aggregate of a set operation's rows")
    try:
        resolved = relation.scope.resolve(key.expr)
    except AnalysisError:
        raise unsupported(node, "ORDER BY an expression that is not in the SELECT list") from None
    return key.model_copy(update={"expr": resolved})
