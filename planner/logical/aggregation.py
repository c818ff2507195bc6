"""Aggregation, analysed once for the DataFrame API (``groupBy().agg()``) and SQL (``GROUP BY``,
``HAVING``).

What both front ends share, with Spark's rules: the group keys arrive resolved against the
input and become the ``Aggregate``'s key columns; every output is an expression over group
keys and aggregate calls of input columns; a column in an output that is neither a group
key nor inside an aggregate call is refused (``neither grouped nor aggregated``), as is an
aggregate call inside another; the aggregate's attributes are the keys', then its
aggregates', typed from the input and the keys. A window expression in an output runs over
the aggregate's output, as in Spark (``sum(sum(x)) OVER (PARTITION BY k)``, ``rank() OVER
(ORDER BY sum(x))``): its function stays, its inputs are rewritten like any output
(``tree.transform_grouped``), and ``planner.logical.windowing`` plans it above the aggregate.

Where they differ is an argument:

- ``keys``: each front end names its keys (``GroupKey``). The DataFrame API uses
  ``groupBy``'s names, and a column passed through keeps the DataFrames it came through
  (``df["k"]`` after ``agg``); SQL uses internal names, and a column keeps its name and table
  alias (``ORDER BY t.k`` after ``GROUP BY t.k``).
- ``keys_by``, how an output refers to a key. ``"name"``: the outputs arrive as the user
  wrote them; a name outside an aggregate call is a key's output name, one inside a call an
  input column (``agg(F.sum("x") / F.col("k"))``), and the outputs are resolved and typed
  here. ``"expression"``: the outputs arrive resolved against the input and a part equal to
  a key's expression is that key, as Spark matches grouping expressions
  (``SELECT k + 1 ... GROUP BY k + 1``).
- ``fresh_names``, where the outputs are computed. Without it the ``Aggregate`` computes
  each output whole under its own name (``agg`` returns exactly the keys, then the
  outputs). With it each distinct aggregate call is computed once under a name fresh in
  that set, and the outputs (and ``having``) come back as expressions over keys and calls,
  for a projection above (SQL's SELECT list).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import types
from sparkwire.planner.logical.analyzer import Attribute, Relation, Scope, check_unique, fresh
from sparkwire.planner.logical.expressions import AggCall, Call, Cast, Column, Expr, Lit, NamedExpr, Ref
from sparkwire.planner.logical.function_types import ROW_POSITIONED
from sparkwire.planner.logical.plan import Aggregate
from sparkwire.planner.logical.render import sql
from sparkwire.planner.logical.tree import children, has_aggregate, transform, transform_grouped, walk
from sparkwire.planner.logical.typed import spark_typed

KeysBy = Literal["name", "expression"]


@dataclass(frozen=True)
class GroupKey:
    """A group key: its expression, resolved against the input, and the attribute its
    column has in the aggregate's output (the front end's choice of names)."""

    expr: Expr
    attr: Attribute


@dataclass(frozen=True)
class Aggregation:
    """The analysed aggregate. ``relation`` is the ``Aggregate`` with its attributes;
    ``outputs`` are the outputs over its columns (with ``fresh_names`` what to project,
    without it each output's own column); ``having`` the condition over them, if given."""

    relation: Relation
    outputs: tuple[tuple[str, Expr], ...]
    having: Expr | None = None


def analyze_aggregate(
    relation: Relation,
    keys: Sequence[GroupKey],
    outputs: Sequence[tuple[str, Expr]],
    *,
    keys_by: KeysBy,
    fresh_names: set[str] | None = None,
    having: Expr | None = None,
    late: Collection[str] = (),
) -> Aggregation:
    """Aggregate ``relation`` by ``keys`` into ``outputs`` (see the module docstring for
    ``keys_by`` and ``fresh_names``). ``having`` is a condition rewritten like the outputs,
    its calls computed with theirs; ``late`` names columns the outputs and ``having`` may use
    that are joined in after aggregating (SQL's uncorrelated scalar subqueries,
    ``planner.sql.scalars``)."""
    input_scope = relation.scope
    key_scope = Scope([k.attr for k in keys])
    column_types = {**input_scope.types, **key_scope.types}
    calls: dict[AggCall, str] = {}

    def rewrite(expr: Expr, what: str, joined: Collection[str] = ()) -> Expr:
        """``expr`` over the keys and calls; ``joined`` columns pass as they are."""
        _check_not_nested(expr)
        if keys_by == "name":
            over = spark_typed(_by_name(expr, what, input_scope, key_scope, joined), column_types)
        else:
            over = _by_expression(expr, what, keys, joined)
        return over if fresh_names is None else _split_calls(over, calls, fresh_names)

    rewritten = tuple((name, rewrite(expr, repr(name), late)) for name, expr in outputs)
    condition = None if having is None else rewrite(having, "HAVING", late)
    results: tuple[tuple[str, Expr], ...]
    if fresh_names is None:  # the Aggregate computes each output, under its name
        aggregates = tuple(NamedExpr(name=name, expr=expr) for name, expr in rewritten)
        results = tuple((name, Column(name=name)) for name, _ in rewritten)
    else:  # the Aggregate computes each call; the outputs are projected over them
        aggregates = tuple(NamedExpr(name=name, expr=call) for call, name in calls.items())
        results = rewritten
    check_unique([*(k.attr.internal for k in keys), *(a.name for a in aggregates)])
    plan = Aggregate(
        input=relation.plan,
        keys=tuple(NamedExpr(name=k.attr.internal, expr=k.expr) for k in keys),
        aggregates=aggregates,
    )
    attrs = (*(k.attr for k in keys),
             *(Attribute(a.name, a.name, types.infer(a.expr, column_types)) for a in aggregates))
    return Aggregation(Relation(plan, attrs), results, condition)


def _check_not_nested(expr: Expr) -> None:
    """No aggregate call inside another; a window over an aggregate (``sum(sum(x)) OVER
    w``) is no nesting, its function runs over the aggregate's output."""

    def check(node: Expr) -> Expr | None:
        if not isinstance(node, AggCall):
            return None
        if any(has_aggregate(a) for a in children(node)):
            raise AnalysisError(f"aggregate calls cannot be nested: {sql(node)}")
        if any(isinstance(n, Call) and n.fn in ROW_POSITIONED for a in children(node) for n in walk(a)):
            raise AnalysisError(
                f"rand, randn and monotonically_increasing_id inside an aggregate call are not "
                f"supported by sparkwire yet (compute them in a column first): {sql(node)}")
        return node

    transform_grouped(expr, check)


def _by_name(expr: Expr, what: str, input_scope: Scope, key_scope: Scope,
             late: Collection[str]) -> Expr:
    """``expr`` as the user wrote it, resolved: a call's argument against the input, any
    other name (but the ``late`` columns) against the keys' output names."""

    def resolve(node: Expr) -> Expr | None:
        if isinstance(node, Column) and node.name in late:
            return node
        if isinstance(node, AggCall):
            arg = None if node.arg is None else input_scope.resolve(node.arg)
            other = None if node.other is None else input_scope.resolve(node.other)
            return node.model_copy(update={"arg": arg, "other": other})
        if isinstance(node, Column | Ref):
            try:
                return key_scope.resolve(node)
            except AnalysisError:
                keys = ", ".join(key_scope.names) or "(none)"
                raise _neither(node, what, f"; group keys: {keys}") from None
        return None

    return transform(expr, resolve)


def _by_expression(expr: Expr, what: str, keys: Sequence[GroupKey], late: Collection[str]) -> Expr:
    """The resolved ``expr`` with each part equal to a key's expression that key's column;
    aggregate calls, and the ``late`` columns, stay as they are."""

    def replace(node: Expr) -> Expr | None:
        if isinstance(node, Column) and node.name in late:
            return node
        for key in keys:
            if node == key.expr:
                return key.attr.column
        if isinstance(node, AggCall):
            return node
        if isinstance(node, Column | Ref):
            raise _neither(node, what)
        return None

    return transform_grouped(expr, replace)


def _split_calls(expr: Expr, calls: dict[AggCall, str], taken: set[str]) -> Expr:
    """``expr`` with each aggregate call a column of ``calls``, where a call seen first is
    added under a fresh name."""

    def replace(node: Expr) -> Expr | None:
        if not isinstance(node, AggCall):
            return None
        if node not in calls:
            calls[node] = fresh("_agg", taken)
        return Column(name=calls[node])

    return transform_grouped(expr, replace)


def _neither(node: Column | Ref, what: str, hint: str = "") -> AnalysisError:
    return AnalysisError(f"column {node.name!r} in {what} is neither grouped nor aggregated{hint}")


#: Aggregates that count: 0 over no rows.
_COUNTING = frozenset({"count", "count_distinct", "count_if", "approx_count_distinct"})
#: Aggregates that collect: an empty array over no rows.
_COLLECTING = frozenset({"collect_list", "collect_set", "merge_lists", "merge_sets"})


#: Functions that are NULL where any argument is: arithmetic.
_STRICT = frozenset({"add", "sub", "mul", "div", "decimal_div", "decimal_avg", "mod", "neg", "exact_integer"})


def over_no_rows(value: Expr) -> Expr | None:
    """What the aggregate expression ``value`` gives over no rows, as an expression of no
    column; None where that is NULL for certain (no count in it, only arithmetic above its
    aggregates: TPC-H Q20's ``0.5 * sum(l_quantity)``). A correlated scalar subquery joins
    its groups to the outer rows, and an outer row whose group is missing must read this,
    not NULL: ``(SELECT count(*) ...) = 0`` holds there (the "COUNT bug" of
    decorrelation); ``count(*) + 1`` reads 1."""

    def empty(node: Expr) -> Expr | None:
        if not isinstance(node, AggCall):
            return None
        if node.fn in _COLLECTING:
            raise AnalysisError(f"{node.fn} in a correlated scalar subquery is not supported by sparkwire")
        return Lit(value=0, type="int64") if node.fn in _COUNTING else Lit(value=None)

    default = transform(value, empty)
    return None if _null(default) else default


def _null(expr: Expr) -> bool:
    """Whether ``expr`` (of no column) is NULL for certain."""
    if isinstance(expr, Lit):
        return expr.value is None
    if isinstance(expr, Cast):
        return _null(expr.expr)
    return isinstance(expr, Call) and expr.fn in _STRICT and any(_null(a) for a in expr.args)

