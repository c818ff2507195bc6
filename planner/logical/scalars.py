"""A scalar subquery's value as a relation of one row per correlation key (none: one row),
with Spark's run-time check that the subquery returned at most one row.

Spark runs an uncorrelated scalar subquery on the driver before the query that uses it,
fails with ``[SCALAR_SUBQUERY_TOO_MANY_ROWS]`` when it returns more than one row, and reads
no row as NULL; a correlated one (Spark 4's single join) is checked per outer row. Here the
value is planned in distributed form instead, as one more input of the query:

- a subquery that aggregates without GROUP BY or HAVING (TPC-DS q09's ``SELECT avg(x)
  ...``) has exactly one row: its plan is the value, as it is;
- any other (``SELECT DISTINCT d_month_seq ... WHERE d_year = 2001``, a plain column, a
  GROUP BY, a LIMIT) is aggregated to its row count and its value, per correlation key:
  a global aggregate has one row whatever its input (no row: a count of 0 and a NULL
  value), partial counts per task merged in one, so only that merge sees the whole count.
  The value is ``CASE WHEN count > 1 THEN raise_error(SCALAR_SUBQUERY_TOO_MANY_ROWS) ELSE
  value END`` (``planner.logical.functions.assertions``): the worker that merges fails the
  query with Spark's error class and message, which reaches the user as a ``QueryError``
  whatever the transport.

The caller joins the relation in (a cross join of its one row, or an inner join on the
keys): the stage cutter broadcasts it, a few bytes. Checking in the plan, rather than
running the subquery first on the driver as Spark does, keeps one query one staged plan
(explain shows it, adaptive execution and cancellation treat it as any other stage) and
costs one aggregate of the subquery's rows, which a distinct or filtered dimension
lookup (q06, q54, q58) keeps to a handful.
"""

from __future__ import annotations

from collections.abc import Sequence

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.logical import types
from sparkwire.planner.logical.analyzer import Attribute, Relation
from sparkwire.planner.logical.functions.assertions import failure
from sparkwire.planner.logical.plan import Aggregate, Operator, Project
from sparkwire.planner.logical.tree import has_aggregate

#: Spark's error when a scalar subquery returns more than one row.
TOO_MANY_ROWS = "SCALAR_SUBQUERY_TOO_MANY_ROWS"
TOO_MANY_ROWS_MESSAGE = "More than one row returned by a subquery used as an expression."


def one_row(relation: Relation, tag: str) -> Relation:
    """An uncorrelated subquery (translated whole, one column) as its one row, the column
    named ``<tag>_value`` and qualified by ``tag``, unique in the query."""
    if len(relation.attrs) != 1:
        raise ValueError("a scalar subquery has one column")
    attr = relation.attrs[0]
    if _exactly_one_row(relation.plan):
        item = ex.NamedExpr(name=f"{tag}_value", expr=attr.column)
        value = Attribute(item.name, item.name, attr.type, tag)
        return Relation(Project(input=relation.plan, columns=(item,)), (value,))
    return scalar_value(relation, (), attr.column, tag)


def scalar_value(inner: Relation, keys: Sequence[ex.Expr], value: ex.Expr, tag: str) -> Relation:
    """``SELECT keys..., value FROM inner GROUP BY keys`` (no keys: one global row), its
    columns ``<tag>_key<i>`` and ``<tag>_value`` qualified by ``tag``: an aggregate
    ``value`` is computed per key as it is; any other is checked to be one row per key.
    ``keys`` and ``value`` are resolved against ``inner``."""
    key_items = tuple(ex.NamedExpr(name=f"{tag}_key{i}", expr=k) for i, k in enumerate(keys))
    name = f"{tag}_value"
    scope = inner.scope
    key_types = {k.name: scope.type_of(k.expr) for k in key_items}
    value_type = types.infer(value, {**scope.types, **key_types})
    if has_aggregate(value):
        plan: Operator = Aggregate(input=inner.plan, keys=key_items,
                                   aggregates=(ex.NamedExpr(name=name, expr=value),))
    else:
        plan = _checked(inner.plan, key_items, value, name)
    attrs = (
        *(Attribute(k.name, k.name, key_types[k.name], tag) for k in key_items),
        Attribute(name, name, value_type, tag),
    )
    return Relation(plan, attrs)


def _checked(plan: Operator, keys: tuple[ex.NamedExpr, ...], value: ex.Expr, name: str) -> Operator:
    """Per key, the row count and the value, then the value where the count is at most
    one and Spark's error where it is more.

    Of at most one row, ``max`` is the value (NULL for a NULL value or no row). Not
    ``any_value``: its two phases merge with ``first()``, which may read the NULL partial
    result of a task that had no row (a global aggregate gives one row per task, empty or
    not) before the task that had the value."""
    count, one = f"{name}_rows", f"{name}_one"
    aggregate = Aggregate(input=plan, keys=keys, aggregates=(
        ex.NamedExpr(name=count, expr=ex.AggCall(fn="count")),
        ex.NamedExpr(name=one, expr=ex.AggCall(fn="max", arg=value)),
    ))
    too_many = ex.Call(fn="gt", args=(ex.Column(name=count), ex.Lit(value=1)))
    checked = ex.Case(branches=((too_many, failure(TOO_MANY_ROWS, ex.Lit(value=TOO_MANY_ROWS_MESSAGE))),),
                      otherwise=ex.Column(name=one))
    columns = (*(ex.NamedExpr(name=k.name, expr=ex.Column(name=k.name)) for k in keys),
               ex.NamedExpr(name=name, expr=checked))
    return Project(input=aggregate, columns=columns)


def _exactly_one_row(plan: Operator) -> bool:
    """Whether ``plan`` gives one row whatever its input: a global aggregate, under
    projections only (a HAVING's filter may leave none)."""
    while isinstance(plan, Project):
        plan = plan.input
    return isinstance(plan, Aggregate) and not plan.keys and not plan.local
