"""ORDER BY keys that are not outputs of the SELECT, as hidden columns (Spark's
``ResolveMissingReferences`` and, for aggregates, ``ResolveAggregateFunctions``).

A key names the SELECT's outputs when it resolves against them: an output's name, or a
column an output passes through (``planner.sql.outputs.order_limit``). Any other key, an
input column not selected (TPC-DS q84's ``c_customer_id``), an expression over input
columns (q79's ``substring(s_city, 1, 30)``), an aggregate (q16's ``count(DISTINCT
cs_order_number)``, q96's ``count(*)``), is computed by the SELECT as one more item under a
name of its own, the rows are sorted (and cut by LIMIT) on it, and a projection drops it.
Grouped, the key is rewritten as every SELECT item is (``planner.logical.aggregation``):
a group key's expression is that key, an aggregate call is computed once by the
``Aggregate`` with the same call of another item; a column neither grouped nor aggregated is
refused, as Spark refuses it.

A key holding an aggregate never resolves against the outputs: they are per-row values
over the aggregate's result, and a ``Sort`` of an aggregate call would hand the worker SQL
that DuckDB rejects (q96 did before this module). Nor does one holding ``grouping()``/``grouping_id()``
(q86): only the aggregate over grouping sets can answer it (``planner.logical.grouping_sets``).
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.planner.logical.analyzer import Relation
from sparkwire.planner.logical.tree import has_aggregate, has_grouping
from sparkwire.planner.sql.expressions import expression, unsupported
from sparkwire.planner.sql.syntax import has_subquery


def hidden_order_keys(node: exp.Select, relation: Relation) -> list[exp.Ordered]:
    """The ORDER BY keys of ``node`` that do not name an output of ``relation`` (its SELECT
    list), in ORDER BY's order; a SELECT DISTINCT, whose rows are its outputs, has none."""
    order = node.args.get("order")
    if order is None:
        return []
    hidden = [o for o in order.expressions if not names_output(o, relation)]
    for key in hidden:
        if node.args.get("distinct") is not None:
            raise unsupported(key, "ORDER BY an expression not in the SELECT list of a SELECT DISTINCT")
    return hidden


def names_output(node: exp.Ordered, relation: Relation) -> bool:
    """Whether the key is an output of ``relation``, or an expression over its outputs (a
    scalar subquery is computed as a hidden key, ``planner.sql.scalars``)."""
    if has_subquery(node):
        return False
    key = expression(node.this)
    if has_aggregate(key) or has_grouping(key):
        return False
    return relation.scope.probe(key) is not None
