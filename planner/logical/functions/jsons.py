"""JSON functions of the registry, with Spark's semantics (the worker's builders:
``coordinator.worker.compile.calls_json``); each checked against PySpark
(``tests/spark/test_formats.py``):

- ``get_json_object(json, path)`` is the string at ``path`` (Spark's JSON path: ``$``,
  ``.name``, ``['name']``, ``[n]``; ``planner.spark.json_path``), a nested value as JSON
  text, a string unquoted, ``null`` as NULL; NULL for text that is not JSON or a path that
  matches nothing, and for every row where Spark's parser refuses the path. The path is a
  literal; a wildcard (``*``) is refused: Spark gathers its matches into a new array;
- ``json_array_length`` is the elements of a top-level array, NULL for anything else;
  ``json_object_keys`` the keys of a top-level object in order, NULL for anything else;
- ``from_json(json, schema)`` reads JSON text into a struct (a DDL schema) or an array,
  as Spark's PERMISSIVE mode does: NULL for NULL or ``''``, a struct of NULLs for text that
  is not a JSON object; a field holds NULL where the JSON value is not of its type (an
  integer field takes integers only, a double any number, a string any value, as its JSON
  text), a struct field objects (read field by field), an array field arrays whose
  elements are all of its type (else the whole array is NULL). The schema is a literal, read by
  ``planner.logical.ddl``; schemas holding maps, dates, timestamps, decimals or binary are
  refused, as are options;
- ``to_json`` of a struct, array or map is its JSON text as Spark writes it with the default
  options (``coordinator.worker.compile.json_text``): a struct's NULL fields left out,
  doubles as Java prints them, NaN quoted, dates ``yyyy-MM-dd``, binary base64; of anything
  holding a timestamp it is refused (Spark's zone-offset form is not written yet), as are
  options;
- ``schema_of_json`` of a literal is Spark's inferred schema (``planner.spark.json_schema``),
  computed when the call is built, as Spark folds it; the text is parsed as JSON, never
  evaluated.

Where DuckDB's JSON reader is not Jackson's, as Spark configures it: text Jackson takes that
DuckDB does not (single-quoted strings, text after the value) is NULL here; a trailing
comma DuckDB takes is not NULL here; a double written as Java prints it in scientific
notation (``1.0E20``, ``1.0E-4``) is written in plain digits by DuckDB.
"""

from __future__ import annotations

import json

import pyarrow as pa

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import ddl, typenames
from sparkwire.planner.logical.expressions import Expr, Lit
from sparkwire.planner.logical.functions.base import Function, checked_call, option, plain, shown
from sparkwire.planner.logical.types import to_name
from sparkwire.planner.spark import json_path, json_schema

#: The leaves ``from_json`` reads: Spark parses dates, timestamps and decimals from JSON
#: strings and numbers by rules not written here yet, and a map needs its keys' paths.
_READ_LEAVES = frozenset({"bool", "int8", "int16", "int32", "int64", "float32", "float64", "string"})


def get_json_object(json_text: Expr, path: Expr) -> Expr:
    text = option(path)
    if not isinstance(text, str):
        raise AnalysisError(f"get_json_object takes a string literal path, got {shown(path)}")
    parsed = json_path.steps(text)
    if parsed is not None and json_path.WILDCARD in parsed:
        raise AnalysisError(f"get_json_object with a wildcard path ({text!r}) is not supported by "
                            "sparkwire: Spark gathers the matches into a new array")
    if parsed is not None:
        try:
            json_path.duckdb_path(parsed)
        except ValueError as exc:
            raise AnalysisError(f"get_json_object: {exc} is not supported by sparkwire") from None
    return checked_call("get_json_object", json_text, path)


def from_json(json_text: Expr, schema: Expr, options: Expr | None = None) -> Expr:
    """``from_json(json, 'a INT, b STRING')``: the schema (a DDL or a type, a literal) is
    read by our own parser (``planner.logical.ddl``) and carried as the plan's type name."""
    text = option(schema)
    if not isinstance(text, str):
        raise AnalysisError(f"from_json takes a schema literal, got {shown(schema)}")
    if options is not None:
        raise AnalysisError("from_json with options is not supported by sparkwire")
    lowered = text.strip().lower()
    kind = ddl.parse_type(text) if lowered.startswith(("array<", "map<")) else pa.struct(list(ddl.parse_schema(text)))
    name = to_name(kind)
    unread = None if name is None else _unread(typenames.parse(name))
    if name is None or unread is not None:
        raise AnalysisError(f"from_json into a schema holding {unread or kind} is not supported by "
                            "sparkwire yet (booleans, integers, floats, doubles, strings, structs and "
                            "arrays are)")
    return checked_call("from_json", json_text, Lit(value=name))


def _unread(tree: typenames.TypeTree) -> str | None:
    """The first part of a type ``from_json`` cannot read, by its plan name, else None."""
    if tree.kind == "map":
        return "a map"
    if tree.kind == "simple":
        return None if tree.name in _READ_LEAVES else tree.name
    return next((found for arg in tree.args if (found := _unread(arg)) is not None), None)


def to_json(value: Expr, options: Expr | None = None) -> Expr:
    if options is not None:
        raise AnalysisError("to_json with options is not supported by sparkwire")
    return checked_call("to_json", value)


def schema_of_json(json_text: Expr, options: Expr | None = None) -> Expr:
    """The schema Spark infers for a JSON literal, in Spark's SQL spelling
    (``STRUCT<a: BIGINT>``); the call keeps the literal to be named by it."""
    text = option(json_text)
    if not isinstance(text, str):
        raise AnalysisError(f"schema_of_json takes a string literal, got {shown(json_text)}")
    if options is not None:
        raise AnalysisError("schema_of_json with options is not supported by sparkwire")
    try:
        value = json.loads(text)
    except ValueError:
        raise AnalysisError(f"schema_of_json cannot parse {text!r} as JSON") from None
    inferred = json_schema.canonical(json_schema.value_type(value))
    return checked_call("schema_of_json", json_text, Lit(value="STRING" if inferred is None else sql_type(inferred)))


def sql_type(t: pa.DataType) -> str:
    """Spark's ``DataType.sql`` of an inferred type."""
    if pa.types.is_struct(t):
        return "STRUCT<" + ", ".join(f"{f.name}: {sql_type(f.type)}" for f in t) + ">"
    if pa.types.is_list(t):
        return f"ARRAY<{sql_type(t.value_type)}>"
    if pa.types.is_decimal(t):
        return f"DECIMAL({t.precision},{t.scale})"
    return {pa.int64(): "BIGINT", pa.float64(): "DOUBLE", pa.bool_(): "BOOLEAN"}.get(t, "STRING")


FUNCTIONS = (
    Function.of("get_json_object", get_json_object),
    plain("json_array_length"),
    plain("json_object_keys"),
    Function.of("schema_of_json", schema_of_json),
    Function.of("to_json", to_json),
    Function.of("from_json", from_json),
)
