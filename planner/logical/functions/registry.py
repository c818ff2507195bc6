"""The function registry: every function by its Spark name, one table the DataFrame API
(``planner.api.functions``) and the SQL front end (``planner.sql.functions``) both resolve
calls through, as Spark's ``FunctionRegistry`` serves its SQL and its DataFrames.

The table is data: each family module lists its ``Function`` entries (``FUNCTIONS``) and
this module joins them, refusing a name two families claim; it is read-only. What an
entry is and how its arguments are checked: ``planner.logical.functions.base``.

Names are Spark SQL's, in any case (``dayofmonth`` and ``day`` alike); PySpark's where
Spark SQL writes syntax instead (``count_distinct``, ``sum_distinct``, ``create_map``), and
the plan's own for ``x[key]`` and ``x.field`` (``get_item``, ``get_field``). Which names SQL
text may call is the SQL front end's table (``planner.sql.functions``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import Expr
from sparkwire.planner.logical.functions import (
    aggregate_forms,
    aggregates,
    arrays,
    assertions,
    bits,
    calendar,
    collections,
    conditionals,
    dates,
    elementary,
    encodings,
    grouping,
    higher_order,
    jsons,
    maps,
    nulls,
    numeric,
    session_info,
    try_calendar,
    times,
    statistics,
    strings,
    summaries,
    texts,
    transcoding,
    windows,
    task_values,
    spellings,
    timestamp_units,
    listaggs,
    radix,
    macs,
    char_formats,
    collations,
    vectors,
    urls,
    number_formats,
)
from sparkwire.planner.logical.functions.base import Function
from sparkwire.planner.logical.functions.generators import GENERATORS, Generator

_FAMILIES = (strings, texts, nulls, dates, calendar, numeric, conditionals, collections, aggregates,
             statistics, summaries, windows, grouping, assertions, elementary, bits, encodings,
             arrays, maps, higher_order, aggregate_forms,
             session_info, try_calendar, times, jsons, transcoding, task_values, spellings,
             timestamp_units, listaggs, radix, macs, char_formats, collations, vectors, urls,
             number_formats)


def _joined(entries: Iterable[Function]) -> Mapping[str, Function]:
    table: dict[str, Function] = {}
    for entry in entries:
        if entry.name in table or entry.name in GENERATORS:
            raise ValueError(f"the function {entry.name} is registered twice")
        table[entry.name] = entry
    return MappingProxyType(table)


#: Every function by its name (lower case), generators apart.
FUNCTIONS: Mapping[str, Function] = _joined(e for family in _FAMILIES for e in family.FUNCTIONS)


def lookup(name: str) -> Function:
    """The function called ``name`` (in any case)."""
    function = FUNCTIONS.get(name.casefold())
    if function is None:
        raise AnalysisError(f"the function {name} is not supported by sparkwire")
    return function


def call(name: str, *args: Expr) -> Expr:
    """The expression of the function ``name`` over ``args`` (literal arguments as ``Lit``)."""
    return lookup(name)(*args)


def generator(name: str, collection: Expr) -> Generator:
    """The generator ``name`` (``explode``, ``posexplode_outer`` ...) of ``collection``."""
    build = GENERATORS.get(name.casefold())
    if build is None:
        raise AnalysisError(f"the generator {name} is not supported by sparkwire")
    return build(collection)
