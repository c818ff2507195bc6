"""``collation(s)`` (``planner.logical.functions.collations``): the one collation a
string on a worker has, whatever its value (NULL included, as Spark folds it)."""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, arity

__all__ = ["COLLATION_CALLS"]

UTF8_BINARY = "SYSTEM.BUILTIN.UTF8_BINARY"


def _collation(args: list[exp.Expr]) -> exp.Expr:
    arity("collation", args, 1)
    return exp.Literal.string(UTF8_BINARY)


COLLATION_CALLS: dict[str, Builder] = {"collation": _collation}
