"""SQL calls of the functions that read the session (``current_database()`` ...,
``planner.logical.functions.session_info``): the node classes sqlglot parses them into,
and the names it leaves anonymous, merged into ``planner.sql.functions``' tables."""

from __future__ import annotations

from sqlglot import exp

#: node class -> (no arguments) and the registry's name
SESSION_CLASSES: dict[type[exp.Expr], tuple[tuple[str, ...], str]] = {
    exp.CurrentDatabase: ((), "current_database"),
    exp.CurrentSchema: ((), "current_schema"),
    exp.CurrentCatalog: ((), "current_catalog"),
    exp.CurrentUser: ((), "current_user"),
    exp.SessionUser: ((), "session_user"),
}
#: The ones sqlglot leaves as anonymous calls, resolved by their own names.
SESSION_NAMES = frozenset({"user", "version", "current_path"})
