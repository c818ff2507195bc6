"""String functions of ``pyspark.sql.functions``, re-exported by ``planner.api.functions``.

Spark's semantics, which the worker's builders keep where DuckDB differs
(``coordinator.worker.text``):

- positions are 1-based; ``substring``/``substr`` read a start of 0 as 1 and a negative
  start as counted from the end, and give ``''`` when the range is empty;
- ``instr``/``locate`` give 0 when not found, ``locate`` 0 for a start below 1 and 1 for
  the empty string at any start;
- ``lpad``/``rpad`` cut the string to ``len`` when it is longer (or the pad is empty) and
  give ``''`` for a negative ``len``; DuckDB raises on an empty pad;
- ``concat_ws`` skips NULL parts; ``trim``/``ltrim``/``rtrim`` remove spaces only;
- ``initcap`` lower-cases the string and upper-cases the first letter after each space;
  letters whose title case is two letters differ (Java makes ``ß`` ``Ss``, DuckDB ``ẞ``),
  as ``upper`` does;
- regular expressions are Java's, refused where RE2 would read them otherwise
  (``planner.spark.regex``); ``regexp_replace`` replaces every match, ``regexp_extract`` gives
  ``''`` when nothing matches;
- ``format_string`` runs the ``%s``/``%d`` part of Java's Formatter (``planner.spark.format_string``).
"""

from __future__ import annotations

from sparkwire.planner.api.functions import Column, ColumnOrName, checked_call, lit, to_column

__all__ = [
    "concat_ws", "format_string", "initcap", "instr", "locate", "lpad", "regexp_extract",
    "regexp_replace", "rpad",
]


def concat_ws(sep: str, *cols: ColumnOrName) -> Column:
    return checked_call("concat_ws", lit(sep).expr, *(to_column(c).expr for c in cols))


def lpad(col: ColumnOrName, len: int | Column, pad: str | Column) -> Column:  # noqa: A002
    return checked_call("lpad", to_column(col).expr, lit(len).expr, lit(pad).expr)


def rpad(col: ColumnOrName, len: int | Column, pad: str | Column) -> Column:  # noqa: A002
    return checked_call("rpad", to_column(col).expr, lit(len).expr, lit(pad).expr)


def regexp_replace(string: ColumnOrName, pattern: str, replacement: str) -> Column:
    return checked_call(
        "regexp_replace", to_column(string).expr, lit(pattern).expr, lit(replacement).expr,
        lit(1).expr,
    )


def regexp_extract(str: ColumnOrName, pattern: str, idx: int) -> Column:  # noqa: A002
    return checked_call("regexp_extract", to_column(str).expr, lit(pattern).expr, lit(idx).expr)


def instr(str: ColumnOrName, substr: str | Column) -> Column:  # noqa: A002
    return checked_call("instr", to_column(str).expr, lit(substr).expr)


def locate(substr: str, str: ColumnOrName, pos: int = 1) -> Column:  # noqa: A002
    return checked_call("locate", lit(substr).expr, to_column(str).expr, lit(pos).expr)


def initcap(col: ColumnOrName) -> Column:
    return checked_call("initcap", to_column(col).expr)


def format_string(format: str, *cols: ColumnOrName) -> Column:  # noqa: A002
    return checked_call("format_string", lit(format).expr, *(to_column(c).expr for c in cols))
