"""The JSON, URL and UTF-8 functions of ``pyspark.sql.functions``, ``quote``, ``typeof``,
``jaro_winkler_similarity``, ``mask``, ``to_binary`` and ``substr``, re-exported by ``planner.api.functions``; built,
and their semantics written down, in ``planner.logical.functions.jsons`` and
``transcoding``. A JSON path is a literal, as PySpark's ``str`` path is."""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName, lit, to_column
from sparkwire.planner.api.functions.core import call
from sparkwire.planner.api.functions.unary import of_one_column
from sparkwire.planner.errors import AnalysisError

__all__ = [
    "from_json", "get_json_object", "is_valid_utf8", "jaro_winkler_similarity", "json_array_length",
    "json_object_keys", "make_valid_utf8", "mask", "quote", "schema_of_json", "substr", "to_binary",
    "to_json", "try_to_binary", "try_url_decode", "try_validate_utf8", "typeof", "url_decode",
    "url_encode", "validate_utf8",
]

json_array_length = of_one_column("json_array_length")
json_object_keys = of_one_column("json_object_keys")
url_encode = of_one_column("url_encode")
url_decode = of_one_column("url_decode")
try_url_decode = of_one_column("try_url_decode")
is_valid_utf8 = of_one_column("is_valid_utf8")
make_valid_utf8 = of_one_column("make_valid_utf8")
validate_utf8 = of_one_column("validate_utf8")
try_validate_utf8 = of_one_column("try_validate_utf8")
quote = of_one_column("quote")
typeof = of_one_column("typeof")

#: ``substr`` without a length reads to the end, as Spark's ``Int.MaxValue`` length does.
_TO_THE_END = 2147483647


def get_json_object(col: ColumnOrName, path: str) -> Column:
    return call("get_json_object", to_column(col).expr, lit(path).expr)


def schema_of_json(json: Column | str, options: dict[str, str] | None = None) -> Column:
    """Of a literal only (PySpark's ``str``, or ``lit``): Spark folds it when it plans."""
    if options:
        raise AnalysisError("schema_of_json with options is not supported by sparkwire")
    return call("schema_of_json", (json if isinstance(json, Column) else lit(json)).expr)


def jaro_winkler_similarity(str1: ColumnOrName, str2: ColumnOrName) -> Column:
    return call("jaro_winkler_similarity", to_column(str1).expr, to_column(str2).expr)


def substr(str: ColumnOrName, pos: ColumnOrName, len: ColumnOrName | None = None) -> Column:  # noqa: A002
    length = lit(_TO_THE_END) if len is None else to_column(len)
    return call("substr", to_column(str).expr, to_column(pos).expr, length.expr)


def to_json(col: ColumnOrName, options: dict[str, str] | None = None) -> Column:
    """With Spark's default options only."""
    if options:
        raise AnalysisError("to_json with options is not supported by sparkwire")
    return call("to_json", to_column(col).expr)


def from_json(col: ColumnOrName, schema: object, options: dict[str, str] | None = None) -> Column:
    """``schema`` a DDL string, a ``StructType``/``ArrayType`` (ours or PySpark's: read through
    its ``simpleString()``) or a string literal column; default options only."""
    if options:
        raise AnalysisError("from_json with options is not supported by sparkwire")
    if isinstance(schema, Column):
        return call("from_json", to_column(col).expr, schema.expr)
    if isinstance(schema, str):
        text = schema
    else:
        simple = getattr(schema, "simpleString", None)
        if not callable(simple):
            raise AnalysisError(f"from_json takes a DDL string or a DataType, got {type(schema).__name__}")
        text = str(simple())
    return call("from_json", to_column(col).expr, lit(text).expr)


def mask(col: ColumnOrName, upperChar: Column | None = None, lowerChar: Column | None = None,  # noqa: N803
         digitChar: Column | None = None, otherChar: Column | None = None) -> Column:  # noqa: N803
    """PySpark's defaults: ``X``, ``x``, ``n``, and other characters kept."""
    chars = [lit(default) if given is None else given for given, default in
             ((upperChar, "X"), (lowerChar, "x"), (digitChar, "n"), (otherChar, None))]
    return call("mask", to_column(col).expr, *(c.expr for c in chars))


def to_binary(col: ColumnOrName, format: Column | None = None) -> Column:  # noqa: A002 - PySpark's name
    return call("to_binary", to_column(col).expr, *(() if format is None else (format.expr,)))


def try_to_binary(col: ColumnOrName, format: Column | None = None) -> Column:  # noqa: A002 - PySpark's name
    return call("try_to_binary", to_column(col).expr, *(() if format is None else (format.expr,)))
