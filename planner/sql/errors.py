"""``SqlError``: an ``AnalysisError`` that says where in the query it arose."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlglot import exp

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.analyzer import quote
from sparkwire.planner.sql.global_views import GLOBAL_TEMP

_SNIPPET = 80


class SqlError(AnalysisError):
    """Unsupported or wrong SQL; the message names the construct and its place."""

    @classmethod
    def at(cls, node: exp.Expr, message: str, condition: str | None = None,
           parameters: dict[str, str] | None = None) -> SqlError:
        return cls(f"{message}: {where(node)}", condition=condition, parameters=parameters)


def syntax_error(message: str, error: Mapping[str, Any]) -> SqlError:
    """Spark's ``PARSE_SYNTAX_ERROR`` for sqlglot's first parse error; the token it names is
    sqlglot's, which may differ from the one Spark's parser stops at."""
    token = error.get("highlight")
    return SqlError(message, condition="PARSE_SYNTAX_ERROR",
                    parameters={"error": f"'{token}'" if token else "end of input", "hint": ""})


def unknown_table(node: exp.Table, known: str) -> SqlError:
    """Spark's ``TABLE_OR_VIEW_NOT_FOUND`` for a table that is no view (nor CTE)."""
    # a global view's name in the catalog (``planner.sql.global_views``) is shown as Spark
    # shows the two parts of ``global_temp.v``
    parts = node.name.split(".", 1) if node.name.startswith(f"{GLOBAL_TEMP}.") else [node.name]
    return SqlError.at(node, f"unknown table {node.name!r}; known tables: {known}",
                       condition="TABLE_OR_VIEW_NOT_FOUND",
                       parameters={"relationName": ".".join(map(quote, parts)),
                                   "searchPath": "[`system`.`builtin`, `system`.`session`, `spark_catalog`.`default`]"})


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
