"""``soundex`` and ``format_number`` of ``pyspark.sql.functions``, re-exported by
``planner.api.functions``; built, and their semantics written down, in
``planner.logical.functions.spellings``."""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName, lit, to_column
from sparkwire.planner.api.functions.core import call
from sparkwire.planner.api.functions.unary import of_one_column

__all__ = ["format_number", "soundex"]

soundex = of_one_column("soundex")


def format_number(col: ColumnOrName, d: int) -> Column:
    return call("format_number", to_column(col).expr, lit(d).expr)
