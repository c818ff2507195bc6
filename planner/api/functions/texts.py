"""The later string functions of ``pyspark.sql.functions`` (pieces, searches, regular
expressions, bytes), re-exported by ``planner.api.functions``; built, and their semantics
written down, in ``planner.logical.functions.texts``. Arguments are read as PySpark reads
them: where PySpark takes a ``str`` for a pattern, a delimiter or a character set it is a
literal, where it takes ``ColumnOrName`` a column name."""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName, lit, to_column
from sparkwire.planner.api.functions.core import call, exprs, number_or_column
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import expressions as ex

__all__ = [
    "ascii", "bit_length", "btrim", "char", "char_length", "character_length", "chr",
    "contains", "decode", "elt", "encode", "endswith", "find_in_set", "ilike", "lcase", "left",
    "levenshtein", "like", "octet_length", "overlay", "position", "printf", "regexp",
    "regexp_count", "regexp_extract_all", "regexp_instr", "regexp_like", "regexp_substr",
    "repeat", "replace", "reverse", "right", "rlike", "split_part", "startswith",
    "substring_index", "translate", "ucase", "uuid",
]


def ascii(col: ColumnOrName) -> Column:
    return call("ascii", to_column(col).expr)


def bit_length(col: ColumnOrName) -> Column:
    return call("bit_length", to_column(col).expr)


def char(col: ColumnOrName) -> Column:
    return call("char", to_column(col).expr)


def chr(col: ColumnOrName) -> Column:
    return call("chr", to_column(col).expr)


def octet_length(col: ColumnOrName) -> Column:
    return call("octet_length", to_column(col).expr)


def lcase(col: ColumnOrName) -> Column:
    return call("lcase", to_column(col).expr)


def ucase(col: ColumnOrName) -> Column:
    return call("ucase", to_column(col).expr)


def reverse(col: ColumnOrName) -> Column:
    return call("reverse", to_column(col).expr)


def char_length(col: ColumnOrName) -> Column:
    return call("char_length", to_column(col).expr)


def character_length(col: ColumnOrName) -> Column:
    return call("character_length", to_column(col).expr)


def left(str: ColumnOrName, len: ColumnOrName) -> Column:  # noqa: A002 - PySpark's names
    return call("left", to_column(str).expr, to_column(len).expr)


def right(str: ColumnOrName, len: ColumnOrName) -> Column:  # noqa: A002 - PySpark's names
    return call("right", to_column(str).expr, to_column(len).expr)


def ilike(str: ColumnOrName, pattern: ColumnOrName, escapeChar: Column | None = None) -> Column:  # noqa: A002,N803
    """Case-insensitive ``like``, with Spark's escape character ``\\``."""
    _default_escape("ilike", escapeChar)
    return call("ilike", to_column(str).expr, to_column(pattern).expr)


