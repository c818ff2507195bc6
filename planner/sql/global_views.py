"""Spark's ``global_temp`` database in SQL text: ``SELECT * FROM global_temp.v``.

Spark keeps global temporary views apart from a session's own, in a database of their own
that a query must name (an unqualified ``v`` is never one). The session hands the SQL front
end its global views under ``global_key(v)``, a name no temporary view can have (a view's
name is one part, so it has no dot); this module rewrites each ``global_temp.v`` of a query
to that name before anything resolves it, keeping ``v`` as the table's alias so ``v.x``
reads as in Spark. Any other schema name is left for ``Context.table`` to refuse.
"""

from __future__ import annotations

from sqlglot import exp

#: The database Spark keeps global temporary views in (its static ``spark.sql.globalTempDatabase``).
GLOBAL_TEMP = "global_temp"


def global_key(name: str) -> str:
    """The name the SQL catalog holds the global view ``name`` under."""
    return f"{GLOBAL_TEMP}.{name.casefold()}"


def unqualify_globals(statement: exp.Expr) -> None:
    """Each table named ``global_temp.v`` (any case, no catalog) becomes ``global_key(v)``
    aliased ``v`` unless the query gave it an alias."""
    for table in statement.find_all(exp.Table):
        if table.args.get("catalog") is not None or table.args.get("db") is None:
            continue
        if table.db.casefold() != GLOBAL_TEMP:
            continue
        name = table.name
        table.set("db", None)
        table.set("this", exp.to_identifier(global_key(name), quoted=True))
        if not table.alias:
            table.set("alias", exp.TableAlias(this=exp.to_identifier(name)))
