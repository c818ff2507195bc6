"""``json_tuple`` of ``pyspark.sql.functions``, re-exported by ``planner.api.functions``: a
generator column, built, and its semantics written down, in
``planner.logical.functions.json_tuples``."""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName, lit, to_column
from sparkwire.planner.api.functions.nested import GeneratorColumn
from sparkwire.planner.logical.functions.json_tuples import json_tuple as _json_tuple

__all__ = ["json_tuple"]


def json_tuple(col: ColumnOrName, *fields: str | Column) -> GeneratorColumn:
    """The keys are strings, or literal Columns as ``spark.tvf.json_tuple`` passes them."""
    return GeneratorColumn(_json_tuple(to_column(col).expr, *(lit(f).expr for f in fields)))
