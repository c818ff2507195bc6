"""The function half of ``session.catalog``: ``listFunctions``, ``functionExists`` and
``getFunction`` over the function registry (``planner.logical.functions.registry``), the one
table SQL text and the DataFrame API resolve calls through.

A function is listed when SQL text can call it by a name Spark's own registry has: the
registry's names and the generators, less the names only the plan uses (``get_item`` for
``x[k]``, ``get_field`` for ``x.f``, the ``&``/``|``/``^`` operators) and PySpark's names for
what Spark SQL writes as syntax or does not have (``count_distinct`` is ``count(DISTINCT x)``,
``bitwise_not`` is ``~x``; ``negate``, ``product``). Every one is a
built-in: ``isTemporary`` true, no catalog or namespace, as Spark reports its built-ins;
``className`` names the registry, there being no JVM class to name.
"""

from __future__ import annotations

import fnmatch
from typing import NamedTuple

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.analyzer import quote
from sparkwire.planner.logical.functions.generators import GENERATORS
from sparkwire.planner.logical.functions.registry import FUNCTIONS

#: Registry names that are no Spark SQL function name.
_PLAN_ONLY = frozenset({
    "get_item", "get_field", "count_distinct", "sum_distinct", "create_map",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "negate", "product",
    # syntax in Spark's parser (TIMESTAMPDIFF(unit, ...)), not functions of its registry
    "timestamp_diff", "timestampdiff", "timestamp_add", "timestampadd",
    "listagg_distinct", "string_agg_distinct",
})
_CLASS = "sparkwire.planner.logical.functions.registry"


class Function(NamedTuple):
    name: str
    catalog: str | None
    namespace: list[str] | None
    description: str | None
    className: str
    isTemporary: bool


def function_names() -> list[str]:
    """Every function SQL text may call, by its Spark name, sorted."""
    return sorted((set(FUNCTIONS) | set(GENERATORS)) - _PLAN_ONLY)


def exists(name: str) -> bool:
    return name.casefold() in function_names()


def get(name: str) -> Function:
    """The built-in ``name``; Spark's ``UNRESOLVED_ROUTINE`` where there is none."""
    if not exists(name):
        raise AnalysisError(f"cannot resolve the function {quote(name)}", condition="UNRESOLVED_ROUTINE",
                            parameters={"routineName": quote(name),
                                        "searchPath": "[`system`.`builtin`, `system`.`session`, "
                                                      "`spark_catalog`.`default`]"})
    return Function(name.casefold(), None, None, None, _CLASS, True)


def listed(pattern: str | None) -> list[Function]:
    """The functions whose names match Spark's listing ``pattern`` (``*`` any text, ``|``
    alternatives), every one without a pattern."""
    names = function_names()
    if pattern is not None:
        wanted = [p.strip().casefold() for p in pattern.split("|")]
        names = [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in wanted)]
    return [Function(n, None, None, None, _CLASS, True) for n in names]
