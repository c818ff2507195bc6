"""Small questions about sqlglot trees that the translator asks everywhere."""

from __future__ import annotations

from sqlglot import exp


def conjuncts(node: exp.Expression) -> list[exp.Expression]:
    node = node.unnest() if isinstance(node, exp.Paren) else node
    if isinstance(node, exp.And):
        return [*conjuncts(node.this), *conjuncts(node.expression)]
    return [node]


def has_subquery(node: exp.Expression) -> bool:
    return any(True for _ in node.find_all(exp.Subquery, exp.Exists)) or any(
        isinstance(n, exp.In) and n.args.get("query") is not None for n in node.find_all(exp.In)
    )


def in_nested_query(node: exp.Expression, top: exp.Expression) -> bool:
    parent = node.parent
    while parent is not None and parent is not top:
        if isinstance(parent, exp.Select | exp.Subquery):
            return True
        parent = parent.parent
    return False
