"""Splitting and joining conditions, for the rules that move them."""

from __future__ import annotations

from collections.abc import Sequence

from sparkwire.planner.logical.expressions import Call, Expr


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


def nonempty_conjunction(parts: Sequence[Expr]) -> Expr:
    """``conjunction`` of parts the caller knows are there: none is a planner bug."""
    whole = conjunction(parts)
    if whole is None:
        raise ValueError("a conjunction of no parts")
    return whole


def disjuncts(expr: Expr) -> list[Expr]:
    """The ORed parts of a condition, flattened."""
    if isinstance(expr, Call) and expr.fn == "or":
        return [part for arg in expr.args for part in disjuncts(arg)]
    return [expr]


def factor_common(expr: Expr) -> Expr:
    """``(A AND B) OR (A AND C)`` as ``A AND (B OR C)``, for every part common to all
    branches of an OR (distributivity holds in SQL's three-valued logic too). TPC-H Q19's
    three branches so share ``l_partkey = p_partkey``, a join key, and the conditions on
    one table each, which then move below the join."""
    branches = disjuncts(expr)
    if len(branches) < 2:
        return expr
    parts = [conjuncts(branch) for branch in branches]
    common = [p for p in dict.fromkeys(parts[0]) if all(p in other for other in parts[1:])]
    if not common:
        return expr
    rests = [conjunction([p for p in branch if p not in common]) for branch in parts]
    present = [rest for rest in rests if rest is not None]
    if len(present) < len(rests):  # a branch is all common: the OR is just that
        return nonempty_conjunction(common)
    either = present[0] if len(present) == 1 else Call(fn="or", args=tuple(present))
    return Call(fn="and", args=(*common, either))
