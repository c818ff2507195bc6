"""What a function builder is given and how it checks it: the three builder signatures, the
argument count, and the values of literal arguments.

A builder turns compiled arguments into one DuckDB expression. Most take the arguments only
(``Builder``); those whose SQL depends on Spark's ANSI mode also take the mode
(``ModeBuilder``, ``calls.MODE_CALLS``), and those that name the session time zone take the
zone (``ZoneBuilder``, ``calls.ZONE_CALLS``). The plan model already checked each call's
arity and which arguments are literals; these checks are the compiler's second line, and a
failure is a ``CompileError`` (a planner bug).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlglot import exp

from sparkwire.coordinator.worker.compile.errors import CompileError

Builder = Callable[[list[exp.Expr]], exp.Expr]
#: A builder whose SQL depends on Spark's ANSI mode (its second argument).
ModeBuilder = Callable[[Sequence[exp.Expr], bool], exp.Expr]
#: A builder whose SQL names the session time zone (its second argument).
ZoneBuilder = Callable[[list[exp.Expr], str], exp.Expr]


def arity(fn: str, args: list[exp.Expr], n: int) -> None:
    if len(args) != n:
        raise CompileError(f"{fn} takes {n} argument(s), got {len(args)}")


def literal_text(node: exp.Expr, what: str) -> str:
    """The text of a string literal argument (the plan model made sure it is one)."""
    if isinstance(node, exp.Literal) and node.is_string:
        return node.this
    raise CompileError(f"{what} must be a string literal")


def literal_int(node: exp.Expr, what: str) -> int:
    if isinstance(node, exp.Neg):
        return -literal_int(node.this, what)
    if isinstance(node, exp.Literal) and not node.is_string:
        return int(node.this)
    raise CompileError(f"{what} must be an integer literal")
