"""The ``Expand`` operator (grouping sets): every input row once per grouping set.

Compiled as the input cross-joined with a ``VALUES`` list of the sets' grouping ids, each key
``CASE WHEN id & bit = 0 THEN key END``. The input is read once: a fragment's input is often
an exchange, an Arrow stream DuckDB can scan only once, which rules out the ``UNION ALL`` of
one projection per set that Spark's plan suggests; and DuckDB's ``UNNEST`` of a list of
structs per row measured 2-3x slower than either (CHANGELOG, issue 34). The key keeps its
type: a NULLed key is a typed NULL, and the id tells it from a NULL value.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.context import Context, unique_names
from sparkwire.coordinator.worker.compile.nodes import cast, col, ident, paren, select_from
from sparkwire.planner.logical.plan import Expand, output_columns

__all__ = ["expand"]


def expand(ctx: Context, op: Expand) -> exp.Select:
    """``SELECT <input columns>, <keys or NULL>, <id> FROM (input) CROSS JOIN (VALUES ...)``."""
    passed = output_columns(op.input)
    unique_names(output_columns(op), "expand")
    source = ctx.input(op.input)
    rows = [exp.Tuple(expressions=[cast(exp.Literal.number(s), "BIGINT")]) for s in op.sets]
    alias = exp.TableAlias(this=ident("_sets"), columns=[ident(op.grouping_id)])
    sets = exp.Subquery(this=exp.Values(expressions=rows), alias=alias)
    width = len(op.keys)
    keys: list[exp.Expr] = []
    for i, key in enumerate(op.keys):
        bit = exp.BitwiseAnd(this=col(op.grouping_id), expression=exp.Literal.number(1 << (width - 1 - i)))
        kept = exp.EQ(this=exp.Paren(this=bit), expression=exp.Literal.number(0))
        value = exp.Case(ifs=[exp.If(this=kept, true=paren(ctx.expr(key.expr)))])
        keys.append(exp.alias_(value, ident(key.name)))
    outputs = [*map(col, passed), *keys, col(op.grouping_id)]
    return select_from(outputs, source).join(sets, join_type="cross", copy=False)
