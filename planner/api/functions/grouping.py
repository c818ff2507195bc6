"""PySpark's ``F.grouping`` and ``F.grouping_id``, answered by ``df.rollup``/``df.cube``
(``planner.logical.grouping_sets``); re-exported by ``planner.api.functions``."""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName, to_column
from sparkwire.planner.api.functions.core import call


def grouping(col: ColumnOrName) -> Column:
    """1 (tinyint) where the row's grouping set leaves ``col`` out, else 0."""
    return call("grouping", to_column(col).expr)


def grouping_id(*cols: ColumnOrName) -> Column:
    """The row's grouping id (bigint): a bit per key, set where the key is left out; the
    columns, if given, must be the grouping keys in order."""
    return call("grouping_id", *(to_column(c).expr for c in cols))


__all__ = ["grouping", "grouping_id"]
