"""``df.schema``: the frame's attributes as PySpark's ``StructType``.

The planner types every column in Arrow (``planner.logical.types``); a user reads the schema
as PySpark gives it, a ``StructType`` of ``sparkwire.types`` objects with the nullability
Spark reports (``planner.logical.nullability``). This module is the one translation between
the two; ``df.arrow_schema`` keeps the Arrow schema the results carry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa

from sparkwire.planner.api import types as T
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.analyzer import Attribute
from sparkwire.planner.logical.nullability import UNKNOWN, Nulls

_ATOMIC: dict[pa.DataType, type[T.DataType]] = {
    pa.null(): T.NullType, pa.string(): T.StringType, pa.large_string(): T.StringType,
    pa.string_view(): T.StringType, pa.binary(): T.BinaryType, pa.large_binary(): T.BinaryType,
    pa.binary_view(): T.BinaryType, pa.bool_(): T.BooleanType,
    pa.date32(): T.DateType, pa.int8(): T.ByteType, pa.int16(): T.ShortType,
    pa.int32(): T.IntegerType, pa.int64(): T.LongType, pa.float32(): T.FloatType,
    pa.float64(): T.DoubleType,
}


def spark_schema(attributes: Sequence[Attribute], nulls: Mapping[str, Nulls]) -> T.StructType:
    """The ``StructType`` of ``attributes`` under their user names, flagged by ``nulls``
    (keyed by internal name)."""
    fields = []
    for a in attributes:
        flags = nulls.get(a.internal, UNKNOWN)
        fields.append(T.StructField(a.name, spark_type(a.type, flags), flags.nullable))
    return T.StructType(fields)


def spark_type(t: pa.DataType, nulls: Nulls = UNKNOWN) -> T.DataType:
    """PySpark's type object for an Arrow type, the nested parts flagged by ``nulls``."""
    if pa.types.is_dictionary(t):
        return spark_type(t.value_type, nulls)
    if t in _ATOMIC:
        return _ATOMIC[t]()
    if pa.types.is_time(t):  # planner.logical.time_types: time(6) only
        return T.TimeType()
    if pa.types.is_timestamp(t):
        return T.TimestampType() if t.tz is not None else T.TimestampNTZType()
    if pa.types.is_decimal(t):
        return T.DecimalType(t.precision, t.scale)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        element = nulls.part(0)
        return T.ArrayType(spark_type(t.value_type, element), element.nullable)
    if pa.types.is_map(t):
        value = nulls.part(1)
        return T.MapType(spark_type(t.key_type, nulls.part(0)), spark_type(t.item_type, value),
                         value.nullable)
    if pa.types.is_struct(t):
        return T.StructType([T.StructField(f.name, spark_type(f.type, nulls.part(i)), nulls.part(i).nullable)
                             for i, f in enumerate(t)])
    raise AnalysisError(f"the Arrow type {t} has no Spark type")
