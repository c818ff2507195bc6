"""SQL calls of the array and map functions (``planner.logical.functions.arrays``, ``maps``):
the node classes sqlglot's Spark dialect parses them into, and the names it leaves
anonymous, merged into ``planner.sql.functions``' tables.

sqlglot reads ``array_join`` as ``ArrayToString``, ``slice`` as an ``ArraySlice`` of a
length, ``sequence`` as ``GenerateSeries`` and ``map_from_arrays`` as ``Map``;
``try_element_at`` is a safe ``Bracket`` (``planner.sql.collections``).
"""

from __future__ import annotations

from sqlglot import exp

#: node class -> (the node's arguments, in order, that are the call's) and the registry's name
ARRAY_CLASSES: dict[type[exp.Expr], tuple[tuple[str, ...], str]] = {
    exp.ArrayAppend: (("this", "expression"), "array_append"),
    exp.ArrayPrepend: (("this", "expression"), "array_prepend"),
    exp.ArrayCompact: (("this",), "array_compact"),
    exp.ArrayMax: (("this",), "array_max"),
    exp.ArrayMin: (("this",), "array_min"),
    exp.ArrayPosition: (("this", "expression"), "array_position"),
    exp.ArrayRemove: (("this", "expression"), "array_remove"),
    exp.ArrayToString: (("this", "expression", "null"), "array_join"),
    exp.ArraySlice: (("this", "start", "end"), "slice"),
    exp.Flatten: (("this",), "flatten"),
    exp.ArrayIntersect: (("expressions",), "array_intersect"),
    exp.ArrayExcept: (("this", "expression"), "array_except"),
    exp.GenerateSeries: (("start", "end", "step"), "sequence"),
    exp.ArraysZip: (("expressions",), "arrays_zip"),
    exp.ArrayInsert: (("this", "position", "expression"), "array_insert"),
    exp.MapContainsKey: (("this", "key"), "map_contains_key"),
    exp.Map: (("keys", "values"), "map_from_arrays"),
    exp.MapFromEntries: (("this",), "map_from_entries"),
    exp.StrToMap: (("this", "pair_delim", "key_value_delim"), "str_to_map"),
}
#: The ones sqlglot leaves as anonymous calls, resolved by their own names.
ARRAY_NAMES = frozenset({
    "cardinality", "array_repeat", "arrays_overlap", "array_union", "get", "map_entries",
    "map_concat",
})
