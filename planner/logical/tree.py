"""Generic walks over expression trees, so no pass re-implements the node cases."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from sparkwire.planner.logical.identifiers import MAX_IDENTIFIER_LENGTH
from sparkwire.planner.logical.expressions import (
    AggCall,
    Call,
    Case,
    Cast,
    Column,
    Expr,
    Grouping,
    Lambda,
    LambdaVar,
    Lit,
    Over,
    Ref,
    WindowCall,
)


def children(expr: Expr) -> tuple[Expr, ...]:
    part = _PARTS.get(type(expr))  # by exact type first: planning asks this of every node
    return part(expr) if part is not None else _children(expr)


def _children(expr: Expr) -> tuple[Expr, ...]:
    if isinstance(expr, Call | Grouping):
        return expr.args
    if isinstance(expr, AggCall):
        return tuple(e for e in (expr.arg, expr.other) if e is not None)
    if isinstance(expr, WindowCall):
        return tuple(e for e in (expr.arg, expr.default, expr.start) if e is not None)
    if isinstance(expr, Over):
        return (expr.function, *expr.partition_by, *(k.expr for k in expr.order_by))
    if isinstance(expr, Case):
        flat = tuple(part for branch in expr.branches for part in branch)
        return flat if expr.otherwise is None else (*flat, expr.otherwise)
    if isinstance(expr, Cast):
        return (expr.expr,)
    if isinstance(expr, Lambda):
        return (expr.body,)
    return ()


def _no_parts(expr: Expr) -> tuple[Expr, ...]:
    return ()


def _args(expr: Expr) -> tuple[Expr, ...]:
    return expr.args  # type: ignore[union-attr]  # only for Call and Grouping, below


#: ``_children`` of the commonest node types, and of the leaves, found without its chain
#: of ``isinstance`` checks (walks and rewrites ask it of every node of every tree).
_PARTS: dict[type, Callable[[Expr], tuple[Expr, ...]]] = {
    Call: _args, Grouping: _args, Column: _no_parts, Lit: _no_parts, Ref: _no_parts,
    LambdaVar: _no_parts,
}
#: Node types that hold no expression.
_LEAVES = frozenset({Column, Lit, Ref, LambdaVar})


def walk(
    expr: Expr, *, into_aggregates: bool = True, into_windows: bool = True
) -> Iterator[Expr]:
    """Pre-order; ``into_aggregates=False`` stops at aggregate calls, ``into_windows=False``
    at window expressions (yielding them). Iterative: a recursive generator passed every
    node up through each level above it."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if not into_aggregates and isinstance(node, AggCall):
            continue
        if not into_windows and isinstance(node, Over):
            continue
        parts = children(node)
        if parts:
            stack.extend(reversed(parts))


