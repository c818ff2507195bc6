"""Spark's data types between sparkwire and the protocol.

Our ``StructType`` serializes to Spark's JSON exactly as PySpark's does
(``planner.api.types``), and PySpark ships the converters between its types and the
protocol's ``DataType`` (``pyspark.sql.connect.types``): so a schema travels through
PySpark's JSON form, and no third copy of the type mapping is written here. A type that
comes in (a cast, a local relation's schema) is handed to our API as PySpark's type object,
which the API reads through ``simpleString()``.
"""

from __future__ import annotations

import json
from typing import Any

from pyspark.sql.connect.proto import types_pb2
from pyspark.sql.connect.types import proto_schema_to_pyspark_data_type, pyspark_types_to_proto_types
from pyspark.sql.types import DataType, _parse_datatype_json_value

from sparkwire.planner.api.types import StructType


def to_proto(schema: StructType) -> types_pb2.DataType:
    """Our schema as the protocol's ``DataType`` (a ``struct``)."""
    spark_type: Any = _parse_datatype_json_value(json.loads(schema.json()))
    return pyspark_types_to_proto_types(spark_type)


def from_proto(data_type: types_pb2.DataType) -> DataType:
    """The protocol's ``DataType`` as PySpark's type object (our API takes it as given)."""
    return proto_schema_to_pyspark_data_type(data_type)
