"""``json_tuple_value(json, key)`` (``planner.logical.functions.json_tuples``): the value of
a top-level key of a JSON object, read as ``get_json_object`` reads one (``calls_formats``),
but of a key the object holds twice the last value that is not a JSON ``null``, as Spark's
``json_tuple`` answers (checked against PySpark); DuckDB's paths find the first. The
object's keys and values are listed in order (``json_keys``, ``$.*``) and the last pair of
the key with a value taken; NULL for invalid JSON, anything but an object, or a missing key."""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder, arity
from sparkwire.coordinator.worker.compile.templates import template

__all__ = ["JSON_TUPLE_CALLS"]

_P = "__sparkwire_kv"
_LAST = template(
    "CASE WHEN json_valid(:j) AND json_type(:j) = 'OBJECT' THEN struct_extract_at(list_extract(list_filter("
    "list_zip(json_keys(:j), json_extract_string(:j, '$.*')), "
    f"lambda {_P}: struct_extract_at({_P}, 1) = :k AND struct_extract_at({_P}, 2) IS NOT NULL), -1), 2) END")


def _json_tuple_value(args: list[exp.Expr]) -> exp.Expr:
    arity("json_tuple_value", args, 2)
    return _LAST(j=args[0], k=args[1])


JSON_TUPLE_CALLS: dict[str, Builder] = {"json_tuple_value": _json_tuple_value}
