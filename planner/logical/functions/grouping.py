"""``grouping(col)`` and ``grouping_id(cols...)``: which keys a grouping set left out. They
build a ``Grouping`` node, which only an aggregate over grouping sets can answer
(``planner.logical.grouping_sets`` rewrites it over the grouping id: a tinyint bit, a
bigint id, as Spark's)."""

from __future__ import annotations

from sparkwire.planner.logical.expressions import Expr, Grouping
from sparkwire.planner.logical.functions.base import Function


def _grouping(column: Expr) -> Expr:
    return Grouping(fn="grouping", args=(column,))


def _grouping_id(*columns: Expr) -> Expr:
    return Grouping(fn="grouping_id", args=columns)


FUNCTIONS = (Function.of("grouping", _grouping), Function.of("grouping_id", _grouping_id))
