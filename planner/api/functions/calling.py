"""``call_function`` and ``collation`` of ``pyspark.sql.functions``, re-exported by
``planner.api.functions``.

``call_function(name, *cols)`` calls a builtin by its name through the function registry
(``planner.logical.functions.registry``), as Spark's resolves it in its function registry:
a name in any case, optionally in backticks or qualified by ``system.builtin`` (Spark's
schema of builtins); a name the registry lacks (a UDF, a persistent function) is refused
with the registry's message. ``collation``: ``planner.logical.functions.collations``.
"""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName
from sparkwire.planner.api.functions.core import call, exprs
from sparkwire.planner.api.functions.unary import of_one_column

__all__ = ["call_function", "collation"]

collation = of_one_column("collation")
_BUILTIN = ("system", "builtin")


def call_function(funcName: str, *cols: ColumnOrName) -> Column:  # noqa: N803 - PySpark's name
    parts = [part.strip().removeprefix("`").removesuffix("`") for part in funcName.split(".")]
    if len(parts) == 3 and tuple(p.casefold() for p in parts[:2]) == _BUILTIN:
        parts = parts[2:]
    return call(".".join(parts), *exprs(list(cols)))
