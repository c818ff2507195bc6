"""String functions of ``pyspark.sql.functions``, re-exported by ``planner.api.functions``;
built, and their semantics written down, in ``planner.logical.functions.strings``."""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName, lit, to_column
from sparkwire.planner.api.functions.core import call, exprs

__all__ = [
    "concat_ws", "format_string", "initcap", "instr", "locate", "lpad", "regexp_extract",
    "regexp_replace", "rpad",
]


def concat_ws(sep: str, *cols: ColumnOrName) -> Column:
    return call("concat_ws", lit(sep).expr, *exprs(cols))


def lpad(col: ColumnOrName, len: int | Column, pad: str | Column) -> Column:  # noqa: A002
    return call("lpad", to_column(col).expr, lit(len).expr, lit(pad).expr)


def rpad(col: ColumnOrName, len: int | Column, pad: str | Column) -> Column:  # noqa: A002
    return call("rpad", to_column(col).expr, lit(len).expr, lit(pad).expr)


def regexp_replace(string: ColumnOrName, pattern: str, replacement: str) -> Column:
    return call("regexp_replace", to_column(string).expr, lit(pattern).expr, lit(replacement).expr)


def regexp_extract(str: ColumnOrName, pattern: str, idx: int) -> Column:  # noqa: A002
    return call("regexp_extract", to_column(str).expr, lit(pattern).expr, lit(idx).expr)


def instr(str: ColumnOrName, substr: str | Column) -> Column:  # noqa: A002
    return call("instr", to_column(str).expr, lit(substr).expr)


def locate(substr: str, str: ColumnOrName, pos: int = 1) -> Column:  # noqa: A002
    return call("locate", lit(substr).expr, to_column(str).expr, lit(pos).expr)


def initcap(col: ColumnOrName) -> Column:
    return call("initcap", to_column(col).expr)


def format_string(format: str, *cols: ColumnOrName) -> Column:  # noqa: A002
    return call("format_string", lit(format).expr, *exprs(cols))
