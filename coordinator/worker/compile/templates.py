"""Fixed DuckDB expressions with holes, for builders that need more than one node.

A template is constant SQL written in this package (never user text), parsed once by
sqlglot; each use copies the tree and puts argument nodes (parenthesised, so precedence
holds) where ``:name`` placeholders stand. User data only ever enters as nodes.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlglot
from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder
from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.nodes import DIALECT, paren


def template(sql: str) -> Callable[..., exp.Expr]:
    tree = sqlglot.parse_one(sql, dialect=DIALECT)

    def fill(**nodes: exp.Expr) -> exp.Expr:
        def put(node: exp.Expr) -> exp.Expr:
            if isinstance(node, exp.Placeholder):
                return paren(nodes[node.name].copy())
            return node

        return exp.Paren(this=tree.transform(put))

    return fill


def over(sql: str, *names: str) -> Builder:
    """A builder filling ``sql``'s placeholders with the call's arguments, in order."""
    fill = template(sql)

    def build(args: list[exp.Expr]) -> exp.Expr:
        if len(args) != len(names):
            raise CompileError(f"{sql!r} takes {len(names)} argument(s), got {len(args)}")
        return fill(**dict(zip(names, args, strict=True)))

    return build
