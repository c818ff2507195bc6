"""Spark's names for the unnamed outputs of ``session.sql``.

Before ``qualify`` calls an unnamed output ``_col_5``, each one is aliased with the name
Spark gives it, which is the name the DataFrame API gives the same expression
(``planner.logical.render``, with ``Scope.spelled``): the item is translated into a planner expression and named by
``planner.logical.render``, so ``m['k']`` is ``m[k]``, ``s['f']`` of a struct ``s.f`` and
``a + 1`` ``(a + 1)``. As in Spark, a column's table alias is left out (``t.a + 1`` is
``(a + 1)``); a dotted name that is no table alias is a struct's field path and kept.
The types ``s['f']`` needs come from the views the SELECT reads directly; where they
cannot (a CTE or subquery), or the item cannot be translated (it is refused later, with
its place), the item's Spark SQL text names it.

A generator (``explode`` ...) is not aliased: its columns are named ``col``, ``pos``,
``key``, ``value`` (``planner.logical.generate``); it is marked ``unnamed`` instead, so that the
translator tells the ``_col_5`` of ``qualify`` from an alias the query wrote.
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa
from sqlglot import exp

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.logical.analyzer import Attribute, Scope
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.render import output_name
from sparkwire.planner.sql.expressions import expression
from sparkwire.planner.sql.generators import UNNAMED, is_generator
from sparkwire.planner.sql.joins import alias_of
from sparkwire.planner.sql.syntax import in_nested_query
from sparkwire.planner.logical.tree import transform


def name_outputs(statement: exp.Expr, schema: Mapping[str, pa.Schema]) -> None:
    """Alias every unnamed SELECT output of ``statement`` (in place) as Spark names it."""
    for select in statement.find_all(exp.Select):
        aliases, scope = _sources(select, schema)
        for item in select.expressions:
            if is_generator(item):
                item.meta[UNNAMED] = True
            elif not isinstance(item, exp.Alias | exp.Aliases | exp.Column | exp.Star):
                named = exp.alias_(item.copy(), _name(item, aliases, scope), quoted=True)
                named.args["alias"].meta["case_sensitive"] = True  # sqlglot would lower-case it
                item.replace(named)


def _sources(select: exp.Select, schema: Mapping[str, pa.Schema]) -> tuple[set[str], Scope]:
    """The table aliases ``select`` reads from and the columns of those that are views."""
    source = select.args.get("from_") or select.args.get("from")
    items = [source.this] if source is not None else []
    items += [join.this for join in select.args.get("joins") or []]
    items += select.args.get("laterals") or []
    aliases: set[str] = set()
    attrs: list[Attribute] = []
    for item in items:
        alias = alias_of(item)
        aliases.add(alias.casefold())
        table = schema.get(item.name.casefold()) if isinstance(item, exp.Table) else None
        attrs += [Attribute(f.name, f.name, f.type, alias) for f in table or []]
    return aliases, Scope(attrs)


def _name(item: exp.Expr, aliases: set[str], scope: Scope) -> str:
    try:
        expr = expression(_subqueries_named(item))
        try:
            expr = scope.spelled(expr)
        except AnalysisError:
            pass  # a column of a CTE, a subquery or a lateral view: no types here

        def unqualified(node: ex.Expr) -> ex.Expr | None:
            if isinstance(node, ex.Column) and "." in node.name:
                table, rest = node.name.split(".", 1)
                return ex.Column(name=rest) if table.casefold() in aliases else node
            return None

        return output_name(transform(expr, unqualified))
    except (AnalysisError, ValueError):
        return item.sql(dialect="spark", normalize_functions="lower")


#: How Spark names an uncorrelated scalar subquery in an output's name.
_SCALAR_SUBQUERY = "scalarsubquery()"


def _subqueries_named(item: exp.Expr) -> exp.Expr:
    """A copy of ``item`` with each scalar subquery written as Spark names it
    (``(sum(v) + scalarsubquery())``); an item that is one is copied whole."""
    if isinstance(item, exp.Subquery):
        return exp.column(_SCALAR_SUBQUERY, quoted=True)
    copy = item.copy()
    for sub in [s for s in copy.find_all(exp.Subquery) if not in_nested_query(s, copy)]:
        if not (isinstance(sub.parent, exp.In) and sub.parent.args.get("query") is sub):
            sub.replace(exp.column(_SCALAR_SUBQUERY, quoted=True))
    return copy
