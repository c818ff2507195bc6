"""Types of the array, map and struct functions and of the aggregates that build or
summarise collections, as Spark SQL types them (``planner.logical.types`` asks here for these).

Rules (Spark's):

- ``split`` is ``array<string>``; ``array(a, b ...)`` an array of the elements' common type;
  ``create_map(k1, v1 ...)`` a map of the keys' and the values' common types;
  ``named_struct`` (``F.struct``) a struct of its fields in order;
- ``element_at``/``get_item`` of an array is its element type, of a map its value type;
  ``get_field`` is the field's type; ``size`` is ``int32``; ``array_contains`` ``bool``;
  ``array_distinct``/``sort_array`` keep the array's type; ``map_keys``/``map_values`` are
  arrays of the key and value types;
- ``collect_list``/``collect_set`` are arrays of the input type; ``stddev``/``variance`` and
  their ``_samp``/``_pop`` forms, ``skewness``, ``kurtosis``, ``covar_samp``/``covar_pop``
  and ``corr`` are ``float64``; ``approx_count_distinct`` and ``count_if``
  are ``int64``; ``percentile_approx`` has the input's type (an array of it for several
  percentages), numbers, dates and timestamps only (Spark would cast a string to double;
  sparkwire asks for the cast); ``sum_distinct`` is typed as ``sum``.

A function applied to the wrong kind of value (``element_at`` of a string) is an
``AnalysisError`` naming the function and the type it got.
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import AggCall, Call, Lit

COLLECTION_FUNCTIONS = frozenset({
    "split", "array", "array_contains", "size", "element_at", "get_item", "map_value", "get_field",
    "named_struct", "array_distinct", "sort_array", "array_sort", "create_map", "map_keys",
    "map_values",
})
_FLOAT_AGGREGATES = frozenset({"stddev", "stddev_samp", "stddev_pop", "std", "variance",
                               "var_samp", "var_pop", "skewness", "kurtosis", "covar_samp",
                               "covar_pop", "corr"})


def array_of(element: pa.DataType) -> pa.DataType:
    """Spark's ``toArrow()`` names an array's element field ``element``."""
    return pa.list_(pa.field("element", element))


def call_type(
    expr: Call, args: list[pa.DataType], common_all: Callable[[list[pa.DataType]], pa.DataType],
) -> pa.DataType:
    fn = expr.fn
    if fn == "split":
        return array_of(pa.string())
    if fn == "array":
        return array_of(common_all(args))
    if fn in ("array_contains",):
        _array(fn, args[0])
        return pa.bool_()
    if fn == "size":
        if not (pa.types.is_list(args[0]) or pa.types.is_map(args[0]) or pa.types.is_null(args[0])):
            raise AnalysisError(f"size takes an array or a map, got {args[0]}")
        return pa.int32()
    if fn == "get_item" and pa.types.is_struct(args[0]):  # struct["f"] is getField
        return _field(expr, args[0])
    if fn in ("element_at", "get_item", "map_value"):
        if pa.types.is_map(args[0]):
            return args[0].item_type
        return _array(fn, args[0]).value_type
    if fn == "get_field":
        return _field(expr, args[0])
    if fn == "named_struct":
        names = [_name(a) for a in expr.args[0::2]]
        return pa.struct([pa.field(n, t) for n, t in zip(names, args[1::2], strict=True)])
    if fn in ("array_distinct", "sort_array", "array_sort"):
        return _array(fn, args[0])
    if fn == "create_map":
        return pa.map_(common_all(args[0::2]), common_all(args[1::2]))
    if not pa.types.is_map(args[0]):
        raise AnalysisError(f"{fn} takes a map, got {args[0]}")
    return array_of(args[0].key_type if fn == "map_keys" else args[0].item_type)


def aggregate_type(call: AggCall, arg: pa.DataType) -> pa.DataType | None:
    """The type of a collection or statistics aggregate; None for the others."""
    if call.fn in ("collect_list", "collect_set"):
        return array_of(arg)
    if call.fn in ("merge_lists", "merge_sets"):
        return arg
    if call.fn in _FLOAT_AGGREGATES:
        return pa.float64()
    if call.fn in ("approx_count_distinct", "count_if"):
        return pa.int64()
    if call.fn == "percentile_approx":
        if not (pa.types.is_integer(arg) or pa.types.is_floating(arg) or pa.types.is_decimal(arg)
                or pa.types.is_date(arg) or pa.types.is_timestamp(arg)):
            raise AnalysisError(
                f"percentile_approx takes a numeric, date or timestamp column, got {arg}; "
                "cast it first"
            )
        return arg if call.fractions is None else array_of(arg)
    return None


def _array(fn: str, t: pa.DataType) -> pa.ListType:
    if not pa.types.is_list(t):
        raise AnalysisError(f"{fn} takes an array, got {t}")
    return t


def _field(expr: Call, t: pa.DataType) -> pa.DataType:
    name = _name(expr.args[1])
    if not pa.types.is_struct(t):
        raise AnalysisError(f"cannot take field {name!r} of {t}: it is not a struct")
    matches = [f for f in t if f.name.casefold() == name.casefold()]
    if len(matches) != 1:
        have = ", ".join(f.name for f in t)
        raise AnalysisError(f"no struct field {name!r} (or more than one); fields: {have}")
    return matches[0].type


def _name(arg: object) -> str:
    if not (isinstance(arg, Lit) and isinstance(arg.value, str)):
        raise AnalysisError("struct field names must be string literals")
    return arg.value
