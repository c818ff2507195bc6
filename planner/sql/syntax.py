"""Small questions about sqlglot trees that the translator asks everywhere."""

from __future__ import annotations

from sqlglot import exp


def conjuncts(node: exp.Expr) -> list[exp.Expr]:
    node = node.unnest() if isinstance(node, exp.Paren) else node
    if isinstance(node, exp.And):
        return [*conjuncts(node.this), *conjuncts(node.expression)]
    return [node]


def is_lambda_exists(node: exp.Expr) -> bool:
    """``exists(array, x -> ...)``, a higher-order function sqlglot parses as an ``EXISTS``
    (a subquery's has no lambda)."""
    return isinstance(node, exp.Exists) and isinstance(node.expression, exp.Lambda)


def has_subquery(node: exp.Expr) -> bool:
    return any(not is_lambda_exists(n) for n in node.find_all(exp.Subquery, exp.Exists)) or any(
        isinstance(n, exp.In) and n.args.get("query") is not None for n in node.find_all(exp.In)
    )


def inline_windows(select: exp.Select) -> None:
    """Write each named window (``WINDOW w AS (...)``) into the ``OVER w`` that use it, in
    place; an ``OVER (w ROWS ...)`` keeps its own frame and adds the window's keys."""
    named = {w.name.casefold(): w for w in select.args.get("windows") or []}
    if not named:
        return
    for use in select.find_all(exp.Window):
        ref = use.args.get("alias")
        if ref is None or ref.name.casefold() not in named:
            continue
        base = named[ref.name.casefold()]
        for part in ("partition_by", "order", "spec"):
            if not use.args.get(part) and base.args.get(part):
                use.set(part, base.args[part].copy() if part != "partition_by"
                        else [e.copy() for e in base.args[part]])
        use.set("alias", None)
    select.set("windows", None)


def in_nested_query(node: exp.Expr, top: exp.Expr) -> bool:
    parent = node.parent
    while parent is not None and parent is not top:
        if isinstance(parent, exp.Select | exp.Subquery):
            return True
        parent = parent.parent
    return False