def rlike(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002 - PySpark's names
    return call("rlike", to_column(str).expr, to_column(regexp).expr)


def regexp_like(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002 - PySpark's names
    return call("regexp_like", to_column(str).expr, to_column(regexp).expr)


def regexp(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002 - PySpark's names
    return call("regexp", to_column(str).expr, to_column(regexp).expr)


def regexp_count(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002 - PySpark's names
    return call("regexp_count", to_column(str).expr, to_column(regexp).expr)


def regexp_substr(str: ColumnOrName, regexp: ColumnOrName) -> Column:  # noqa: A002 - PySpark's names
    return call("regexp_substr", to_column(str).expr, to_column(regexp).expr)


def find_in_set(str: ColumnOrName, str_array: ColumnOrName) -> Column:  # noqa: A002 - PySpark's names
    return call("find_in_set", to_column(str).expr, to_column(str_array).expr)


def startswith(str: ColumnOrName, prefix: ColumnOrName) -> Column:  # noqa: A002 - PySpark's names
    return call("startswith", to_column(str).expr, to_column(prefix).expr)


def endswith(str: ColumnOrName, suffix: ColumnOrName) -> Column:  # noqa: A002 - PySpark's names
    return call("endswith", to_column(str).expr, to_column(suffix).expr)


def contains(left: ColumnOrName, right: ColumnOrName) -> Column:  # noqa: A002 - PySpark's names
    return call("contains", to_column(left).expr, to_column(right).expr)


def like(str: ColumnOrName, pattern: ColumnOrName, escapeChar: Column | None = None) -> Column:  # noqa: A002,N803
    """``str LIKE pattern``; an escape character other than Spark's ``\\`` is not supported."""
    _default_escape("like", escapeChar)
    return call("like", to_column(str).expr, to_column(pattern).expr)


def _default_escape(name: str, escape: Column | None) -> None:
    if escape is not None and not (isinstance(escape.expr, ex.Lit) and escape.expr.value == "\\"):
        raise AnalysisError(f"{name} with an escape character other than '\\' is not supported by sparkwire")


def repeat(col: ColumnOrName, n: ColumnOrName | int) -> Column:
    return call("repeat", to_column(col).expr, number_or_column(n))


def btrim(str: ColumnOrName, trim: ColumnOrName | None = None) -> Column:  # noqa: A002
    extra = () if trim is None else (to_column(trim).expr,)
    return call("btrim", to_column(str).expr, *extra)


def translate(srcCol: ColumnOrName, matching: str, replace: str) -> Column:  # noqa: N803
    return call("translate", to_column(srcCol).expr, lit(matching).expr, lit(replace).expr)


def overlay(src: ColumnOrName, replace: ColumnOrName, pos: ColumnOrName | int,
            len: ColumnOrName | int = -1) -> Column:  # noqa: A002
    return call("overlay", to_column(src).expr, to_column(replace).expr, number_or_column(pos),
                number_or_column(len))


def split_part(src: ColumnOrName, delimiter: ColumnOrName, partNum: ColumnOrName) -> Column:  # noqa: N803
    return call("split_part", *exprs([src, delimiter, partNum]))


def substring_index(str: ColumnOrName, delim: str, count: int) -> Column:  # noqa: A002
    return call("substring_index", to_column(str).expr, lit(delim).expr, lit(count).expr)


def levenshtein(left: ColumnOrName, right: ColumnOrName, threshold: int | None = None) -> Column:
    extra = () if threshold is None else (lit(threshold).expr,)
    return call("levenshtein", to_column(left).expr, to_column(right).expr, *extra)


def printf(format: ColumnOrName, *cols: ColumnOrName) -> Column:  # noqa: A002
    return call("printf", to_column(format).expr, *exprs(cols))


def regexp_extract_all(str: ColumnOrName, regexp: ColumnOrName, idx: Column | int | None = None) -> Column:  # noqa: A002
    group = () if idx is None else (lit(idx).expr,)
    return call("regexp_extract_all", to_column(str).expr, to_column(regexp).expr, *group)


def regexp_instr(str: ColumnOrName, regexp: ColumnOrName, idx: Column | int | None = None) -> Column:  # noqa: A002
    group = () if idx is None else (lit(idx).expr,)
    return call("regexp_instr", to_column(str).expr, to_column(regexp).expr, *group)


def elt(*inputs: ColumnOrName) -> Column:
    return call("elt", *exprs(inputs))


def replace(src: ColumnOrName, search: ColumnOrName, replace: ColumnOrName | None = None) -> Column:
    extra = () if replace is None else (to_column(replace).expr,)
    return call("replace", to_column(src).expr, to_column(search).expr, *extra)


def position(substr: ColumnOrName, str: ColumnOrName, start: ColumnOrName | None = None) -> Column:  # noqa: A002
    extra = () if start is None else (to_column(start).expr,)
    return call("position", to_column(substr).expr, to_column(str).expr, *extra)


def encode(col: ColumnOrName, charset: str) -> Column:
    return call("encode", to_column(col).expr, lit(charset).expr)


def decode(col: ColumnOrName, charset: str) -> Column:
    return call("decode", to_column(col).expr, lit(charset).expr)


def uuid(seed: Column | int | None = None) -> Column:
    """A random UUID per row; a seed is not supported (DuckDB's generator takes none)."""
    if seed is not None:
        raise AnalysisError("uuid with a seed is not supported by sparkwire")
    return call("uuid")
