"""Functions the client sends by name that go through the DataFrame API function of that
name rather than straight to the function registry.

Most functions go to the registry by name (``expressions``). These do not, because the
registry would take them otherwise than a program's call does, or not at all: generators
(``explode`` ... ``json_tuple``, ``stack``), which are select items of one or more named
columns (``GeneratorColumn``); the higher-order functions (``transform``, ``filter`` ...),
whose lambda arrives as the Python function PySpark's API takes (``expressions`` builds it);
functions the DataFrame API builds itself (``window``, ``window_time``, ``collect_union``,
the ``listagg`` family's default delimiter, ``call_function``'s qualified names,
``from_json``'s schema sent as JSON); and calls of a name or arity the registry does not take (``substr`` without
a length, ``map``, ``named_struct``), and ``struct`` and ``arrays_zip``, whose fields the API
names after the columns' names (an alias, a nested field's name).
Each is the one call a sparkwire program makes, so no third path builds them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pyspark.sql.connect.proto import expressions_pb2
from pyspark.sql.types import _parse_datatype_json_string

from sparkwire.coordinator.connect.literals import python_value
from sparkwire.planner.api import functions as F
from sparkwire.planner.api.column import Column
from sparkwire.planner.api.functions import lambdas

Expression = expressions_pb2.Expression
#: An argument as the API function takes it: a Column, or (a lambda) a Python function.
Argument = Column | Callable[..., Column]

#: Functions called with every argument as a Column (or a lambda's Python function).
_BY_COLUMN: dict[str, Callable[..., Column]] = {
    "substr": F.substr, "map": F.create_map, "named_struct": F.named_struct, "struct": F.struct,
    "arrays_zip": F.arrays_zip,
    "explode": F.explode, "explode_outer": F.explode_outer, "posexplode": F.posexplode,
    "posexplode_outer": F.posexplode_outer, "inline": F.inline, "inline_outer": F.inline_outer,
    "stack": F.stack, "json_tuple": F.json_tuple, "collect_union": F.collect_union, "window_time": F.window_time,
    "listagg": F.listagg, "listagg_distinct": F.listagg_distinct, "string_agg": F.string_agg,
    "string_agg_distinct": F.string_agg_distinct,
    **{name: getattr(lambdas, name) for name in lambdas.__all__},
}


def _from_json(col: Column, schema: str, *options: Any) -> Column:
    """The client sends a ``DataType`` schema as its JSON (``schema.json()``), a DDL string
    as itself; Spark's server reads either."""
    given = _parse_datatype_json_string(schema) if schema.lstrip().startswith("{") else schema
    return F.from_json(col, given, *options)


#: Functions whose arguments from the given position on are Python values, as the API
#: takes them: the client sends ``window``'s durations, ``from_json``'s schema and the seeds
#: it draws as literals (a seed typed ``bigint``, which would arrive as a cast).
_BY_VALUE_FROM: dict[str, tuple[Callable[..., Column], int]] = {
    "window": (F.window, 1), "from_json": (_from_json, 1), "shuffle": (F.shuffle, 1),
    "uniform": (F.uniform, 2), "randstr": (F.randstr, 0),
}


def api_call(name: str, arguments: Sequence[Expression],
             argument: Callable[[Expression], Argument]) -> Column | None:
    """``name`` (case-folded) called through the DataFrame API on ``arguments`` (each
    translated by ``argument``), or None when it is not one of these functions."""
    if name in _BY_VALUE_FROM:
        by_value, first = _BY_VALUE_FROM[name]
        values: list[Any] = [python_value(a.literal) for a in arguments[first:]]
        return by_value(*(argument(a) for a in arguments[:first]), *values)
    by_column = _BY_COLUMN.get(name)
    return None if by_column is None else by_column(*(argument(a) for a in arguments))


def call_function(name: str, arguments: Sequence[Column]) -> Column:
    """``call_function(name, ...)``: the API's, which reads ``system.builtin.`f```."""
    return F.call_function(name, *arguments)
