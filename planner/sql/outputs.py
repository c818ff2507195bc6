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
Scalar subqueries in the SELECT list, HAVING and hidden ORDER BY keys are joined in as
one-row columns (``planner.sql.scalars``); ``EXISTS`` and ``IN`` subqueries of a SELECT list
that does not aggregate as marks (``planner.sql.marks``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sqlglot import exp

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.logical.aggregation import GroupKey, analyze_aggregate
from sparkwire.planner.logical.analyzer import Attribute, Relation, Scope, fresh
from sparkwire.planner.logical.grouping_sets import GroupingSet, expand, over_expanded, refuse_grouping
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.plan import Filter, Limit, Project, Sort
from sparkwire.planner.sql.context import Context
from sparkwire.planner.sql.expressions import expression, sort_key, unsupported
from sparkwire.planner.sql.generators import generated, is_generator, select_generator
from sparkwire.planner.sql.marks import marked, predicate_subqueries
from sparkwire.planner.sql.subqueries import correlated_subqueries, scalar_columns
from sparkwire.planner.sql.grouping import group_by
from sparkwire.planner.sql.scalars import Value, joined, lifted
from sparkwire.planner.sql.syntax import has_subquery
from sparkwire.planner.logical.tree import column_names, has_aggregate, has_window, walk
from sparkwire.planner.logical.windowing import pull_windows


def project_or_aggregate(
    node: exp.Select, relation: Relation, value: Value, ctx: Context,
    hidden: Sequence[exp.Ordered] = (),
) -> Relation:
    """The SELECT list, grouped and aggregated when GROUP BY, HAVING or an aggregate
    asks for it; ``value`` translates an uncorrelated scalar subquery of the SELECT list,
    HAVING or a hidden key (``planner.sql.scalars``), joined in before projecting or after
    aggregating; an ``EXISTS``/``IN`` subquery of a SELECT item that does not aggregate
    becomes a mark joined in before projecting (``planner.sql.marks``). The ``hidden`` ORDER
    BY keys (``planner.sql.ordering``) are computed as more items, after the SELECT list."""
    columns = relation.attrs  # what * means, without generated columns
    generator, relation, added = _generator(node, relation)
    written = [item for item in node.expressions if item is not generator and not _is_star(item)]
    having = node.args.get("having")
    # correlated scalar subqueries of the SELECT list: joined in as columns, first
    correlated = {id(item): item for item in written if correlated_subqueries(item, ctx)}
    defaults: dict[str, ex.Expr] = {}
    for key, item in list(correlated.items()):
        relation, correlated[key], more = scalar_columns(relation, item, ctx)
        defaults.update(more)
    clauses = [*(correlated.get(id(item), item) for item in written), *(key.this for key in hidden),
               *([having.this] if having is not None else [])]
    lifted_clauses, values = lifted(clauses, value)
    originals = [*written, *(key.this for key in hidden), *([having.this] if having is not None else [])]
    by_id = {id(original): copy for original, copy in zip(originals, lifted_clauses, strict=True)}
    marks = [item for item in written if predicate_subqueries(by_id[id(item)])]
    for item in marks:
        relation, by_id[id(item)] = marked(relation, by_id[id(item)], ctx, value=True)
    scope = Scope([*relation.attrs, *(v.attrs[-1] for v in values)])
    items: list[tuple[str, ex.Expr]] = []
    for item in node.expressions:
        if _is_star(item):
            items.extend((a.name, a.column) for a in columns)
            continue
        if item is generator:
            items.extend((a.name, a.column) for a in added)
            continue
        if has_subquery(by_id[id(item)]):
            raise unsupported(item, "a subquery in the SELECT list")
        name = item.alias_or_name
        written_value = by_id[id(item)]
        written_value = written_value.unalias() if isinstance(written_value, exp.Alias) else written_value
        items.append((name, scope.resolve(expression(written_value), first=lambda n: (
            defaults.get(n.name) if isinstance(n, ex.Column) else None))))
    taken = {name.casefold() for name, _ in items}
    items.extend((fresh("_sort", taken), scope.resolve(expression(by_id[id(key.this)]))) for key in hidden)
    condition = None
    if having is not None:
        if has_subquery(by_id[id(having.this)]):
            raise unsupported(having, "this subquery in HAVING")
        condition = scope.resolve(expression(by_id[id(having.this)]))
    group = node.args.get("group")
    grouped = group is not None or having is not None or any(has_aggregate(e) for _, e in items)
    if grouped and (marks or correlated):
        raise unsupported((marks or list(correlated.values()))[0],
                          "a correlated or EXISTS/IN subquery in the SELECT list of an aggregating query")
    if not grouped:
        refuse_grouping([e for _, e in items])
        return _projected(joined(relation, values), items)
    if generator is not None:
        raise unsupported(generator, "a generator in an aggregating SELECT")
    keys, sets = group_by(group, lambda g: scope.resolve(expression(g)))
    return _aggregate(relation, items, keys, condition, values, sets)


def _is_star(item: exp.Expr) -> bool:
    return isinstance(item, exp.Star) or (isinstance(item, exp.Column) and isinstance(item.this, exp.Star))


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
    condition: ex.Expr | None, values: Sequence[Relation], sets: list[GroupingSet] | None = None,
) -> Relation:
    """Aggregate by the group keys computing every aggregate call once, filter by HAVING,
    then project the SELECT list over keys and calls (``planner.logical.aggregation``). The
    one-row ``values`` of scalar subqueries (Q11's in HAVING) are cross-joined to the
    aggregate's output, where the outputs and HAVING read them. With grouping ``sets`` the
    keys and ``grouping()`` calls are read from the ``Expand`` below the aggregate."""
    scope = relation.scope
    late = {v.attrs[-1].internal for v in values}
    _refuse_late_in_aggregates([e for _, e in items] + ([] if condition is None else [condition]), late)
    taken = {a.internal.casefold() for a in relation.attrs} | {n.casefold() for n, _ in items}
    group = [_group_key(scope, key, taken) for key in keys]
    if sets is None:
        refuse_grouping([e for _, e in items] + ([] if condition is None else [condition]))
    else:
        expanded = expand(relation, group, sets, taken)
        relation, group = expanded.relation, list(expanded.keys)
        items = [(name, over_expanded(e, expanded)) for name, e in items]
        condition = None if condition is None else over_expanded(condition, expanded)
    aggregation = analyze_aggregate(
        relation, group, items, keys_by="expression", fresh_names=taken, having=condition, late=late,
    )
    mid = joined(aggregation.relation, values)
    if aggregation.having is not None:
        mid = Relation(Filter(input=mid.plan, predicate=aggregation.having), mid.attrs)
    return _projected(mid, aggregation.outputs)


