"""The parameters of lambdas typed from the collections their higher-order functions walk,
once the analyzer has resolved the columns (``Scope.typed``).

A lambda's body is built before anything is resolved (PySpark calls the Python function
with placeholder columns; SQL names its parameters), so its ``LambdaVar``s carry no type.
Here each one is given the type Spark gives it, so every later rewrite and the type
inference see a lambda body as any other expression:

- ``transform``/``filter``/``exists``/``forall``: the element, and an ``int`` index;
- ``aggregate``/``reduce(a, zero, merge[, finish])``: ``merge`` takes the accumulator (the
  type of ``zero``) and the element, ``finish`` the accumulator;
- ``zip_with(a, b, f)``: an element of each array;
- ``map_filter``/``transform_keys``/``transform_values``: the key and the value.

Nested lambdas are typed outside in: an inner function's collection may be a parameter of
the outer lambda. A lambda with more parameters than its function passes is refused.
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import types
from sparkwire.planner.logical.expressions import Call, Expr, Lambda, LambdaVar
from sparkwire.planner.logical.tree import transform

#: The higher-order functions, by the position of their first lambda argument.
HIGHER_ORDER = {
    "transform": 1, "filter": 1, "exists": 1, "forall": 1, "aggregate": 2, "reduce": 2,
    "zip_with": 2, "map_filter": 1, "transform_keys": 1, "transform_values": 1, "map_zip_with": 2,
}


def bind_lambdas(expr: Expr, columns: Mapping[str, pa.DataType]) -> Expr:
    """``expr`` with the parameters of every lambda in it typed."""

    def visit(node: Expr) -> Expr | None:
        if not (isinstance(node, Call) and node.fn in HIGHER_ORDER):
            return None
        first = HIGHER_ORDER[node.fn]
        given = tuple(bind_lambdas(a, columns) for a in node.args[:first])
        lambdas = [f for f in node.args[first:] if isinstance(f, Lambda)]
        if not lambdas or len(lambdas) != len(node.args) - first:
            raise AnalysisError(f"{node.fn} takes a lambda function as its argument {first + 1}")
        kinds = [types.infer(a, columns) for a in given]
        bound = [_bound(node.fn, f, passed, columns)
                 for f, passed in zip(lambdas, _parameters(node.fn, kinds), strict=False)]
        return Call(fn=node.fn, args=(*given, *bound))

    return transform(expr, visit)


def _parameters(fn: str, kinds: list[pa.DataType]) -> list[list[pa.DataType]]:
    """The types each lambda of ``fn`` is passed, from its other arguments' types."""
    collection = kinds[0]
    if fn == "map_zip_with":
        if not (pa.types.is_map(collection) and pa.types.is_map(kinds[1])):
            raise AnalysisError(f"map_zip_with takes two maps, got {collection} and {kinds[1]}")
        if collection.key_type != kinds[1].key_type:
            raise AnalysisError(f"map_zip_with takes two maps of one key type, got {collection.key_type} and "
                                f"{kinds[1].key_type}; cast one of them")
        return [[collection.key_type, collection.item_type, kinds[1].item_type]]
    if fn in ("map_filter", "transform_keys", "transform_values"):
        if not pa.types.is_map(collection):
            raise AnalysisError(f"{fn} takes a map, got {collection}")
        return [[collection.key_type, collection.item_type]]
    if not pa.types.is_list(collection):
        raise AnalysisError(f"{fn} takes an array, got {collection}")
    element = collection.value_type
    if fn in ("aggregate", "reduce"):
        return [[kinds[1], element], [kinds[1]]]
    if fn == "zip_with":
        if not pa.types.is_list(kinds[1]):
            raise AnalysisError(f"zip_with takes two arrays, got {kinds[1]}")
        return [[element, kinds[1].value_type]]
    return [[element, pa.int32()]]


def _bound(fn: str, function: Lambda, passed: list[pa.DataType],
           columns: Mapping[str, pa.DataType]) -> Lambda:
    if len(function.params) > len(passed):
        raise AnalysisError(f"{fn} passes its lambda {len(passed)} argument(s), "
                            f"got a lambda of {len(function.params)}")
    names: dict[str, str] = {}
    for param, kind in zip(function.params, passed, strict=False):
        name = types.to_name(kind)
        if name is None:
            raise AnalysisError(f"{fn} of {kind} elements is not supported by sparkwire")
        names[param] = name

    def typed(node: Expr) -> Expr | None:
        if isinstance(node, LambdaVar) and node.name in names:
            return LambdaVar(name=node.name, type=names[node.name])
        return None

    return Lambda(params=function.params, body=bind_lambdas(transform(function.body, typed), columns))
