"""The higher-order functions (``planner.logical.functions.higher_order``) as DuckDB's list
functions over its lambdas, gathered with the others in ``calls.CALLS``. A lambda arrives
compiled (``expressions``), its parameters renamed apart from every column
(``lambda_name``) so a body still reads the columns around it. Where Spark and DuckDB
differ, Spark wins:

- ``transform``/``filter`` pass a 0-based index as the second parameter (DuckDB's is
  1-based); ``filter`` drops elements whose predicate is NULL, as both do;
- ``exists`` is true when a predicate is, else NULL when one is NULL, else false; ``forall``
  false when one is false, else NULL when one is NULL, else true (Spark's three-valued
  logic; DuckDB has no such functions); both NULL for a NULL array;
- ``aggregate``/``reduce`` fold from ``zero`` (DuckDB's ``list_reduce`` with its initial
  value; ``[]`` gives ``zero``), then apply ``finish`` to the result; NULL for a NULL array;
- ``zip_with`` pads the shorter array with NULLs (``list_zip``'s), NULL when either is NULL;
- ``map_zip_with`` walks the first map's keys, then the second's it lacks, each side's
  value NULL where its map lacks the key; NULL when either map is;
- ``map_filter``/``transform_values``/``transform_keys`` walk ``map_entries``;
  ``transform_keys`` fails on a NULL or repeated new key as Spark's map building does
  (``calls_maps``).
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from sparkwire.coordinator.worker.compile.arguments import Builder
from sparkwire.coordinator.worker.compile.calls_maps import checked_map
from sparkwire.coordinator.worker.compile.errors import CompileError
from sparkwire.coordinator.worker.compile.nodes import call, col, ident
from sparkwire.coordinator.worker.compile.templates import template

__all__ = ["LAMBDA_CALLS", "lambda_name"]

#: The parameter a builder's own lambda takes (a pair, an entry), apart from the user's.
_OWN = "__sparkwire_p"
_NULL_OR = template("CASE WHEN :a IS NULL THEN NULL ELSE :value END")
_EXISTS = template(
    "CASE WHEN :a IS NULL THEN NULL WHEN list_contains(:t, true) THEN true "
    "WHEN list_count(:t) < len(:t) THEN NULL ELSE false END")
_FORALL = template(
    "CASE WHEN :a IS NULL THEN NULL WHEN list_contains(:t, false) THEN false "
    "WHEN list_count(:t) < len(:t) THEN NULL ELSE true END")
_EITHER_NULL = template("CASE WHEN :a IS NULL OR :b IS NULL THEN NULL ELSE :value END")


def lambda_name(name: str) -> str:
    """A lambda parameter's name in DuckDB: a lambda's parameters shadow columns."""
    return f"__sparkwire_lambda_{name}"


def _lambda(fn: str, node: exp.Expr, params: int) -> exp.Lambda:
    if not isinstance(node, exp.Lambda) or len(node.expressions) > params:
        raise CompileError(f"{fn} takes a lambda of at most {params} parameter(s)")
    return node


def _params(function: exp.Lambda) -> list[str]:
    return [p.name for p in function.expressions]


def _put(body: exp.Expr, values: dict[str, exp.Expr]) -> exp.Expr:
    """``body`` with the parameters named in ``values`` replaced by those nodes."""

    def replace(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Column) and not node.table and node.name in values:
            return values[node.name].copy()
        return node

    return body.copy().transform(replace)


def _over(params: list[str], body: exp.Expr) -> exp.Lambda:
    return exp.Lambda(this=body, expressions=[ident(p) for p in params])


def _indexed(function: exp.Lambda) -> exp.Lambda:
    """A lambda of (element, 0-based index) as DuckDB's (element, 1-based index) one."""
    params = _params(function)
    if len(params) < 2:
        return function
    index = params[1]
    shifted = exp.Paren(this=exp.Sub(this=col(index + "_1"), expression=exp.Literal.number(1)))
    return _over([params[0], index + "_1"], _put(function.this, {index: shifted}))


def _walk(fn: str, duck: str) -> Builder:
    def build(args: list[exp.Expr]) -> exp.Expr:
        return call(duck, args[0], _indexed(_lambda(fn, args[1], 2)))

    return build


def _quantified(fn: str, form: Callable[..., exp.Expr]) -> Builder:
    def build(args: list[exp.Expr]) -> exp.Expr:
        tested = call("list_transform", args[0].copy(), _indexed(_lambda(fn, args[1], 2)))
        return form(a=args[0], t=tested)

    return build


