"""Types of the array and map functions of ``planner.logical.functions.arrays`` and ``maps``,
as Spark SQL types them (``planner.logical.types`` asks here for these).

Rules (Spark's):

- ``array_size``/``cardinality`` are ``int32`` (``cardinality`` of a map too);
  ``array_position`` is ``int64``; ``arrays_overlap`` and ``map_contains_key`` ``bool``;
  ``array_join`` a string;
- ``array_max``/``array_min``/``get``/``try_element_at`` are the element type (a map's
  ``try_element_at`` its value type);
- ``array_compact``, ``slice`` keep the array's type; ``array_remove`` too;
  ``array_append``/``array_prepend``/``array_insert`` and ``array_union``/
  ``array_intersect``/``array_except`` are arrays of the common type of the elements;
  ``array_repeat`` an array of its value's type; ``flatten`` the inner array type;
- ``arrays_zip`` an array of structs of the elements, named as the plan's call names them;
- ``sequence`` an array of the common integer type of its bounds;
- ``map_entries`` an array of ``struct<key, value>``; ``map_from_arrays`` the map of the
  two element types; ``map_from_entries`` the map of the struct's two field types;
  ``map_concat`` its arguments' one map type; ``str_to_map`` ``map<string,string>``;
- of the higher-order functions (their lambdas typed by ``planner.logical.lambdas``, an
  argument's type its body's): ``transform`` an array of the body's type, ``zip_with`` too;
  ``filter`` keeps the array's type, ``exists``/``forall`` are ``bool``, each body a
  ``bool``; ``aggregate``/``reduce`` the type of ``finish``, else of ``zero``, whose type
  ``merge`` must keep (Spark's rule; sparkwire asks for the cast rather than widening);
  ``map_filter`` keeps the map's type, ``transform_keys``/``transform_values`` replace the
  key or value type by the body's.

An argument of the wrong kind (``array_max`` of a string) is an ``AnalysisError`` naming
the function and the type it got.
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.collection_types import array_of
from sparkwire.planner.logical.expressions import Call, Lit

Common = Callable[[list[pa.DataType]], pa.DataType]

_ELEMENT = frozenset({"array_max", "array_min", "get"})
_SAME_ARRAY = frozenset({"array_compact", "slice", "array_remove"})
_WIDENED = frozenset({"array_append", "array_prepend", "array_insert"})
_SET_OPERATIONS = frozenset({"array_union", "array_intersect", "array_except", "arrays_overlap"})
_INTEGERS = (pa.int8(), pa.int16(), pa.int32(), pa.int64())

_HIGHER_ORDER = frozenset({
    "transform", "filter", "exists", "forall", "aggregate", "reduce", "zip_with", "map_filter",
    "transform_keys", "transform_values", "map_zip_with",
})
ARRAY_FUNCTIONS = _HIGHER_ORDER | frozenset({
    "array_size", "cardinality", "array_position", "array_join", "try_element_at", "array_repeat",
    "flatten", "arrays_zip", "sequence", "map_contains_key", "map_entries", "map_from_arrays",
    "map_from_entries", "map_concat", "str_to_map",
}) | _ELEMENT | _SAME_ARRAY | _WIDENED | _SET_OPERATIONS


def call_type(expr: Call, args: list[pa.DataType], common_all: Common) -> pa.DataType:
    fn = expr.fn
    if fn in _HIGHER_ORDER:
        return _higher_order(fn, args)
    if fn in ("array_size", "cardinality"):
        if not (pa.types.is_list(args[0]) or (fn == "cardinality" and pa.types.is_map(args[0]))):
            raise AnalysisError(f"{fn} takes an array, got {args[0]}")
        return pa.int32()
    if fn == "try_element_at" and pa.types.is_map(args[0]):
        return args[0].item_type
    if fn in _ELEMENT or fn == "try_element_at":
        return _array(fn, args[0]).value_type
    if fn in _SAME_ARRAY:
        return _array(fn, args[0])
    if fn in _WIDENED:
        return array_of(common_all([_array(fn, args[0]).value_type, args[-1]]))
    if fn in _SET_OPERATIONS:
        element = common_all([_array(fn, args[0]).value_type, _array(fn, args[1]).value_type])
        return pa.bool_() if fn == "arrays_overlap" else array_of(element)
    if fn == "array_position":
        _array(fn, args[0])
        return pa.int64()
    if fn == "array_repeat":
        _integer(fn, args[1])
        return array_of(args[0])
    if fn == "flatten":
        return _array(fn, _array(fn, args[0]).value_type)
    if fn == "array_join":
        return _joined(args[0])
    if fn == "arrays_zip":
        return _zipped(expr, args)
    if fn == "sequence":
        return array_of(common_all([_integer(fn, t) for t in args if not pa.types.is_null(t)]))
    return _map_type(fn, args)


def _higher_order(fn: str, args: list[pa.DataType]) -> pa.DataType:
    """``args`` are the collections', ``zero``'s and the lambda bodies' types."""
    if fn in ("aggregate", "reduce"):
        if args[2] != args[1]:
            raise AnalysisError(f"{fn}: the merge function gives {args[2]}, not the type of the "
                                f"start value, {args[1]}; cast the start value")
        return args[-1]
    if fn in ("filter", "exists", "forall", "map_filter") and not pa.types.is_boolean(args[-1]):
        raise AnalysisError(f"{fn} takes a lambda giving a boolean, got {args[-1]}")
    if fn == "transform":
        return array_of(args[1])
    if fn == "zip_with":
        return array_of(args[2])
    if fn == "map_zip_with":
        return pa.map_(_map(fn, args[0]).key_type, args[2])
    if fn == "transform_keys":
        return pa.map_(args[1], _map(fn, args[0]).item_type)
    if fn == "transform_values":
        return pa.map_(_map(fn, args[0]).key_type, args[1])
    return pa.bool_() if fn in ("exists", "forall") else args[0]


