"""The vector functions of ``pyspark.sql.functions`` (PySpark 4.3), re-exported by
``planner.api.functions``; built, and their semantics written down, in
``planner.logical.functions.vectors``."""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName, to_column
from sparkwire.planner.api.functions.core import call

__all__ = ["vector_cosine_similarity", "vector_inner_product", "vector_l2_distance", "vector_norm",
           "vector_normalize", "vector_sum", "vector_avg"]


def vector_inner_product(left: ColumnOrName, right: ColumnOrName) -> Column:
    return call("vector_inner_product", to_column(left).expr, to_column(right).expr)


def vector_cosine_similarity(left: ColumnOrName, right: ColumnOrName) -> Column:
    return call("vector_cosine_similarity", to_column(left).expr, to_column(right).expr)


def vector_l2_distance(left: ColumnOrName, right: ColumnOrName) -> Column:
    return call("vector_l2_distance", to_column(left).expr, to_column(right).expr)


def vector_norm(vector: ColumnOrName, degree: ColumnOrName | None = None) -> Column:
    given = () if degree is None else (to_column(degree).expr,)
    return call("vector_norm", to_column(vector).expr, *given)


def vector_normalize(vector: ColumnOrName, degree: ColumnOrName | None = None) -> Column:
    given = () if degree is None else (to_column(degree).expr,)
    return call("vector_normalize", to_column(vector).expr, *given)


def vector_sum(col: ColumnOrName) -> Column:
    return call("vector_sum", to_column(col).expr)


def vector_avg(col: ColumnOrName) -> Column:
    return call("vector_avg", to_column(col).expr)
