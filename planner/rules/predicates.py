"""Splitting and joining conditions, for the rules that move them."""

from __future__ import annotations

from collections.abc import Sequence

from sparkwire.planner.expressions import Call, Expr


def conjuncts(expr: Expr | None) -> list[Expr]:
    """The ANDed parts of a condition, flattened."""
    if expr is None:
        return []
    if isinstance(expr, Call) and expr.fn == "and":
        return [part for arg in expr.args for part in conjuncts(arg)]
    return [expr]


def conjunction(parts: Sequence[Expr]) -> Expr | None:
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    return Call(fn="and", args=tuple(parts))
