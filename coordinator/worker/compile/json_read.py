"""Spark's ``from_json`` in PERMISSIVE mode, built from the schema's type (``typenames``)
over DuckDB's JSON values:

- the text is NULL for NULL and ``''``; text that is not a JSON object gives a struct of
  NULL fields (read as ``{}``); for an array schema, text that is not a JSON array is NULL;
- a field is the value at its key (case-sensitive), NULL where missing, ``null`` or not of
  the field's type: integers take JSON integers in range, floats and doubles any number,
  booleans ``true``/``false``, a string any value (a nested one as its JSON text), a struct
  an object, an array an array. A struct is read field by field at every depth (a bad
  field is NULL, its siblings kept), but an array with an element not of its type is
  NULL as a whole, not an array holding a NULL, as Spark's parser gives up on it;
  ``valid`` tells such values apart before they are read.

The planner refuses schemas holding maps, dates, timestamps, decimals or binary
(``planner.logical.functions.jsons``).
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.nodes import call, ident
from sparkwire.coordinator.worker.compile.templates import template
from sparkwire.planner.logical import typenames
from sparkwire.planner.spark import json_path

_INTEGERS = "CASE WHEN json_type(:v) IN ('BIGINT', 'UBIGINT') THEN TRY_CAST(json_extract_string(:v, '$') AS {t}) END"
_NUMBERS = ("CASE WHEN json_type(:v) IN ('BIGINT', 'UBIGINT', 'DOUBLE') "
            "THEN CAST(json_extract_string(:v, '$') AS {t}) END")
_LEAVES = {
    **{name: template(_INTEGERS.format(t=t)) for name, t in (
        ("int8", "TINYINT"), ("int16", "SMALLINT"), ("int32", "INTEGER"), ("int64", "BIGINT"))},
    "float32": template(_NUMBERS.format(t="FLOAT")),
    "float64": template(_NUMBERS.format(t="DOUBLE")),
    "bool": template("CASE WHEN json_type(:v) = 'BOOLEAN' THEN CAST(json_extract_string(:v, '$') AS BOOLEAN) END"),
    "string": template("CASE json_type(:v) WHEN 'VARCHAR' THEN json_extract_string(:v, '$') "
                       "WHEN 'NULL' THEN NULL ELSE CAST(:v AS VARCHAR) END"),
}
_OBJECT = template("CASE WHEN json_type(:v) = 'OBJECT' THEN :read END")
_ARRAY = template("CASE WHEN json_type(:v) = 'ARRAY' THEN :read END")
#: JSON null or missing is valid; a struct must be an object, an array an array, first.
_VALID = template("CASE WHEN :v IS NULL OR json_type(:v) = 'NULL' THEN true "
                  "WHEN :kind <> '' AND json_type(:v) <> :kind THEN false ELSE :ok END")
_JSON_KINDS = {"struct": "OBJECT", "array": "ARRAY"}
_TOP_STRUCT = template(
    "CASE WHEN :j IS NULL OR :j = '' THEN NULL ELSE :read END")
_AS_OBJECT = template(
    "CAST(CASE WHEN json_valid(:j) THEN (CASE WHEN json_type(:j) = 'OBJECT' THEN :j END) END AS JSON)")
_AS_JSON = template("CASE WHEN json_valid(:j) THEN CAST(:j AS JSON) END")


def from_json(text: exp.Expr, tree: typenames.TypeTree) -> exp.Expr:
    """``from_json`` of the text ``text`` into a value of type ``tree`` (a struct or array)."""
    if tree.kind == "struct":
        whole = exp.Coalesce(this=_AS_OBJECT(j=text), expressions=[exp.Cast(
            this=exp.Literal.string("{}"), to=exp.DataType.build("JSON"))])
        return _TOP_STRUCT(j=text.copy(), read=_read(whole, tree, 0))
    if tree.kind == "array":
        return _whole(_AS_JSON(j=text), tree)
    raise CompileError(f"from_json into {tree.kind}")


def _whole(value: exp.Expr, tree: typenames.TypeTree, depth: int = 0) -> exp.Expr:
    """``value`` read as ``tree`` where it is of its type (an array's elements all of
    theirs), else NULL."""
    return exp.Case(ifs=[exp.If(this=_valid(value, tree, depth), true=_read(value.copy(), tree, depth))])


def _members(value: exp.Expr, tree: typenames.TypeTree) -> list[tuple[str, typenames.TypeTree, exp.Expr]]:
    """Each field of a struct type, with the JSON value at its key in ``value``."""
    members = []
    for name, field in zip(tree.fields, tree.args, strict=True):
        try:
            path = json_path.duckdb_path([name])
        except ValueError as exc:
            raise CompileError(str(exc)) from None
        members.append((name, field, call("json_extract", value.copy(), exp.Literal.string(path))))
    return members


def _valid(value: exp.Expr, tree: typenames.TypeTree, depth: int) -> exp.Expr:
    """Whether the JSON value ``value`` (SQL NULL where missing) is JSON ``null`` or of the
    type ``tree``, all the way down."""
    inner: exp.Expr = exp.true()  # a struct's fields are read each on its own
    if tree.kind == "array":
        name = f"__sparkwire_valid{depth}"
        each = exp.Lambda(this=_valid(exp.Column(this=ident(name)), tree.args[0], depth + 1),
                          expressions=[ident(name)])
        items = call("json_extract", value.copy(), exp.Literal.string("$[*]"))
        inner = exp.Coalesce(this=call("list_bool_and", call("list_transform", items, each)),
                             expressions=[exp.true()])
    elif tree.kind != "struct":
        inner = exp.Not(this=exp.Is(this=_read(value.copy(), tree, depth), expression=exp.Null()))
    return _VALID(v=value, ok=inner, kind=exp.Literal.string(_JSON_KINDS.get(tree.kind, "")))


def _read(value: exp.Expr, tree: typenames.TypeTree, depth: int) -> exp.Expr:
    """The JSON value ``value`` read as ``tree``; NULL where it is not of that type."""
    if tree.kind == "struct":
        fields = [exp.PropertyEQ(this=exp.Literal.string(name), expression=_whole(member, field, depth))
                  for name, field, member in _members(value, tree)]
        return _OBJECT(v=value, read=exp.Struct(expressions=fields))
    if tree.kind == "array":
        name = f"__sparkwire_element{depth}"
        each = exp.Lambda(this=_read(exp.Column(this=ident(name)), tree.args[0], depth + 1),
                          expressions=[ident(name)])
        items = call("json_extract", value.copy(), exp.Literal.string("$[*]"))
        return _ARRAY(v=value, read=call("list_transform", items, each))
    leaf = _LEAVES.get(tree.name) if tree.kind == "simple" else None
    if leaf is None:
        raise CompileError(f"from_json into {typenames.render(tree)}")
    return leaf(v=value)
