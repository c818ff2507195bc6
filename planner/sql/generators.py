"""``explode`` and its family in SQL, planned as the DataFrame API plans them: a
``Generator`` of the function registry (``planner.logical.functions.generators``) given to
``planner.logical.generate``, which builds the ``Generate`` operator.

Spark SQL writes a generator in three places, all supported:

- a SELECT item: ``explode(arr)``, ``explode(arr) AS x``, ``posexplode(m) AS (p, k, v)``;
  one per SELECT, as in the DataFrame API (Spark 4 would take several, as a cross
  product of their rows), and not in an aggregating SELECT;
- ``FROM t LATERAL VIEW [OUTER] explode(arr) tt AS x`` (``OUTER`` as ``explode_outer``),
  several in a row, each seeing the columns of those before it;
- ``FROM t, LATERAL explode(arr) AS tt(x)`` (or ``JOIN LATERAL``, without ``ON``), after
  every other FROM item.

A lateral generator's columns must be named (``AS x``, ``tt(x)``): Spark's defaults
(``col``, ``key``, ``value``) depend on the collection's type, which sqlglot does not know
when it expands ``*``. ``inline`` and ``stack`` are not in the DataFrame API and are
refused; so is a generator anywhere else in an expression.
"""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from sparkwire.planner.logical.analyzer import Attribute, Relation
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.functions import registry
from sparkwire.planner.logical.functions.generators import Generator
from sparkwire.planner.logical.generate import generate
from sparkwire.planner.sql.errors import SqlError
from sparkwire.planner.sql.expressions import expression, unsupported

#: The meta key marking a SELECT item's generator the query did not name
#: (``planner.sql.naming``); ``qualify`` aliases it ``_col_<n>`` all the same.
UNNAMED = "sparkwire_unnamed"


def is_generator(item: exp.Expr) -> bool:
    """Whether the SELECT item ``item`` is a generator, aliased or not."""
    inner = item.this if isinstance(item, exp.Alias | exp.Aliases) else item
    return isinstance(inner, exp.Explode | exp.Inline)


def select_generator(item: exp.Expr) -> Generator:
    """The SELECT item ``item`` (``is_generator``) as a generator."""
    names: tuple[str, ...] | None = None
    node = item
    if isinstance(item, exp.Aliases):
        node, names = item.this, tuple(i.name for i in item.expressions)
    elif isinstance(item, exp.Alias):
        node = item.this
        names = None if node.meta.get(UNNAMED) else (item.alias,)
    return _generator(node, outer=False, names=names)


def check_laterals(statement: exp.Expr) -> None:
    """Every lateral generator names its columns: refused before ``qualify``, which
    cannot expand ``*`` or place a column without them."""
    for node in statement.find_all(exp.Lateral):
        alias = node.args.get("alias")
        if alias is None or not alias.columns:
            raise unsupported(node, "a lateral generator without column names (AS name, ...)")


def lateral(relation: Relation, node: exp.Lateral) -> Relation:
    """``relation`` with the columns of the lateral generator ``node`` (named, see
    ``check_laterals``), qualified by its alias."""
    alias = node.args["alias"]
    columns = alias.columns
    generator = _generator(node.this, bool(node.args.get("outer")), tuple(c.name for c in columns))
    relation, added = generated(relation, generator, node)
    qualified = tuple(replace(a, qualifier=alias.name or None) for a in added)
    return Relation(relation.plan, (*relation.attrs[: -len(added)], *qualified))


def generated(relation: Relation, generator: Generator,
              where: exp.Expr) -> tuple[Relation, list[Attribute]]:
    """``relation`` with the generator's columns appended, and those columns; an error
    names ``where``."""
    try:
        op, added, _ = generate(relation.plan, relation.attrs, generator)
    except AnalysisError as exc:
        raise SqlError.at(where, str(exc)) from None
    return Relation(op, (*relation.attrs, *added)), added


def _generator(node: exp.Expr, outer: bool, names: tuple[str, ...] | None) -> Generator:
    if not isinstance(node, exp.Explode | exp.Inline):
        what = f"the generator {node.sql_name().lower()}" if isinstance(node, exp.Func) else "this FROM item"
        raise unsupported(node, what)
    if node.expressions:
        raise SqlError.at(node, f"{node.sql_name().lower()} takes one array or map")
    built = registry.generator(node.sql_name().lower(), expression(node.this))
    if outer:  # LATERAL VIEW OUTER
        built = replace(built, outer=True)
    return built if names is None else built.named(*names)
