"""A protocol literal as our ``Column``, built the way a program's ``F.lit`` builds it.

The protocol types every literal (``integer``, ``long``, ``short`` ...); Python's values do
not (an ``int`` is ``int`` or ``bigint`` by size, as ``F.lit`` makes it). So a value whose
Python form would read back as another Spark type is cast to the one the client sent, and
arrays, maps and structs are built by the registry's ``array``, ``map`` and
``named_struct``, as the SQL text ``array(1, 2)`` is. A decimal takes the type of its
digits (``1.25`` is ``decimal(3,2)``), as classic PySpark's ``lit`` gives it: PySpark's
client sends every decimal literal as ``decimal(10,0)``, which would round it.
"""

from __future__ import annotations

import datetime as dt
import decimal

from pyspark.sql.connect.proto import expressions_pb2

from sparkwire.coordinator.connect.errors import PlanNotSupported
from sparkwire.coordinator.connect.types import from_proto
from sparkwire.planner.api.column import Column, lit
from sparkwire.planner.api.functions.core import call
from sparkwire.planner.errors import AnalysisError

Literal = expressions_pb2.Expression.Literal
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_EPOCH_DAY = dt.date(1970, 1, 1)
#: The literal kinds whose Python value ``F.lit`` types otherwise, and Spark's name for each.
_CAST = {"byte": "tinyint", "short": "smallint", "long": "bigint", "float": "float",
         "timestamp_ntz": "timestamp_ntz"}


def literal(value: Literal) -> Column:
    """``value`` as a Column of the type the client gave it."""
    kind = value.WhichOneof("literal_type")
    match kind:
        case "null":  # a NULL of type void (``F.lit(None)``) is our untyped NULL
            void = value.null.WhichOneof("kind") in (None, "null")
            return lit(None) if void else lit(None).cast(from_proto(value.null))
        case "binary":
            return call("unhex", lit(value.binary.hex()).expr)
        case "array":
            return call("array", *(literal(e).expr for e in value.array.elements))
        case "map":
            pairs = zip(value.map.keys, value.map.values, strict=True)
            return call("map", *(literal(x).expr for pair in pairs for x in pair))
        case "struct":
            names = [f.name for f in value.struct.struct_type.struct.fields]
            return call("named_struct", *(e for name, element in zip(names, value.struct.elements, strict=True)
                                          for e in (lit(name).expr, literal(element).expr)))
    column = lit(python_value(value))  # type: ignore[arg-type]
    return column.cast(_CAST[kind]) if kind in _CAST else column


def python_value(value: Literal) -> object:
    """A scalar literal as the Python value ``F.lit`` (or a SQL parameter) takes."""
    kind = value.WhichOneof("literal_type")
    match kind:
        case "null":
            return None
        case "boolean" | "byte" | "short" | "integer" | "long" | "float" | "double" | "string":
            return getattr(value, kind)
        case "decimal":
            return decimal.Decimal(value.decimal.value)
        case "date":
            return _EPOCH_DAY + dt.timedelta(days=value.date)
        case "timestamp":
            return _EPOCH + dt.timedelta(microseconds=value.timestamp)
        case "timestamp_ntz":
            return (_EPOCH + dt.timedelta(microseconds=value.timestamp_ntz)).replace(tzinfo=None)
        case "time":  # nanoseconds from midnight; sparkwire's TIME keeps microseconds
            if not 0 <= value.time.nano < 86_400 * 10**9:
                raise AnalysisError(f"a TIME literal of {value.time.nano} nanoseconds is outside a day")
            return (dt.datetime.min + dt.timedelta(microseconds=value.time.nano // 1000)).time()
    raise PlanNotSupported.field("spark.connect.Expression.Literal", str(kind),
                                 Literal.DESCRIPTOR.fields_by_name[kind].number if kind else 0)
