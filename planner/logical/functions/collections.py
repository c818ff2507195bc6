"""Array, map and struct functions of the registry (types: ``planner.logical.collection_types``;
worker: ``coordinator.worker.collections``).

- ``split(s, pattern[, limit])``: ``pattern`` is a regex, a string literal compiled here
  first (Python's ``re``, close to Spark's Java dialect) so an invalid one is an
  ``AnalysisError`` naming it rather than a worker failure; ``limit > 0`` gives at most
  ``limit`` pieces, the last holding the rest, ``limit <= 0`` (the default) splits everywhere;
- ``element_at`` is 1-based, negative from the end, for arrays (out of bounds fails), a key
  for maps; ``get_item`` (``x[i]``) 0-based for arrays, a key for maps, a field for structs;
  ``get_field`` (``x.f``) a struct's field by its literal name;
- ``size`` is NULL for a NULL array or map (Spark 4 with ANSI on);
- a struct's fields are named by alias, by the column's or the struct field's own name,
  else ``col<position>`` (Spark);
- ``sort_array`` puts NULLs first ascending, last descending; ``array_sort`` sorts
  ascending with NULLs last (Spark's without a comparator).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import typenames
from sparkwire.planner.logical.expressions import Column, Expr, Lit, Ref
from sparkwire.planner.logical.functions.base import Function, checked_call, int_option, option, plain, shown
from sparkwire.planner.logical.render import output_name, struct_field_name

_EVERYWHERE = Lit(value=-1)
_ASCENDING = Lit(value=True)


def split(string: Expr, pattern: Expr, limit: Expr = _EVERYWHERE) -> Expr:
    regex = option(pattern)
    if not isinstance(regex, str):
        raise AnalysisError("split takes its pattern as a string")
    try:
        re.compile(regex)
    except re.error as exc:
        raise AnalysisError(f"invalid regex pattern {regex!r} for split: {exc}") from None
    pieces = int_option(limit)
    if pieces is None:
        raise AnalysisError(f"split takes an int limit, got {shown(limit)}")
    return checked_call("split", string, Lit(value=regex), Lit(value=pieces))


def array(*elements: Expr) -> Expr:
    if not elements:
        raise AnalysisError("array() without columns is not supported by sparkwire")
    return checked_call("array", *elements)


def get_field(struct: Expr, name: Expr) -> Expr:
    field = option(name)
    if not isinstance(field, str):
        raise AnalysisError("getField takes a field name")
    return checked_call("get_field", struct, Lit(value=field))


def struct_of(fields: Sequence[tuple[Expr, str | None]]) -> Expr:
    """A struct of ``(value, alias or None)`` fields (``named_struct`` in the plan)."""
    if not fields:
        raise AnalysisError("struct() without columns is not supported by sparkwire")
    args: list[Expr] = []
    for position, (value, alias) in enumerate(fields, start=1):
        if alias is not None:
            name = alias
        elif isinstance(value, Column | Ref):
            name = output_name(value).rsplit(".", 1)[-1]
        else:
            name = struct_field_name(value, position)
        try:
            typenames.check_field_name(name)
        except ValueError as exc:
            raise AnalysisError(f"{exc}: such a field name is not supported by sparkwire") from None
        args += [Lit(value=name), value]
    return checked_call("named_struct", *args)


def struct(*values: Expr) -> Expr:
    return struct_of([(value, None) for value in values])


def create_map(*keys_and_values: Expr) -> Expr:
    if not keys_and_values or len(keys_and_values) % 2:
        raise AnalysisError("create_map takes key, value pairs")
    return checked_call("create_map", *keys_and_values)


def sort_array(values: Expr, asc: Expr = _ASCENDING) -> Expr:
    ascending = option(asc)
    if not isinstance(ascending, bool):
        raise AnalysisError("sort_array takes a bool asc")
    return checked_call("sort_array", values, Lit(value=ascending))


FUNCTIONS = (
    *(plain(name) for name in ("size", "map_keys", "map_values", "array_distinct", "array_sort")),
    *(plain(name, 2) for name in ("array_contains", "element_at", "get_item")),
    Function.of("split", split),
    Function.of("array", array),
    Function.of("get_field", get_field),
    Function.of("struct", struct),
    Function.of("create_map", create_map),
    Function.of("sort_array", sort_array),
)
