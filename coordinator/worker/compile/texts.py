"""Spark's text of a value cast to a string, where DuckDB's differs (``casts``):

- a double or float is Java's ``Double.toString``/``Float.toString``: plain from 1e-3 up to
  1e7 (``123456.7``, ``1.0``, ``-0.0``), else ``1.0E10`` / ``1.5E-10`` (DuckDB writes
  ``10000000000.0`` and ``1.5e-10``), ``NaN``, ``Infinity``; the shortest digits that read
  back, in both. Java before 19 prints some floats with more digits than that
  (``1.23456792E8`` for the float nearest 123456789, Java 19 and this: ``1.2345679E8``);
- an array is ``[a, b]``, a struct ``{a, b}`` (its values only), a map ``{k1 -> v1, k2 ->
  v2}``; a NULL inside one is ``null`` (DuckDB: ``NULL``, structs as ``{'name': value}``,
  maps as ``{k=v}``), and every element, field, key and value is Spark's text of it, nested
  ones too. Strings go in unquoted, as in Spark.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from sparkwire.coordinator.worker.compile.duckdb_types import duckdb_type
from sparkwire.coordinator.worker.compile.nodes import call, cast, ident
from sparkwire.planner.logical import typenames


def nested_text(value: exp.Expr, tree: typenames.TypeTree, depth: int = 0) -> exp.Expr:
    """Spark's text of ``value`` of type ``tree``; NULL for NULL. ``depth`` names the lambda
    variables of nested arrays and maps apart."""
    if tree.kind == "array":
        return _joined(value, tree.args[0], depth, "[", "]", _element_text)
    if tree.kind == "map":
        return _joined(call("map_entries", value), tree, depth, "{", "}", _entry_text)
    if tree.kind == "struct":
        fields = [or_null(nested_text(call("struct_extract", value.copy(), name), field, depth))
                  for name, field in zip(tree.fields, tree.args, strict=True)]
        text = concat(exp.Literal.string("{"), *_separated(fields), exp.Literal.string("}"))
        return exp.Case(ifs=[exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()),
                                    true=exp.Null())], default=text)
    if tree.name in ("float64", "float32"):
        return floating_text(value)
    return cast(value, "VARCHAR")


def _element_text(item: exp.Expr, tree: typenames.TypeTree, depth: int) -> exp.Expr:
    return or_null(nested_text(item, tree, depth))


def _entry_text(entry: exp.Expr, tree: typenames.TypeTree, depth: int) -> exp.Expr:
    key_type, value_type = tree.args
    key = nested_text(call("struct_extract", entry, "key"), key_type, depth)
    value = or_null(nested_text(call("struct_extract", entry.copy(), "value"), value_type, depth))
    return concat(key, exp.Literal.string(" -> "), value)


def _joined(items: exp.Expr, tree: typenames.TypeTree, depth: int, opening: str, closing: str,
            text_of: Callable[[exp.Expr, typenames.TypeTree, int], exp.Expr]) -> exp.Expr:
    """``opening || (each item's text, comma separated) || closing``, NULL for a NULL list."""
    name = f"__sparkwire_item{depth}"
    each = exp.Lambda(this=text_of(exp.Column(this=ident(name)), tree, depth + 1),
                      expressions=[ident(name)])
    texts = call("array_to_string", call("list_transform", items, each), ", ")
    return concat(exp.Literal.string(opening), texts, exp.Literal.string(closing))


def _separated(parts: list[exp.Expr]) -> list[exp.Expr]:
    separated: list[exp.Expr] = []
    for part in parts:
        if separated:
            separated.append(exp.Literal.string(", "))
        separated.append(part)
    return separated


def or_null(text: exp.Expr) -> exp.Expr:
    """``text``, or ``null`` where it is NULL (how Spark prints a NULL inside a value)."""
    return exp.Coalesce(this=text, expressions=[exp.Literal.string("null")])


def concat(*parts: exp.Expr) -> exp.Expr:
    """``parts`` joined with ``||`` (NULL if any is)."""
    text = parts[0]
    for part in parts[1:]:
        text = exp.DPipe(this=text, expression=part, safe=False)
    return text


def floating_text(value: exp.Expr) -> exp.Expr:
    """Java's ``Double.toString`` (or ``Float.toString``) from DuckDB's shortest text of
    ``|value|`` in its own type, which is plain (``10000000000.0``, ``0.0001``) or
    ``d[.ddd]e±NN``: the digits and the decimal exponent are taken from either form and
    written as ``d.dddE<n>`` outside [1e-3, 1e7)."""
    magnitude = exp.Abs(this=value)
    text = cast(magnitude, "VARCHAR")
    mantissa = call("split_part", text, "e", exp.Literal.number(1))
    whole = call("split_part", mantissa, ".", exp.Literal.number(1))
    fraction = call("split_part", mantissa, ".", exp.Literal.number(2))
    written_exponent = exp.Coalesce(
        this=exp.TryCast(this=call("split_part", text, "e", exp.Literal.number(2)),
                         to=duckdb_type("int32")),
        expressions=[exp.Literal.number(0)])
    leading_zeros = exp.Sub(this=exp.Length(this=fraction),
                            expression=exp.Length(this=call("ltrim", fraction, "0")))
    # 12.5 is 1.25E1; 0.0001 is 1.0E-4 (only a plain form can start with "0.")
    exponent = exp.Add(this=written_exponent, expression=exp.Paren(this=exp.Case(
        ifs=[exp.If(this=exp.EQ(this=whole, expression=exp.Literal.string("0")),
                    true=exp.Neg(this=exp.Paren(this=exp.Add(this=leading_zeros,
                                                             expression=exp.Literal.number(1)))))],
        default=exp.Sub(this=exp.Length(this=whole), expression=exp.Literal.number(1)))))
    digits = call("rtrim", call("ltrim", exp.DPipe(this=whole, expression=fraction, safe=False),
                                  "0"), "0")
    tail = exp.Coalesce(this=call("nullif", exp.Substring(this=digits, start=exp.Literal.number(2)),
                                   ""), expressions=[exp.Literal.string("0")])
    scientific = exp.DPipe(this=exp.DPipe(this=exp.DPipe(this=exp.DPipe(
        this=exp.Substring(this=digits, start=exp.Literal.number(1), length=exp.Literal.number(1)),
        expression=exp.Literal.string("."), safe=False), expression=tail, safe=False),
        expression=exp.Literal.string("E"), safe=False), expression=cast(exponent, "VARCHAR"), safe=False)
    plain = exp.And(this=exp.GTE(this=magnitude, expression=exp.Literal.number(0.001)),
                    expression=exp.LT(this=magnitude, expression=exp.Literal.number(10_000_000)))
    unsigned = exp.Case(ifs=[
        exp.If(this=call("isnan", value), true=exp.Literal.string("NaN")),
        exp.If(this=call("isinf", value), true=exp.Literal.string("Infinity")),
        exp.If(this=exp.EQ(this=magnitude, expression=exp.Literal.number(0)),
               true=exp.Literal.string("0.0")),
        exp.If(this=plain, true=text),
    ], default=scientific)
    negative = exp.Or(this=exp.LT(this=value, expression=exp.Literal.number(0)),
                      expression=call("signbit", value))
    sign = exp.Case(ifs=[exp.If(this=exp.And(this=negative, expression=exp.Not(
        this=call("isnan", value))), true=exp.Literal.string("-"))], default=exp.Literal.string(""))
    return exp.DPipe(this=sign, expression=unsigned, safe=False)
