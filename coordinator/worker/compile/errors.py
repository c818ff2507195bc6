"""The compiler's errors, and Spark's errors in both directions: the SQL that fails a query
with Spark's error class (``raise_error``), and DuckDB's failure read back as the error
Spark would have given (``spark_error``, used by the engine).

Both directions live together because they share one format: a message raised on purpose
starts ``[CLASS] `` and is passed on unchanged, and DuckDB's own messages for the failures
Spark also reports (integer overflow, a decimal out of range) are rewritten to that form.
``CompileError`` is the other kind of failure: a fragment that validated but cannot be
compiled, a planner bug rather than bad data.
"""

from __future__ import annotations

import re

from sqlglot import exp

from sparkwire.coordinator.worker.compile.nodes import cast

__all__ = ["ANSI_HINT", "CompileError", "raise_error", "spark_error"]


class CompileError(ValueError):
    """A fragment that validated as a model but cannot be compiled (a planner bug)."""


#: How Spark's messages end where ANSI mode raised the error.
ANSI_HINT = 'If necessary set "spark.sql.ansi.enabled" (sparkwire: ansi) to false to bypass this error.'


def raise_error(error_class: str, *parts: exp.Expr | str) -> exp.Expr:
    """``error('[CLASS] ' || ...)``: fails the query with Spark's error class leading the
    message; ``parts`` are literal text or values (shown as text, NULL as ``NULL``)."""
    message: exp.Expr = exp.Literal.string(f"[{error_class}] ")
    for part in parts:
        piece = exp.Literal.string(part) if isinstance(part, str) else exp.Coalesce(
            this=cast(part, "VARCHAR"), expressions=[exp.Literal.string("NULL")])
        message = exp.DPipe(this=message, expression=piece, safe=False)
    return exp.Anonymous(this="error", expressions=[message])


#: A runtime error the query raised on purpose (``raise_error``): ``[CLASS] text``.
_SPARK_ERROR = re.compile(r"\[([A-Z_]+(?:\.[A-Z_]+)?)\] .*", re.DOTALL)
#: DuckDB's integer overflow: ``Overflow in addition of INT32 (2147483647 + 1)!``.
_OVERFLOW = re.compile(
    r"Overflow in (addition|subtraction|multiplication|negation)(?: of (\w+) \(([^!]*)\))?[^!]*")
#: DuckDB's decimal cast out of range, of a decimal or of an integer: the value shown as
#: Spark shows it.
_DECIMAL_RANGE = re.compile(
    r'(?:Casting value "([^"]+)" to type|Could not cast value (\S+) to) DECIMAL\((\d+), ?(\d+)\)')
_TRY = {"addition": "try_add", "subtraction": "try_subtract", "multiplication": "try_multiply"}
#: Spark reports a tinyint or smallint ``+ - *`` overflowing under its own error class.
_NARROW = ("INT8", "INT16")


def spark_error(message: str) -> str | None:
    """The error as Spark reports it, when the query failed on a value Spark rejects in
    ANSI mode: one raised by the query itself keeps its text; DuckDB's decimal cast out of
    range becomes Spark's ``NUMERIC_VALUE_OUT_OF_RANGE``; DuckDB's integer overflow
    becomes Spark's ``ARITHMETIC_OVERFLOW`` (``BINARY_ARITHMETIC_OVERFLOW`` of a tinyint or
    smallint operation). None for any other failure."""
    if match := _SPARK_ERROR.search(message):
        return match[0]
    if match := _DECIMAL_RANGE.search(message):
        return (f"[NUMERIC_VALUE_OUT_OF_RANGE] {match[1] or match[2]} cannot be represented as "
                f"DECIMAL({match[3]},{match[4]}). {ANSI_HINT}")
    if match := _OVERFLOW.search(message):
        if match[2] in _NARROW and match[1] in _TRY:
            return (f"[BINARY_ARITHMETIC_OVERFLOW] {match[3]} caused overflow. "
                    f"Use `{_TRY[match[1]]}` to ignore overflow problem and return NULL.")
        hint = f"Use '{_TRY[match[1]]}' to tolerate overflow and return NULL instead. " \
            if match[1] in _TRY else ""
        return (f"[ARITHMETIC_OVERFLOW] {match[0]}. {hint}If necessary set "
                f'"spark.sql.ansi.enabled" (sparkwire: ansi) to false to bypass this error.')
    return None
