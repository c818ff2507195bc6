"""``listagg``/``listagg_distinct`` (``planner.logical.functions.listaggs``) as DuckDB's
``string_agg``: it skips NULLs and is NULL for a group of none, as Spark's ``ListAgg``.
Spark's NULL delimiter (no delimiter) is ``''``; ``WITHIN GROUP (ORDER BY key)`` is the
aggregate's own ``ORDER BY``, its NULL ordering written out (DuckDB's default is not Spark's).
"""

from __future__ import annotations

from sqlglot import exp

__all__ = ["listagg"]


def listagg(value: exp.Expr, separator: str | None, distinct: bool,
            key: exp.Expr | None, ascending: bool, nulls_first: bool) -> exp.Expr:
    """``string_agg`` of ``value``, ordered by ``key`` where given."""
    this: exp.Expr = exp.Distinct(expressions=[value]) if distinct else value
    if key is not None:
        this = exp.Order(this=this, expressions=[
            exp.Ordered(this=key, desc=not ascending, nulls_first=nulls_first)])
    return exp.GroupConcat(this=this, separator=exp.Literal.string(separator or ""))
