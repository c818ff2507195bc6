"""String functions of the registry.

Spark's semantics, which the worker's builders keep where DuckDB differs
(``coordinator.worker.text``):

- positions are 1-based; ``substring``/``substr`` read a start of 0 as 1 and a negative
  start as counted from the end, and give ``''`` when the range is empty;
- ``instr``/``locate`` give 0 when not found, ``locate`` 0 for a start below 1 and 1 for
  the empty string at any start;
- ``lpad``/``rpad`` cut the string to ``len`` when it is longer (or the pad is empty) and
  give ``''`` for a negative ``len``; DuckDB raises on an empty pad;
- ``concat`` is NULL when any part is; ``concat_ws`` skips NULL parts;
  ``trim``/``ltrim``/``rtrim`` remove spaces only;
- ``initcap`` lower-cases the string and upper-cases the first letter after each space;
  letters whose title case is two letters differ (Java makes ``ß`` ``Ss``, DuckDB ``ẞ``),
  as ``upper`` does;
- regular expressions are Java's, refused where RE2 would read them otherwise
  (``planner.spark.regex``); ``regexp_replace`` replaces every match, ``regexp_extract`` gives
  ``''`` when nothing matches (group 1 unless given);
- ``format_string`` runs the ``%s``/``%d`` part of Java's Formatter (``planner.spark.format_string``).
"""

from __future__ import annotations

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Expr, Lit
from sparkwire.planner.logical.functions.base import Function, checked_call, plain

_ONE = Lit(value=1)  # the first group, position or character: Spark's default


def concat(*parts: Expr) -> Expr:
    if not parts:
        raise AnalysisError("concat needs at least one column")
    return checked_call("concat", *parts)


def regexp_replace(string: Expr, pattern: Expr, replacement: Expr, position: Expr = _ONE) -> Expr:
    return checked_call("regexp_replace", string, pattern, replacement, position)


def regexp_extract(string: Expr, pattern: Expr, group: Expr = _ONE) -> Expr:
    return checked_call("regexp_extract", string, pattern, group)


def locate(substring: Expr, string: Expr, position: Expr = _ONE) -> Expr:
    return checked_call("locate", substring, string, position)


FUNCTIONS = (
    *(plain(name) for name in ("lower", "upper", "length", "trim", "ltrim", "rtrim", "initcap")),
    plain("substring", (2, 3)),
    plain("substr", 3),
    Function.of("concat", concat),
    plain("concat_ws", (1, None)),
    plain("lpad", 3),
    plain("rpad", 3),
    Function.of("regexp_replace", regexp_replace),
    Function.of("regexp_extract", regexp_extract),
    plain("rlike", 2),
    plain("instr", 2),
    Function.of("locate", locate),
    plain("format_string", (1, None)),
    *(plain(name, 2) for name in ("startswith", "endswith", "contains")),
)
