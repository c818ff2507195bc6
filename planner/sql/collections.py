"""SQL's array, map and struct syntax onto the DataFrame API's collection functions.

The plain calls (``array_contains``, ``size``, ``map_keys`` ...) are table entries in
``planner.sql.functions``; this module takes the forms sqlglot's Spark dialect parses
into shapes of their own, and builds each through the same ``F`` function a Python
program would call, so a call is checked and named alike from both:

- ``arr[i]`` (0-based), ``m['k']`` and ``s['f']`` are ``Bracket`` nodes, as is
  ``element_at(x, i)`` (``offset`` 1); ``try_element_at`` (``safe``) is refused;
- ``s.f`` on a struct is a ``Dot``;
- ``map(k1, v1, ...)`` is a ``VarMap`` of a key array and a value array;
- ``struct(a, b AS c, 1)`` and ``named_struct('c', b)`` are one ``Struct`` of ``name :=
  value`` items, sqlglot having named each field as Spark does (a column's own name,
  else ``col<position>``);
- ``sort_array(arr[, asc])`` and ``array_sort(arr)`` are one ``ArraySort``: ``sort_array``
  sorts NULLs first ascending, ``array_sort`` last, and only ``sort_array`` is in the
  DataFrame API.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from sparkwire.planner.logical import expressions as ex
import sparkwire.planner.api.functions as F
from sparkwire.planner.api.functions import Column
from sparkwire.planner.sql.errors import SqlError

Translate = Callable[[exp.Expression], ex.Expr]


def collection(node: exp.Expression, translate: Translate) -> ex.Expr | None:
    """The planner expression for a collection form, or None if ``node`` is none."""

    def column(part: exp.Expression) -> Column:
        return Column(translate(part))

    match node:
        case exp.Bracket():
            return _bracket(node, column)
        case exp.Dot() if isinstance(node.expression, exp.Identifier):
            return column(node.this).getField(node.expression.name).expr
        case exp.VarMap():
            keys, values = node.args["keys"].expressions, node.args["values"].expressions
            pairs = [column(part) for pair in zip(keys, values, strict=True) for part in pair]
            return F.create_map(*pairs).expr
        case exp.Struct():
            return F.struct(*(_field(item, column) for item in node.expressions)).expr
        case exp.ArraySort():
            return _sort_array(node, column)
    return None


def _bracket(node: exp.Bracket, column: Callable[[exp.Expression], Column]) -> ex.Expr:
    if len(node.expressions) != 1:
        raise SqlError.at(node, "a subscript takes one index or key")
    if node.args.get("safe"):
        raise SqlError.at(node, "try_element_at is not supported by sparkwire")
    container, key = column(node.this), column(node.expressions[0])
    if node.args.get("offset") == 1:
        return F.element_at(container, key).expr
    return container[key].expr


def _field(item: exp.Expression, column: Callable[[exp.Expression], Column]) -> Column:
    if isinstance(item, exp.PropertyEQ):
        return column(item.expression).alias(item.this.name)
    return column(item)


def _sort_array(node: exp.ArraySort, column: Callable[[exp.Expression], Column]) -> ex.Expr:
    asc = node.args.get("asc")
    if node.expression is not None or (asc is None and node.args.get("nulls_first") == exp.false()):
        raise SqlError.at(node, "array_sort is not supported by sparkwire (sort_array is)")
    if asc is not None and not isinstance(asc, exp.Boolean):
        raise SqlError.at(node, "sort_array takes its order as true or false")
    return F.sort_array(column(node.this), True if asc is None else asc.this).expr
