"""PySpark's array and map functions beyond ``nested``'s basics (``array_append``, ``slice``,
``sequence``, ``map_concat`` ...), re-exported by ``planner.api.functions``; built, and their
semantics written down, in ``planner.logical.functions.arrays`` and ``maps``.

Arguments follow PySpark: where it takes ``ColumnOrName`` a ``str`` names a column (also for
``slice``'s bounds, ``get``'s index, ``array_repeat``'s count and ``array_insert``'s position,
which take an int too); where it takes a value (``array_append``'s, ``array_position``'s,
``map_contains_key``'s ...) a Python value is a literal.
"""

from __future__ import annotations

from typing import Any

from sparkwire.planner.api.column import Column, ColumnOrName, Value, _value, lit, to_column
from sparkwire.planner.api.functions.core import call, columns, number_or_column
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.functions.arrays import arrays_zip_of
from sparkwire.planner.logical.functions.collections import struct_of
from sparkwire.planner.logical.functions.base import option

__all__ = [
    "array_append", "array_compact", "array_except", "array_insert", "array_intersect",
    "array_join", "array_max", "array_min", "array_position", "array_prepend", "array_remove",
    "array_repeat", "array_size", "array_union", "arrays_overlap", "arrays_zip", "cardinality",
    "flatten", "get", "map_concat", "map_contains_key", "map_entries", "map_from_arrays",
    "map_from_entries", "named_struct", "sequence", "slice", "str_to_map", "try_element_at",
]


def _of_columns(name: str) -> Any:
    """PySpark's ``name(col, ...)`` of columns (a ``str`` names one)."""

    def function(*cols: ColumnOrName) -> Column:
        return call(name, *(to_column(c).expr for c in cols))

    function.__name__ = function.__qualname__ = name
    return function


def _of_column_and_value(name: str) -> Any:
    """PySpark's ``name(col, value)``: a Python value is a literal."""

    def function(col: ColumnOrName, value: Value) -> Column:
        return call(name, to_column(col).expr, _value(value))

    function.__name__ = function.__qualname__ = name
    return function


array_size = _of_columns("array_size")
cardinality = _of_columns("cardinality")
array_compact = _of_columns("array_compact")
array_max = _of_columns("array_max")
array_min = _of_columns("array_min")
flatten = _of_columns("flatten")
arrays_overlap = _of_columns("arrays_overlap")
array_union = _of_columns("array_union")
array_intersect = _of_columns("array_intersect")
array_except = _of_columns("array_except")
try_element_at = _of_columns("try_element_at")
map_entries = _of_columns("map_entries")
map_from_arrays = _of_columns("map_from_arrays")
map_from_entries = _of_columns("map_from_entries")
array_append = _of_column_and_value("array_append")
array_prepend = _of_column_and_value("array_prepend")
array_position = _of_column_and_value("array_position")
array_remove = _of_column_and_value("array_remove")
map_contains_key = _of_column_and_value("map_contains_key")


def array_repeat(col: ColumnOrName, count: ColumnOrName | int) -> Column:
    return call("array_repeat", to_column(col).expr, number_or_column(count))


def get(col: ColumnOrName, index: ColumnOrName | int) -> Column:
    return call("get", to_column(col).expr, number_or_column(index))


def slice(x: ColumnOrName, start: ColumnOrName | int, length: ColumnOrName | int) -> Column:  # noqa: A001
    return call("slice", to_column(x).expr, number_or_column(start), number_or_column(length))


def array_insert(arr: ColumnOrName, pos: ColumnOrName | int, value: Value) -> Column:
    return call("array_insert", to_column(arr).expr, number_or_column(pos), _value(value))


def array_join(col: ColumnOrName, delimiter: str, null_replacement: str | None = None) -> Column:
    replacement = () if null_replacement is None else (lit(null_replacement).expr,)
    return call("array_join", to_column(col).expr, lit(delimiter).expr, *replacement)


def sequence(start: ColumnOrName, stop: ColumnOrName, step: ColumnOrName | None = None) -> Column:
    steps = () if step is None else (to_column(step).expr,)
    return call("sequence", to_column(start).expr, to_column(stop).expr, *steps)


def arrays_zip(*cols: ColumnOrName) -> Column:
    """Fields named by alias, by the column's own name, else by position (Spark)."""
    fields = [(c.expr, c.output_name if c.is_aliased else None) for c in columns(cols)]
    return Column(arrays_zip_of(fields))


def map_concat(*cols: ColumnOrName) -> Column:
    return call("map_concat", *(c.expr for c in columns(cols)))


def str_to_map(text: ColumnOrName, pairDelim: ColumnOrName | None = None,  # noqa: N803
               keyValueDelim: ColumnOrName | None = None) -> Column:  # noqa: N803
    """The delimiters are regexes given as literals (``F.lit(',')``: a ``str`` names a
    column, as in PySpark, and is refused as no literal)."""
    delimiters = [to_column(d).expr for d in (pairDelim, keyValueDelim) if d is not None]
    return call("str_to_map", to_column(text).expr, *delimiters)


def named_struct(*cols: ColumnOrName) -> Column:
    """Name, value pairs; each name a string literal (``F.lit('a')``), as Spark requires."""
    given = columns(cols)
    if not given or len(given) % 2:
        raise AnalysisError("named_struct takes name, value pairs")
    fields: list[tuple[Any, str | None]] = []
    for name, value in zip(given[0::2], given[1::2], strict=True):
        text = option(name.expr)
        if not isinstance(text, str):
            raise AnalysisError("named_struct takes each field name as a string literal")
        fields.append((value.expr, text))
    return Column(struct_of(fields))