def _refuse_late_in_aggregates(exprs: Sequence[ex.Expr], late: set[str]) -> None:
    """A scalar subquery's value is joined in after the aggregate: one inside an aggregate
    call (``sum(x * (SELECT ...))``) is refused."""
    for expr in exprs:
        for call in (n for n in walk(expr) if isinstance(n, ex.AggCall)):
            if late & set(column_names(call)):
                raise AnalysisError("a scalar subquery inside an aggregate function is not supported by sparkwire")


def _group_key(scope: Scope, key: ex.Expr, taken: set[str]) -> GroupKey:
    """A key under an internal name; a key that is a column keeps its name and table
    alias, so ORDER BY can still name it as ``t.c``."""
    internal = fresh("_group", taken)
    source = scope.attribute_of(key)
    if source is None:
        return GroupKey(key, Attribute(internal, internal, scope.type_of(key)))
    return GroupKey(key, Attribute(source.name, internal, scope.type_of(key), source.qualifier))


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
        keys = [_sort_key(o, relation) if id(o) not in computed else sort_key(o, computed[id(o)].column)
                for o in order.expressions]
        relation = Relation(Sort(input=relation.plan, keys=tuple(keys)), relation.attrs)
    limit, offset = (_count(node.args.get(k), what) for k, what in (("limit", "LIMIT"), ("offset", "OFFSET")))
    if limit is not None or offset:
        relation = Relation(Limit(input=relation.plan, n=limit, offset=offset or 0), relation.attrs)
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


def _count(clause: exp.Expr | None, what: str) -> int | None:
    """A ``LIMIT`` or ``OFFSET`` clause's non-negative integer literal (None: no clause)."""
    if clause is None:
        return None
    value = clause.expression
    if not (isinstance(value, exp.Literal) and not value.is_string and value.this.isdigit()):
        raise unsupported(clause, f"{what} other than a non-negative integer")
    return int(value.this)
