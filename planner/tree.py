"""Generic walks over expression trees, so no pass re-implements the node cases."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from sparkwire.planner.expressions import MAX_IDENTIFIER_LENGTH, AggCall, Call, Case, Cast, Column, Expr


def children(expr: Expr) -> tuple[Expr, ...]:
    if isinstance(expr, Call):
        return expr.args
    if isinstance(expr, AggCall):
        return () if expr.arg is None else (expr.arg,)
    if isinstance(expr, Case):
        flat = tuple(part for branch in expr.branches for part in branch)
        return flat if expr.otherwise is None else (*flat, expr.otherwise)
    if isinstance(expr, Cast):
        return (expr.expr,)
    return ()


def walk(expr: Expr, *, into_aggregates: bool = True) -> Iterator[Expr]:
    """Pre-order; ``into_aggregates=False`` stops at aggregate calls (yielding them)."""
    yield expr
    if isinstance(expr, AggCall) and not into_aggregates:
        return
    for child in children(expr):
        yield from walk(child, into_aggregates=into_aggregates)


def transform(expr: Expr, replace: Callable[[Expr], Expr | None]) -> Expr:
    """Rebuild ``expr`` top-down; where ``replace`` returns a node it is used as is."""
    new = replace(expr)
    if new is not None:
        return new
    if isinstance(expr, Call):
        return Call(fn=expr.fn, args=tuple(transform(a, replace) for a in expr.args))
    if isinstance(expr, AggCall):
        arg = None if expr.arg is None else transform(expr.arg, replace)
        return expr.model_copy(update={"arg": arg})
    if isinstance(expr, Case):
        branches = tuple((transform(c, replace), transform(v, replace)) for c, v in expr.branches)
        otherwise = None if expr.otherwise is None else transform(expr.otherwise, replace)
        return Case(branches=branches, otherwise=otherwise)
    if isinstance(expr, Cast):
        return expr.model_copy(update={"expr": transform(expr.expr, replace)})
    return expr


def column_names(expr: Expr, *, into_aggregates: bool = True) -> list[str]:
    """Referenced column names, each once, in order of first appearance."""
    names = (n.name for n in walk(expr, into_aggregates=into_aggregates) if isinstance(n, Column))
    return list(dict.fromkeys(names))


def has_aggregate(expr: Expr) -> bool:
    return any(isinstance(node, AggCall) for node in walk(expr))


def fresh_name(base: str, taken: set[str]) -> str:
    """``base``, or ``base#2``, ``base#3`` ... whichever is free; the result is added to
    ``taken``. Planner-made names must never capture a user's column."""
    name, n = base, 1
    while name in taken:
        n += 1
        suffix = f"#{n}"
        name = base[: MAX_IDENTIFIER_LENGTH - len(suffix)] + suffix
    taken.add(name)
    return name