def _aggregate(args: list[exp.Expr]) -> exp.Expr:
    if len(args) not in (3, 4):
        raise CompileError(f"aggregate takes 3 or 4 arguments, got {len(args)}")
    folded = call("list_reduce", args[0].copy(), _lambda("aggregate", args[2], 2), args[1])
    if len(args) == 4:  # DuckDB applies a lambda to list elements only: to [folded]
        finished = call("list_transform", exp.Array(expressions=[folded]),
                        _lambda("aggregate", args[3], 1))
        folded = call("list_extract", finished, exp.Literal.number(1))
    return _NULL_OR(a=args[0], value=folded)


def _pairs(fn: str, function: exp.Expr, fields: tuple[str, ...]) -> exp.Lambda:
    """The user's lambda as one over a struct (a zipped pair, a map entry): each of its
    parameters that struct's field (a position or a name)."""
    user = _lambda(fn, function, len(fields))
    own = col(_OWN)
    values = {p: _field(own, f) for p, f in zip(_params(user), fields, strict=False)}
    return _over([_OWN], _put(user.this, values))


def _field(struct: exp.Expr, field: str) -> exp.Expr:
    return call("struct_extract_at", struct.copy(), exp.Literal.number(int(field))) \
        if field.isdigit() else call("struct_extract", struct.copy(), exp.Literal.string(field))


def _zip_with(args: list[exp.Expr]) -> exp.Expr:
    if len(args) != 3:
        raise CompileError(f"zip_with takes 3 arguments, got {len(args)}")
    zipped = call("list_zip", args[0].copy(), args[1].copy())
    value = call("list_transform", zipped, _pairs("zip_with", args[2], ("1", "2")))
    return _EITHER_NULL(a=args[0], b=args[1], value=value)


def _entries(fn: str, args: list[exp.Expr]) -> tuple[exp.Expr, exp.Lambda]:
    if len(args) != 2:
        raise CompileError(f"{fn} takes 2 arguments, got {len(args)}")
    return call("map_entries", args[0]), _pairs(fn, args[1], ("key", "value"))


def _map_filter(args: list[exp.Expr]) -> exp.Expr:
    entries, test = _entries("map_filter", args)
    return call("map_from_entries", call("list_filter", entries, test))


def _transform_values(args: list[exp.Expr]) -> exp.Expr:
    entries, value = _entries("transform_values", args)
    keys = call("map_keys", args[0].copy())
    return _NULL_OR(a=args[0].copy(), value=call("map", keys, call("list_transform", entries, value)))


def _transform_keys(args: list[exp.Expr]) -> exp.Expr:
    entries, key = _entries("transform_keys", args)
    values = call("map_values", args[0].copy())
    return checked_map(call("list_transform", entries, key), values)


def _map_zip_with(args: list[exp.Expr]) -> exp.Expr:
    """Spark's keys: the first map's, then the second's it lacks; each side's value NULL
    where that map lacks the key."""
    if len(args) != 3:
        raise CompileError(f"map_zip_with takes 3 arguments, got {len(args)}")
    first, second = args[0], args[1]
    user = _lambda("map_zip_with", args[2], 3)
    key = col(_OWN)
    own = call("map_keys", first.copy())
    added = call("list_filter", call("map_keys", second.copy()),
                 _over([_OWN], exp.Not(this=call("list_contains", own.copy(), key.copy()))))
    keys = call("list_concat", own, added)
    sides = (key, call("map_extract_value", first.copy(), key.copy()),
             call("map_extract_value", second.copy(), key.copy()))
    body = _put(user.this, dict(zip(_params(user), sides, strict=False)))
    values = call("list_transform", keys.copy(), _over([_OWN], body))
    return _EITHER_NULL(a=first, b=second, value=call("map", keys, values))


LAMBDA_CALLS: dict[str, Builder] = {
    "transform": _walk("transform", "list_transform"),
    "filter": _walk("filter", "list_filter"),
    "exists": _quantified("exists", _EXISTS),
    "forall": _quantified("forall", _FORALL),
    "aggregate": _aggregate,
    "reduce": _aggregate,
    "zip_with": _zip_with,
    "map_filter": _map_filter,
    "transform_values": _transform_values,
    "transform_keys": _transform_keys,
    "map_zip_with": _map_zip_with,
}
