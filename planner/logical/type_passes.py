"""The typing passes a resolved expression goes through (``Scope.typed``), in their order:
lambda parameters typed (``lambdas``), Spark's arithmetic and casts (``typed``),
``to_char`` chosen by its operand (``typed_to_char``), map and struct lookups, date and time
operands (``local_time``), calls whose engine form depends on a type (``typed_calls``).

Each pass is a rewrite of the whole tree, and most trees (a join's equalities, a filter's
comparisons) hold nothing most passes act on: six rewrites of every condition were a tenth
of translating a TPC-DS query. So the calls a tree holds are listed once (again only after
a pass changed it), and a pass that acts on none of them is skipped; what each acts on is
declared beside it. ``local_time`` always runs: whether it acts depends on its operands'
types.
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from sparkwire.planner.logical import types
from sparkwire.planner.logical.expressions import Call, Expr
from sparkwire.planner.logical.lambdas import HIGHER_ORDER, bind_lambdas
from sparkwire.planner.logical.local_time import local_time
from sparkwire.planner.logical.tree import transform, walk
from sparkwire.planner.logical.typed import REWRITTEN_CALLS, REWRITTEN_NODES, spark_typed
from sparkwire.planner.logical.typed_calls import rewrites, typed_calls
from sparkwire.planner.logical.typed_to_char import TO_CHARS, to_chars

#: The calls ``map_lookups`` rewrites.
LOOKUPS = frozenset({"element_at", "get_item", "try_element_at"})


class _Held:
    """The function names of the calls in a tree, and whether it holds a node ``spark_typed``
    rewrites."""

    def __init__(self, expr: Expr) -> None:
        self.fns: set[str] = set()
        self.typed_nodes = False
        for node in walk(expr):
            if isinstance(node, Call):
                self.fns.add(node.fn)
            elif isinstance(node, REWRITTEN_NODES):
                self.typed_nodes = True


def spark_types(expr: Expr, columns: Mapping[str, pa.DataType]) -> Expr:
    """``expr`` (resolved against ``columns``) through every typing pass that acts on it."""
    held = _Held(expr)

    def after(new: Expr, old: Expr) -> Expr:
        nonlocal held
        if new is not old:
            held = _Held(new)
        return new

    if not held.fns.isdisjoint(HIGHER_ORDER):
        expr = after(bind_lambdas(expr, columns), expr)
    if held.typed_nodes or not held.fns.isdisjoint(REWRITTEN_CALLS):
        expr = after(spark_typed(expr, columns), expr)
    if not held.fns.isdisjoint(TO_CHARS):
        expr = after(to_chars(expr, columns), expr)
    if not held.fns.isdisjoint(LOOKUPS):
        expr = after(map_lookups(expr, columns), expr)
    expr = after(local_time(expr, columns), expr)
    if any(rewrites(fn) for fn in held.fns):
        expr = typed_calls(expr, columns)
    return expr


def map_lookups(expr: Expr, columns: Mapping[str, pa.DataType]) -> Expr:
    """``element_at``, ``try_element_at`` and ``[]`` of a map are key lookups
    (``map_value``), ``[]`` of a struct takes a field: the worker's array forms are 1- and
    0-based indexes that fail out of bounds (``try_element_at``'s give NULL), as Spark's do."""

    def visit(node: Expr) -> Expr | None:
        if isinstance(node, Call) and node.fn in LOOKUPS:
            args = tuple(map_lookups(a, columns) for a in node.args)
            container = types.infer(args[0], columns)
            if pa.types.is_map(container):
                return Call(fn="map_value", args=args)
            if pa.types.is_struct(container) and node.fn == "get_item":
                return Call(fn="get_field", args=args)
            return Call(fn=node.fn, args=args)
        return None

    return transform(expr, visit)