def _map_type(fn: str, args: list[pa.DataType]) -> pa.DataType:
    if fn == "str_to_map":
        if not pa.types.is_string(args[0]) and not pa.types.is_null(args[0]):
            raise AnalysisError(f"str_to_map takes a string, got {args[0]}")
        return pa.map_(pa.string(), pa.string())
    if fn == "map_from_arrays":
        return pa.map_(_array(fn, args[0]).value_type, _array(fn, args[1]).value_type)
    if fn == "map_from_entries":
        entry = _array(fn, args[0]).value_type
        if not (pa.types.is_struct(entry) and entry.num_fields == 2):
            raise AnalysisError(f"map_from_entries takes an array of two-field structs, got {args[0]}")
        return pa.map_(entry.field(0).type, entry.field(1).type)
    first = _map(fn, args[0])
    if fn == "map_contains_key":
        return pa.bool_()
    if fn == "map_entries":
        return array_of(pa.struct([pa.field("key", first.key_type, nullable=False),
                                   pa.field("value", first.item_type)]))
    maps = [_map(fn, t) for t in args]  # map_concat
    if any(m != first for m in maps):
        raise AnalysisError("map_concat takes maps of one type, got "
                            f"{', '.join(map(str, maps))}; cast them first")
    return first


def _joined(array: pa.DataType) -> pa.DataType:
    element = _array("array_join", array).value_type
    if not (pa.types.is_string(element) or element in _INTEGERS or pa.types.is_null(element)):
        raise AnalysisError(f"array_join takes an array of strings, got {array}; cast it first")
    return pa.string()


def _zipped(expr: Call, args: list[pa.DataType]) -> pa.DataType:
    names = [n.value for n in expr.args[0::2] if isinstance(n, Lit) and isinstance(n.value, str)]
    elements = [_array("arrays_zip", t).value_type for t in args[1::2]]
    return array_of(pa.struct([pa.field(n, t) for n, t in zip(names, elements, strict=True)]))


def _array(fn: str, t: pa.DataType) -> pa.ListType:
    if not pa.types.is_list(t):
        raise AnalysisError(f"{fn} takes an array, got {t}")
    return t


def _map(fn: str, t: pa.DataType) -> pa.MapType:
    if not pa.types.is_map(t):
        raise AnalysisError(f"{fn} takes a map, got {t}")
    return t


def _integer(fn: str, t: pa.DataType) -> pa.DataType:
    if t not in _INTEGERS:
        raise AnalysisError(f"{fn} takes integers, got {t}")
    return t
