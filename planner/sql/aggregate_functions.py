"""SQL calls of Spark's other spellings of the aggregates, ``mode`` and the ``try_``
aggregates (``planner.logical.functions.aggregate_forms``): the node classes sqlglot
parses them into, and the names it leaves anonymous, merged into ``planner.sql.functions``'
tables.

sqlglot reads ``percentile_approx`` and ``approx_percentile`` into one node: both are
named ``percentile_approx(...)`` here. ``first_value(x)``/``last_value(x)`` (and with
a second argument) keep their names; under ``IGNORE NULLS`` they are ``first``/``last``, as
Spark names them; ``planner.sql.expressions`` reads them (``EDGES``), in a window or not.
"""

from __future__ import annotations

from sqlglot import exp

#: node class -> (the node's arguments, in order, that are the call's) and the registry's name
AGGREGATE_CLASSES: dict[type[exp.Expr], tuple[tuple[str, ...], str]] = {
    exp.Mode: (("this", "deterministic"), "mode"),
    exp.ApproxQuantile: (("this", "quantile", "accuracy"), "percentile_approx"),
}
#: The ones sqlglot leaves as anonymous calls, resolved by their own names.
AGGREGATE_NAMES = frozenset({"try_sum", "try_avg"})
#: first/last and their value forms, as sqlglot reads them, by the registry's names.
EDGES: dict[type[exp.Expr], str] = {
    exp.First: "first", exp.Last: "last", exp.FirstValue: "first_value", exp.LastValue: "last_value",
}
#: The same under ``IGNORE NULLS``, which Spark reads as ``first``/``last`` and names so.
IGNORING_NULLS: dict[type[exp.Expr], str] = {
    exp.First: "first", exp.Last: "last", exp.FirstValue: "first", exp.LastValue: "last",
}
