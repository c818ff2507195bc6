"""``SqlError``: an ``AnalysisError`` that says where in the query it arose."""

from __future__ import annotations

from sqlglot import exp

from sparkwire.planner.errors import AnalysisError

_SNIPPET = 80


class SqlError(AnalysisError):
    """Unsupported or wrong SQL; the message names the construct and its place."""

    @classmethod
    def at(cls, node: exp.Expr, message: str) -> SqlError:
        return cls(f"{message}: {where(node)}")


def where(node: exp.Expr) -> str:
    """``line L, column C`` where the parser recorded it (it does on identifiers), and the
    construct as SQL text."""
    text = node.sql(dialect="spark")
    if len(text) > _SNIPPET:
        text = text[: _SNIPPET - 3] + "..."
    for candidate in (node, *node.find_all(exp.Identifier)):
        line, col = candidate.meta.get("line"), candidate.meta.get("col")
        if line is not None and col is not None:
            return f"{text!r} (near line {line}, column {col})"
    return repr(text)
