"""Casts: the type names a user may cast to, as the planner names them.

PySpark's and Spark SQL's names (``int``, ``long``, ``decimal(10, 2)``, ``array<int>``
...) and the planner's own (``int32``, ``float64`` ...) are all accepted, any case, spaces
ignored; the result must be a name of the planner's grammar (``planner.logical.typenames``).
``Column.cast`` and SQL's ``CAST`` both read names here.
"""

from __future__ import annotations

import re

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import typenames
from sparkwire.planner.logical.expressions import Cast, Expr, check_type_name

_SPARK_TYPES = {
    "boolean": "bool",
    "tinyint": "int8",
    "byte": "int8",
    "smallint": "int16",
    "short": "int16",
    "int": "int32",
    "integer": "int32",
    "bigint": "int64",
    "long": "int64",
    "float": "float32",
    "real": "float32",
    "double": "float64",
    "decimal": "decimal(10,0)",
}


def cast_type(name: str) -> str:
    """The planner's name of the type ``name`` names, or an ``AnalysisError``."""
    normal = re.sub(r"\s+", "", name.lower())
    normal = _SPARK_TYPES.get(normal, normal)
    if "<" in normal:
        normal = typenames.from_spark(normal, _SPARK_TYPES)
    try:
        return check_type_name(normal)
    except ValueError as exc:
        raise AnalysisError(f"cannot cast to {name!r}: {exc}") from None


def cast(value: Expr, to: str, safe: bool = False) -> Cast:
    """``CAST(value AS to)``; ``safe`` is ``try_cast``: NULL where the value cannot be cast."""
    return Cast(expr=value, to=cast_type(to), safe=safe)
