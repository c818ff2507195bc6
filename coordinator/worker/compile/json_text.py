"""Spark's ``to_json`` of a struct, array or map, built from its type (``typenames``) as
Spark's ``JacksonGenerator`` writes it with the default options:

- a struct is ``{"name":value,...}`` without its NULL fields (``ignoreNullFields``); an
  array ``[v,...]`` and a map ``{"key":value,...}`` keep theirs as ``null``; a map key is
  Spark's text of it (``casts``), quoted, but a date key its day number (Spark writes the
  value it holds); a binary key is refused by the planner (Java prints its address);
- strings, and field names, are quoted with Jackson's escapes (``\\"``, ``\\\\``, ``\\n``
  ..., other control characters ``\\u00XX`` in upper case), which are DuckDB's ``to_json``'s;
- integers, decimals (their scale kept) and booleans as DuckDB prints them; doubles and
  floats as Java prints them (``texts.floating_text``), NaN and the infinities quoted;
  dates quoted ``yyyy-MM-dd``; binary quoted base64.

Timestamps are refused by the planner (``planner.logical.typed_calls``): Spark writes them
with a zone offset pattern this builder does not reproduce yet.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.nodes import call, cast, ident
from sparkwire.coordinator.worker.compile.texts import concat, floating_text, nested_text, or_null
from sparkwire.planner.logical import typenames

#: Leaf types written as DuckDB prints them.
_PLAIN = frozenset({"bool", "int8", "int16", "int32", "int64"})


def json_text(value: exp.Expr, tree: typenames.TypeTree, depth: int = 0) -> exp.Expr:
    """The JSON text of ``value`` of type ``tree``; NULL for NULL."""
    if tree.kind == "struct":
        members = [_member(exp.Literal.string(name), json_text(call("struct_extract", value.copy(), name),
                                                               field, depth))
                   for name, field in zip(tree.fields, tree.args, strict=True)]
        inner = call("concat_ws", exp.Literal.string(","), *members) if members else exp.Literal.string("")
        text = concat(exp.Literal.string("{"), inner, exp.Literal.string("}"))
        return exp.Case(ifs=[exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()),
                                    true=exp.Null())], default=text)
    if tree.kind == "array":
        return _each(value, depth, "[", "]", lambda item: or_null(json_text(item, tree.args[0], depth + 1)))
    if tree.kind == "map":
        key_type, value_type = tree.args

        def entry(e: exp.Expr) -> exp.Expr:
            key = _key_text(call("struct_extract", e, "key"), key_type, depth + 1)
            item = json_text(call("struct_extract", e.copy(), "value"), value_type, depth + 1)
            return concat(_quoted(key), exp.Literal.string(":"), or_null(item))

        return _each(call("map_entries", value), depth, "{", "}", entry)
    return _leaf(value, tree.name)


def _key_text(key: exp.Expr, tree: typenames.TypeTree, depth: int) -> exp.Expr:
    """A map key as Spark writes it: the text of its value as Spark holds it, so a date is
    its day number (``18263``), anything else Spark's text of it."""
    if tree.kind == "simple" and tree.name == "date":
        return cast(exp.Sub(this=key, expression=exp.Cast(this=exp.Literal.string("1970-01-01"),
                                                           to=exp.DataType.build("DATE"))), "VARCHAR")
    return nested_text(key, tree, depth)


def _leaf(value: exp.Expr, name: str) -> exp.Expr:
    if name in _PLAIN or name.startswith("decimal("):
        return cast(value, "VARCHAR")
    if name == "string":
        return _quoted(value)
    if name in ("float64", "float32"):
        text = floating_text(value)
        special = exp.Or(this=call("isnan", value.copy()), expression=call("isinf", value.copy()))
        return exp.Case(ifs=[exp.If(this=special, true=concat(exp.Literal.string('"'), text.copy(),
                                                                 exp.Literal.string('"')))], default=text)
    if name == "date":
        return concat(exp.Literal.string('"'), cast(value, "VARCHAR"), exp.Literal.string('"'))
    if name == "binary":
        return concat(exp.Literal.string('"'), call("to_base64", value), exp.Literal.string('"'))
    raise CompileError(f"to_json of {name} is not supported")


def _member(name: exp.Expr, text: exp.Expr) -> exp.Expr:
    """``"name":text``, NULL (left out by ``concat_ws``) where the field is NULL."""
    return concat(_quoted(name), exp.Literal.string(":"), text)


def _quoted(text: exp.Expr) -> exp.Expr:
    return cast(call("to_json", cast(text, "VARCHAR")), "VARCHAR")


def _each(items: exp.Expr, depth: int, opening: str, closing: str,
          text_of: Callable[[exp.Expr], exp.Expr]) -> exp.Expr:
    name = f"__sparkwire_json{depth}"
    each = exp.Lambda(this=text_of(exp.Column(this=ident(name))), expressions=[ident(name)])
    texts = call("array_to_string", call("list_transform", items, each), ",")
    return concat(exp.Literal.string(opening), texts, exp.Literal.string(closing))
