"""SQL's array, map and struct syntax onto the function registry's collection functions.

The plain calls (``array_contains``, ``size``, ``map_keys`` ...) are table entries in
``planner.sql.functions``; this module takes the forms sqlglot's Spark dialect parses
into shapes of their own, and builds each through the registry
(``planner.logical.functions.collections``), as the DataFrame API does, so a call is checked
and named alike from both:

- ``arr[i]`` (0-based), ``m['k']`` and ``s['f']`` are ``Bracket`` nodes, as is
  ``element_at(x, i)`` (``offset`` 1) and ``try_element_at(x, i)`` (``safe``);
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
from sparkwire.planner.logical.functions import registry
from sparkwire.planner.logical.functions.base import alias
from sparkwire.planner.logical.functions.collections import struct_of
from sparkwire.planner.sql.errors import SqlError

Translate = Callable[[exp.Expr], ex.Expr]


def collection(node: exp.Expr, translate: Translate) -> ex.Expr | None:
    """The planner expression for a collection form, or None if ``node`` is none."""
    match node:
        case exp.Bracket():
            return _bracket(node, translate)
        case exp.Dot() if isinstance(node.expression, exp.Identifier):
            return registry.call("get_field", translate(node.this), ex.Lit(value=node.expression.name))
        case exp.VarMap():
            keys, values = node.args["keys"].expressions, node.args["values"].expressions
            pairs = [translate(part) for pair in zip(keys, values, strict=True) for part in pair]
            return registry.call("create_map", *pairs)
        case exp.Struct():
            return struct_of([_field(item, translate) for item in node.expressions])
        case exp.ArraySort():
            return _sort_array(node, translate)
    return None


def _bracket(node: exp.Bracket, translate: Translate) -> ex.Expr:
    if len(node.expressions) != 1:
        raise SqlError.at(node, "a subscript takes one index or key")
    container, key = translate(node.this), translate(node.expressions[0])
    if node.args.get("safe"):
        return registry.call("try_element_at", container, key)
    return registry.call("element_at" if node.args.get("offset") == 1 else "get_item", container, key)


def _field(item: exp.Expr, translate: Translate) -> tuple[ex.Expr, str | None]:
    if isinstance(item, exp.PropertyEQ):
        return translate(item.expression), alias(item.this.name)
    return translate(item), None


def _sort_array(node: exp.ArraySort, translate: Translate) -> ex.Expr:
    asc = node.args.get("asc")
    if node.expression is not None or (asc is None and node.args.get("nulls_first") == exp.false()):
        raise SqlError.at(node, "array_sort is not supported by sparkwire (sort_array is)")
    if asc is not None and not isinstance(asc, exp.Boolean):
        raise SqlError.at(node, "sort_array takes its order as true or false")
    return registry.call("sort_array", translate(node.this), ex.Lit(value=True if asc is None else asc.this))
