"""PySpark's data type objects, as ``sparkwire.types`` (``from sparkwire.types import *``).

Programs written for PySpark name types as objects (``StructType([StructField("a",
IntegerType())])``, ``col.cast(LongType())``); these classes carry the same names, arguments
and ``simpleString()``, so the same code runs here. Everything sparkwire does with a type
object goes through its ``simpleString()`` (``planner.api.schemas`` parses it), which is why a
``pyspark.sql.types`` object is accepted too, without the planner importing pyspark.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from sparkwire.planner.api.rows import Row


class DataType:
    """Base of every type; equal when their ``simpleString()`` is."""

    _name: str = ""

    def simpleString(self) -> str:  # noqa: N802 - PySpark's name
        return self._name

    def typeName(self) -> str:  # noqa: N802 - PySpark's name
        return self.simpleString().split("(")[0].split("<")[0]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DataType) and self.simpleString() == other.simpleString()

    def __hash__(self) -> int:
        return hash(self.simpleString())

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _atomic(class_name: str, name: str) -> type[DataType]:
    return type(class_name, (DataType,), {"_name": name, "__doc__": f"Spark's ``{name}``."})


NullType = _atomic("NullType", "void")
StringType = _atomic("StringType", "string")
BinaryType = _atomic("BinaryType", "binary")
BooleanType = _atomic("BooleanType", "boolean")
DateType = _atomic("DateType", "date")
TimestampType = _atomic("TimestampType", "timestamp")
TimestampNTZType = _atomic("TimestampNTZType", "timestamp_ntz")
ByteType = _atomic("ByteType", "tinyint")
ShortType = _atomic("ShortType", "smallint")
IntegerType = _atomic("IntegerType", "int")
LongType = _atomic("LongType", "bigint")
FloatType = _atomic("FloatType", "float")
DoubleType = _atomic("DoubleType", "double")


class DecimalType(DataType):
    def __init__(self, precision: int = 10, scale: int = 0) -> None:
        self.precision, self.scale = precision, scale

    def simpleString(self) -> str:  # noqa: N802
        return f"decimal({self.precision},{self.scale})"

    def __repr__(self) -> str:
        return f"DecimalType({self.precision},{self.scale})"


class ArrayType(DataType):
    def __init__(self, elementType: DataType, containsNull: bool = True) -> None:  # noqa: N803
        self.elementType, self.containsNull = elementType, containsNull

    def simpleString(self) -> str:  # noqa: N802
        return f"array<{self.elementType.simpleString()}>"

    def __repr__(self) -> str:
        return f"ArrayType({self.elementType!r}, {self.containsNull})"


class MapType(DataType):
    def __init__(self, keyType: DataType, valueType: DataType,  # noqa: N803
                 valueContainsNull: bool = True) -> None:  # noqa: N803
        self.keyType, self.valueType, self.valueContainsNull = keyType, valueType, valueContainsNull

    def simpleString(self) -> str:  # noqa: N802
        return f"map<{self.keyType.simpleString()},{self.valueType.simpleString()}>"

    def __repr__(self) -> str:
        return f"MapType({self.keyType!r}, {self.valueType!r}, {self.valueContainsNull})"


class StructField(DataType):
    def __init__(self, name: str, dataType: DataType, nullable: bool = True,  # noqa: N803
                 metadata: dict[str, Any] | None = None) -> None:
        self.name, self.dataType, self.nullable = name, dataType, nullable
        self.metadata = metadata or {}

    def simpleString(self) -> str:  # noqa: N802
        return f"{self.name}:{self.dataType.simpleString()}"

    def __repr__(self) -> str:
        return f"StructField({self.name!r}, {self.dataType!r}, {self.nullable})"


class StructType(DataType):
    def __init__(self, fields: Sequence[StructField] | None = None) -> None:
        self.fields: list[StructField] = list(fields or [])

    def add(self, field: str | StructField, data_type: DataType | None = None,
            nullable: bool = True) -> StructType:
        """Appends a field (by object, or by name and type) and returns this struct, as PySpark."""
        if isinstance(field, StructField):
            self.fields.append(field)
        else:
            if data_type is None:
                raise TypeError("StructType.add(name, data_type) needs a data type")
            self.fields.append(StructField(field, data_type, nullable))
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
            return next(f for f in self.fields if f.name == key)
        return self.fields[key]

    def simpleString(self) -> str:  # noqa: N802
        return f"struct<{','.join(f.simpleString() for f in self.fields)}>"

    def __repr__(self) -> str:
        return f"StructType([{', '.join(map(repr, self.fields))}])"


__all__ = [
    "ArrayType", "BinaryType", "BooleanType", "ByteType", "DataType", "DateType", "DecimalType",
    "DoubleType", "FloatType", "IntegerType", "LongType", "MapType", "NullType", "Row",
    "ShortType", "StringType", "StructField", "StructType", "TimestampNTZType", "TimestampType",
]
