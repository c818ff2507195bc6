"""PySpark's data type objects, as ``sparkwire.types`` (``from sparkwire.types import *``).

Programs written for PySpark name types as objects (``StructType([StructField("a",
IntegerType())])``, ``col.cast(LongType())``); these classes carry the same names, arguments
and ``simpleString()``, so the same code runs here. Everything sparkwire does with a type
object goes through its ``simpleString()`` (``planner.api.schemas`` parses it), which is why a
``pyspark.sql.types`` object is accepted too, without the planner importing pyspark.

``df.schema`` is a ``StructType`` of these (``planner.api.spark_schema``), so it prints,
compares and serializes as PySpark's does: ``repr``, ``simpleString()``, ``json()``,
``treeString()`` (``printSchema``) give PySpark's text, and two types are equal when their
``jsonValue()`` is: names, types, nullability and metadata, which is what PySpark's
``__eq__`` compares. A ``pyspark.sql.types`` object has the same ``jsonValue()``, so
``df.schema == spark_df.schema`` holds where the schemas agree (ours on the left: PySpark's
``__eq__`` answers False to any object not of its own classes).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from sparkwire.planner.api.rows import Row

JsonValue = str | dict[str, Any]


class DataType:
    """Base of every type; equal when their ``jsonValue()`` is (PySpark's ``__eq__``
    compares the same fields)."""

    #: Spark's name in ``simpleString()`` (``bigint``) and, where it differs, in
    #: ``typeName()``, JSON and ``printSchema`` (``long``).
    _name: str = ""
    _type_name: str = ""

    def simpleString(self) -> str:  # noqa: N802 - PySpark's name
        return self._name

    def typeName(self) -> str:  # noqa: N802 - PySpark's name
        return self._type_name or self._name

    def jsonValue(self) -> JsonValue:  # noqa: N802 - PySpark's name
        return self.typeName()

    def json(self) -> str:
        return json.dumps(self.jsonValue(), separators=(",", ":"), sort_keys=True)

    def _tree_name(self) -> str:
        """The name ``printSchema`` shows (Spark's ``typeName``, a decimal's full name)."""
        return self.typeName()

    def _tree(self, prefix: str, depth: int) -> list[str]:
        """The lines ``printSchema`` shows below a field of this type (none when atomic)."""
        return []

    def __eq__(self, other: object) -> bool:
        value = getattr(other, "jsonValue", None)
        return callable(value) and bool(self.jsonValue() == value())

    def __hash__(self) -> int:
        return hash(self.json())

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _atomic(class_name: str, name: str, type_name: str = "") -> type[DataType]:
    return type(class_name, (DataType,), {
        "_name": name, "_type_name": type_name, "__doc__": f"Spark's ``{name}``.",
    })


NullType = _atomic("NullType", "void")
StringType = _atomic("StringType", "string")
BinaryType = _atomic("BinaryType", "binary")
BooleanType = _atomic("BooleanType", "boolean")
DateType = _atomic("DateType", "date")
TimestampType = _atomic("TimestampType", "timestamp")
TimestampNTZType = _atomic("TimestampNTZType", "timestamp_ntz")
ByteType = _atomic("ByteType", "tinyint", "byte")
ShortType = _atomic("ShortType", "smallint", "short")
IntegerType = _atomic("IntegerType", "int", "integer")
LongType = _atomic("LongType", "bigint", "long")
FloatType = _atomic("FloatType", "float")
DoubleType = _atomic("DoubleType", "double")


def _flag(value: bool) -> str:
    return str(value).lower()


class _Parameterised(DataType):
    """A type whose name carries its parameters (``decimal(10,2)``, ``time(6)``): its JSON
    value and its name in a schema tree are that name, as in PySpark."""

    def jsonValue(self) -> JsonValue:  # noqa: N802
        return self.simpleString()

    def _tree_name(self) -> str:
        return self.simpleString()


class DecimalType(_Parameterised):
    _type_name = "decimal"

    def __init__(self, precision: int = 10, scale: int = 0) -> None:
        self.precision, self.scale = precision, scale

    def simpleString(self) -> str:  # noqa: N802
        return f"decimal({self.precision},{self.scale})"

    def __repr__(self) -> str:
        return f"DecimalType({self.precision},{self.scale})"


class TimeType(_Parameterised):
    """Spark's ``time(p)``, a time of day (``planner.logical.time_types``: sparkwire computes
    only ``time(6)``, the default)."""

    _type_name = "time"

    def __init__(self, precision: int = 6) -> None:
        self.precision = precision

    def simpleString(self) -> str:  # noqa: N802
        return f"time({self.precision})"

    def __repr__(self) -> str:
        return f"TimeType({self.precision})"


class ArrayType(DataType):
    _type_name = "array"

    def __init__(self, elementType: DataType, containsNull: bool = True) -> None:  # noqa: N803
        self.elementType, self.containsNull = elementType, containsNull

    def simpleString(self) -> str:  # noqa: N802
        return f"array<{self.elementType.simpleString()}>"

    def jsonValue(self) -> JsonValue:  # noqa: N802
        return {"type": "array", "elementType": self.elementType.jsonValue(),
                "containsNull": self.containsNull}

    def _tree(self, prefix: str, depth: int) -> list[str]:
        if depth <= 0:
            return []
        head = f"{prefix}-- element: {self.elementType._tree_name()} (containsNull = {_flag(self.containsNull)})"
        return [head, *self.elementType._tree(f"{prefix}    |", depth - 1)]

    def __repr__(self) -> str:
        return f"ArrayType({self.elementType!r}, {self.containsNull})"


class MapType(DataType):
    _type_name = "map"

    def __init__(self, keyType: DataType, valueType: DataType,  # noqa: N803
                 valueContainsNull: bool = True) -> None:  # noqa: N803
        self.keyType, self.valueType, self.valueContainsNull = keyType, valueType, valueContainsNull

    def simpleString(self) -> str:  # noqa: N802
        return f"map<{self.keyType.simpleString()},{self.valueType.simpleString()}>"

    def jsonValue(self) -> JsonValue:  # noqa: N802
        return {"type": "map", "keyType": self.keyType.jsonValue(),
                "valueType": self.valueType.jsonValue(), "valueContainsNull": self.valueContainsNull}

    def _tree(self, prefix: str, depth: int) -> list[str]:
        if depth <= 0:
            return []
        inner = f"{prefix}    |"
        value = (f"{prefix}-- value: {self.valueType._tree_name()} "
                 f"(valueContainsNull = {_flag(self.valueContainsNull)})")
        return [f"{prefix}-- key: {self.keyType._tree_name()}", *self.keyType._tree(inner, depth - 1),
                value, *self.valueType._tree(inner, depth - 1)]

    def __repr__(self) -> str:
        return f"MapType({self.keyType!r}, {self.valueType!r}, {self.valueContainsNull})"


class StructField(DataType):
    def __init__(self, name: str, dataType: DataType, nullable: bool = True,  # noqa: N803
                 metadata: dict[str, Any] | None = None) -> None:
        self.name, self.dataType, self.nullable = name, dataType, nullable
        self.metadata = metadata or {}

    def simpleString(self) -> str:  # noqa: N802
        return f"{self.name}:{self.dataType.simpleString()}"

    def jsonValue(self) -> JsonValue:  # noqa: N802
        return {"name": self.name, "type": self.dataType.jsonValue(), "nullable": self.nullable,
                "metadata": self.metadata}

    def _tree(self, prefix: str, depth: int) -> list[str]:
        if depth <= 0:
            return []
        name = self.name.translate(_ESCAPES)
        head = f"{prefix}-- {name}: {self.dataType._tree_name()} (nullable = {_flag(self.nullable)})"
        return [head, *self.dataType._tree(f"{prefix}    |", depth - 1)]

    def __repr__(self) -> str:
        return f"StructField('{self.name}', {self.dataType!r}, {self.nullable})"


#: What ``printSchema`` escapes in a field name (PySpark's ``escape_meta_characters``).
_ESCAPES = str.maketrans({"\n": "\\n", "\r": "\\r", "\t": "\\t", "\f": "\\f", "\b": "\\b",
                          "\v": "\\v", "\a": "\\a"})


class StructType(DataType):
    _type_name = "struct"

    def __init__(self, fields: Sequence[StructField] | None = None) -> None:
        self.fields: list[StructField] = list(fields or [])

    def add(self, field: str | StructField, data_type: DataType | None = None,
            nullable: bool = True, metadata: dict[str, Any] | None = None) -> StructType:
        """Appends a field (by object, or by name and type) and returns this struct, as PySpark."""
        if isinstance(field, StructField):
            self.fields.append(field)
        else:
            if data_type is None:
                raise TypeError("StructType.add(name, data_type) needs a data type")
            self.fields.append(StructField(field, data_type, nullable, metadata))
        return self

    def fieldNames(self) -> list[str]:  # noqa: N802
        return [f.name for f in self.fields]

    @property
    def names(self) -> list[str]:
        return self.fieldNames()

    def __iter__(self) -> Iterator[StructField]:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    def __getitem__(self, key: int | str) -> StructField:
        if isinstance(key, str):
            for f in self.fields:
                if f.name == key:
                    return f
            raise KeyError(f"no field named {key!r}; fields: {self.fieldNames()}")
        return self.fields[key]

    def simpleString(self) -> str:  # noqa: N802
        return f"struct<{','.join(f.simpleString() for f in self.fields)}>"

    def jsonValue(self) -> JsonValue:  # noqa: N802
        return {"type": "struct", "fields": [f.jsonValue() for f in self.fields]}

    def _tree(self, prefix: str, depth: int) -> list[str]:
        return [line for f in self.fields for line in f._tree(prefix, depth)]

    def treeString(self, maxDepth: int | None = None) -> str:  # noqa: N802, N803
        """The tree ``printSchema`` prints: ``root``, then a line per field and nested type,
        ``maxDepth`` levels deep (all when not positive)."""
        depth = maxDepth if maxDepth is not None and maxDepth > 0 else 2**31 - 1
        return "\n".join(["root", *self._tree(" |", depth)]) + "\n"

    def __repr__(self) -> str:
        return f"StructType([{', '.join(map(repr, self.fields))}])"


__all__ = [
    "ArrayType", "BinaryType", "BooleanType", "ByteType", "DataType", "DateType", "DecimalType",
    "DoubleType", "FloatType", "IntegerType", "LongType", "MapType", "NullType", "Row",
    "ShortType", "StringType", "StructField", "StructType", "TimeType", "TimestampNTZType", "TimestampType",
]
