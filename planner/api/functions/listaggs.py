"""``listagg``, ``listagg_distinct``, ``string_agg`` and ``string_agg_distinct`` of
``pyspark.sql.functions``, re-exported by ``planner.api.functions``; built, and their
semantics written down, in ``planner.logical.functions.listaggs``."""

from __future__ import annotations

from collections.abc import Callable

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api.column import Column, ColumnOrName, lit, to_column
from sparkwire.planner.api.functions.core import call

__all__ = ["listagg", "listagg_distinct", "string_agg", "string_agg_distinct"]

Delimiter = Column | str | bytes | None


def _joining(name: str) -> Callable[[ColumnOrName, Delimiter], Column]:
    def build(col: ColumnOrName, delimiter: Delimiter = None) -> Column:
        if isinstance(delimiter, bytes):
            raise AnalysisError(f"{name} of a binary delimiter is not supported by sparkwire")
        separator = delimiter if isinstance(delimiter, Column) else lit(delimiter)
        return call(name, to_column(col).expr, separator.expr)

    build.__name__ = build.__qualname__ = name
    return build


listagg = _joining("listagg")
listagg_distinct = _joining("listagg_distinct")
string_agg = _joining("string_agg")
string_agg_distinct = _joining("string_agg_distinct")