def transform(expr: Expr, replace: Callable[[Expr], Expr | None]) -> Expr:
    """Rebuild ``expr`` top-down; where ``replace`` returns a node it is used as is. A node
    whose children all come back as they were is kept, not built again: most of a tree is
    untouched by a rewrite, and validating its copies was a tenth of planning."""
    new = replace(expr)
    if new is not None:
        return new
    if type(expr) in _LEAVES:
        return expr
    if isinstance(expr, Call):
        args = tuple(transform(a, replace) for a in expr.args)
        return expr if _same(args, expr.args) else Call(fn=expr.fn, args=args)
    if isinstance(expr, Grouping):
        args = tuple(transform(a, replace) for a in expr.args)
        return expr if _same(args, expr.args) else expr.model_copy(update={"args": args})
    if isinstance(expr, AggCall):
        arg = None if expr.arg is None else transform(expr.arg, replace)
        other = None if expr.other is None else transform(expr.other, replace)
        if arg is expr.arg and other is expr.other:
            return expr
        return expr.model_copy(update={"arg": arg, "other": other})
    if isinstance(expr, Case):
        branches = tuple((transform(c, replace), transform(v, replace)) for c, v in expr.branches)
        otherwise = None if expr.otherwise is None else transform(expr.otherwise, replace)
        if otherwise is expr.otherwise and all(
                _same(new, old) for new, old in zip(branches, expr.branches, strict=True)):
            return expr
        return Case(branches=branches, otherwise=otherwise)
    if isinstance(expr, Cast):
        inner = transform(expr.expr, replace)
        return expr if inner is expr.expr else expr.model_copy(update={"expr": inner})
    if isinstance(expr, Lambda):
        body = transform(expr.body, replace)
        return expr if body is expr.body else expr.model_copy(update={"body": body})
    if isinstance(expr, WindowCall):
        arg = None if expr.arg is None else transform(expr.arg, replace)
        default = None if expr.default is None else transform(expr.default, replace)
        start = None if expr.start is None else transform(expr.start, replace)
        if arg is expr.arg and default is expr.default and start is expr.start:
            return expr
        return expr.model_copy(update={"arg": arg, "default": default, "start": start})
    if isinstance(expr, Over):
        function = transform(expr.function, replace)
        partition_by = tuple(transform(e, replace) for e in expr.partition_by)
        order_exprs = tuple(transform(k.expr, replace) for k in expr.order_by)
        if function is expr.function and _same(partition_by, expr.partition_by) and _same(
                order_exprs, tuple(k.expr for k in expr.order_by)):
            return expr
        return expr.model_copy(update={
            "function": function,
            "partition_by": partition_by,
            "order_by": tuple(k.model_copy(update={"expr": e})
                              for k, e in zip(expr.order_by, order_exprs, strict=True)),
        })
    return expr


def _same(new: Sequence[object], old: Sequence[object]) -> bool:
    return len(new) == len(old) and all(a is b for a, b in zip(new, old, strict=True))


def column_names(expr: Expr, *, into_aggregates: bool = True) -> list[str]:
    """Referenced column names, each once, in order of first appearance."""
    names = (n.name for n in walk(expr, into_aggregates=into_aggregates) if isinstance(n, Column))
    return list(dict.fromkeys(names))


def window_inputs(over: Over) -> tuple[Expr, ...]:
    """What a window expression computes over: its function's arguments, its partition and
    order keys; not the function itself, which the ``Window`` operator computes."""
    return (*children(over.function), *over.partition_by, *(k.expr for k in over.order_by))


def has_aggregate(expr: Expr) -> bool:
    """An aggregate call computed per group: outside any window function (``sum(x) OVER w``
    is a per-row value), or inside a window's inputs (``sum(sum(x)) OVER w``, ``rank() OVER
    (ORDER BY sum(x))`` are windows over an aggregate's output, as in Spark)."""
    if isinstance(expr, AggCall):
        return True
    parts = window_inputs(expr) if isinstance(expr, Over) else children(expr)
    return any(has_aggregate(part) for part in parts)


def transform_grouped(expr: Expr, replace: Callable[[Expr], Expr | None]) -> Expr:
    """``transform`` of the parts of ``expr`` an aggregate computes: a window expression
    keeps its function and has its inputs transformed (``window_inputs``), so ``sum(sum(x))
    OVER w`` becomes ``sum(c) OVER w`` over the column ``c`` holding ``sum(x)``."""

    def visit(node: Expr) -> Expr | None:
        if not isinstance(node, Over):
            return replace(node)
        function = node.function
        kept = transform(function, lambda n: None if n is function else transform_grouped(n, replace))
        return node.model_copy(update={
            "function": kept,
            "partition_by": tuple(transform_grouped(e, replace) for e in node.partition_by),
            "order_by": tuple(k.model_copy(update={"expr": transform_grouped(k.expr, replace)})
                              for k in node.order_by),
        })

    return transform(expr, visit)


def has_grouping(expr: Expr) -> bool:
    """A ``grouping()`` or ``grouping_id()`` call, which only grouping sets can answer."""
    return any(isinstance(node, Grouping) for node in walk(expr))


def has_window(expr: Expr) -> bool:
    """A window expression, or a window function missing its ``OVER``."""
    return any(isinstance(node, Over | WindowCall) for node in walk(expr))


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
