"""``collect_union`` of ``pyspark.sql.functions`` (PySpark 4.3), re-exported by
``planner.api.functions``: the distinct elements of a group's arrays, NULL elements dropped
(Spark's default ``IGNORE NULLS``; its ``RESPECT NULLS`` is SQL syntax, not written here),
NULL arrays skipped, ``[]`` for a group without elements. Spark documents it as
``array_distinct(flatten(collect_list(col)))`` and so it is built, named as Spark names it;
the order of the elements is not defined, as in Spark. DataFrame API only."""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName, to_column
from sparkwire.planner.api.functions.arrays import array_compact, flatten
from sparkwire.planner.api.functions.nested import array_distinct, collect_list

__all__ = ["collect_union"]


def collect_union(col: ColumnOrName) -> Column:
    given = to_column(col)
    union = array_compact(array_distinct(flatten(collect_list(given))))
    return union.alias(f"collect_union({given.output_name})")
