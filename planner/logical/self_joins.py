"""Equalities that name one column of one DataFrame on both sides of a self-join, resolved
as Spark resolves them.

``df.join(df, df.a == df.a)``, or ``df.join(df2, df.a == df2.a)`` where ``df2`` is ``df``
filtered: both sides came through ``df``, so ``df.a`` names a column on each side and is
ambiguous on its own. Spark sees the same attribute on both sides of the equality, a
condition that is trivially true, and resolves it against the left side for the first
operand and the right side for the second (``Dataset.join``'s ``resolveSelfJoinCondition``,
for ``=`` and ``<=>``). sparkwire does the equivalent where its resolution would otherwise
fail: an ``=`` or ``<=>`` of two DataFrame references (``df["a"]``, ``df.a``), one of them ambiguous across the sides,
whose first operand resolves on one side and second on the other. Any other use of an
ambiguous reference (``df.a > df2.a``) stays an ambiguity error, as Spark's
``AMBIGUOUS_SELF_JOIN`` check reports it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Call, Expr, Ref


class Scope(Protocol):
    """One side's names (``planner.logical.analyzer.Scope``, which imports this module)."""

    def resolve(self, expr: Expr) -> Expr: ...

_EQUALITIES = ("eq", "eq_null_safe")


def self_join_equality(node: Expr, sides: Callable[[], tuple[Scope, Scope]]) -> Expr | None:
    """``node`` resolved as a self-join equality (its operands plan columns of the left and
    the right side), or None when it is not one. ``sides`` gives the two sides' scopes,
    asked only of an equality of two references: building them was a tenth of a SQL join's
    analysis, and SQL never writes a reference."""
    if not (isinstance(node, Call) and node.fn in _EQUALITIES and len(node.args) == 2):
        return None
    first, second = node.args
    if not (isinstance(first, Ref) and isinstance(second, Ref)):  # df["a"], not F.col("a")
        return None
    left, right = sides()
    if not (_ambiguous(first, left, right) or _ambiguous(second, left, right)):
        return None
    for a, b in ((left, right), (right, left)):
        found_first, found_second = _found(first, a), _found(second, b)
        if found_first is not None and found_second is not None:
            return Call(fn=node.fn, args=(found_first, found_second))
    return None


def _ambiguous(ref: Ref, left: Scope, right: Scope) -> bool:
    return _found(ref, left) is not None and _found(ref, right) is not None


def _found(ref: Ref, scope: Scope) -> Expr | None:
    """The plan column ``ref`` names in ``scope``, if exactly one."""
    try:
        return scope.resolve(ref)
    except AnalysisError:
        return None
