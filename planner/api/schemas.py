"""Schemas as users give them, turned into Arrow: DDL strings, type objects, Python rows.

``createDataFrame(rows, schema)``, ``read.csv(schema=...)`` and ``Column.cast(DataType)``
take a schema or type in PySpark's forms: a DDL string (``"a int, b decimal(10,2)"``), a
``StructType`` / ``DataType`` object (``sparkwire.types`` or ``pyspark.sql.types``: both are
read through ``simpleString()``, so pyspark is never imported), or a list of column names
with types inferred from the rows.

Inference follows PySpark's ``_infer_type``: ``int`` is ``bigint``, ``float`` ``double``,
``Decimal`` ``decimal(38,18)``, ``time`` ``time(6)``, ``datetime`` ``timestamp`` (a naive one a wall clock in the
session time zone, where PySpark reads it in the Python process's zone), ``date`` ``date``, ``bytes``
``binary``, ``list`` an array of its first non-null element's type, ``dict`` a map; a
dict row's fields are its keys *sorted* (PySpark sorts them); a column whose values are all
None cannot be typed and is refused, as PySpark refuses it.
"""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import time_types
from sparkwire.planner.logical.ddl import parse_schema, parse_type
from sparkwire.planner.spark.timezones import INSTANT, WALL_CLOCK

def arrow_type(data_type: Any) -> pa.DataType:
    """The Arrow type of a type name or type object (ours or PySpark's)."""
    return parse_type(data_type if isinstance(data_type, str) else _simple_string(data_type))


def arrow_schema(schema: Any) -> pa.Schema:
    """A DDL string (``"a int, b string"``, or ``"struct<a:int>"``) or a ``StructType``; a
    field of a ``StructType`` keeps its ``nullable`` flag (nested flags are not kept:
    Arrow's nested fields stay nullable, as ``planner.logical.types`` makes them)."""
    if isinstance(schema, str):
        return parse_schema(schema)
    fields = getattr(schema, "fields", None)
    if fields is None:
        raise AnalysisError(
            f"a schema is a DDL string, a StructType or a list of names, got {type(schema).__name__}"
        )
    return pa.schema([pa.field(f.name, arrow_type(f.dataType), getattr(f, "nullable", True)) for f in fields])


def _simple_string(data_type: Any) -> str:
    simple = getattr(data_type, "simpleString", None)
    if simple is None:
        raise AnalysisError(f"expected a data type, got {type(data_type).__name__}")
    return str(simple())


def infer_type(value: Any) -> pa.DataType | None:
    """PySpark's type for one Python value; None for None. A ``Row`` is a struct of its
    fields (a field that is None a NULL-typed one, as PySpark infers it from one row)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
        return pa.int64()
    if isinstance(value, float):
        return pa.float64()
    if isinstance(value, str):
        return pa.string()
    if isinstance(value, bytes | bytearray):
        return pa.binary()
    if isinstance(value, decimal.Decimal):
        return pa.decimal128(38, 18)
    if isinstance(value, dt.datetime):
        return pa.timestamp("us")
    if isinstance(value, dt.date):
        return pa.date32()
    if isinstance(value, dt.time):
        return time_types.TIME
    if isinstance(value, tuple) and hasattr(value, "__fields__"):  # a Row, ours or PySpark's
        return pa.struct([pa.field(name, infer_type(v) or pa.null())
                          for name, v in zip(value.__fields__, value, strict=True)])
    if isinstance(value, list | tuple):
        element = next((t for v in value if (t := infer_type(v)) is not None), None)
        return pa.list_(element if element is not None else pa.null())
    if isinstance(value, Mapping):
        key = next((infer_type(k) for k in value), None)
        item = next((t for v in value.values() if (t := infer_type(v)) is not None), None)
        return pa.map_(key or pa.null(), item or pa.null())
    raise AnalysisError(f"cannot infer a type for {value!r} of type {type(value).__name__}")


def rows_table(rows: Sequence[Any], schema: Any) -> pa.Table:
    """``createDataFrame(rows, schema)``: rows as tuples, lists, dicts or ``Row``s."""
    if isinstance(schema, list | tuple) and all(isinstance(n, str) for n in schema):
        names: list[str] | None = list(schema)
        target: pa.Schema | None = None
    elif schema is None:
        names, target = None, None
    else:
        target = arrow_schema(schema)
        names = target.names
    if names is None:
        names = _row_names(rows[0]) if rows else []
    if not names:
        raise AnalysisError("createDataFrame needs a schema to create an empty DataFrame")
    columns = [_values(rows, i, name) for i, name in enumerate(names)]
    if target is None:
        types = []
        for name, values in zip(names, columns, strict=True):
            typed = next((t for v in values if (t := infer_type(v)) is not None), None)
            if typed is None:
                raise AnalysisError(f"cannot infer the type of column {name!r}: every value is None")
            types.append(typed)
        target = pa.schema([pa.field(n, t) for n, t in zip(names, types, strict=True)])
    arrays = []
    for field, values in zip(target, columns, strict=True):
        # a naive datetime is a wall clock, localized in the session zone by createDataFrame
        given = WALL_CLOCK if field.type == INSTANT and _naive(values) else field.type
        try:
            arrays.append(pa.array(values, type=given))
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError) as exc:
            raise AnalysisError(f"column {field.name!r} does not fit {field.type}: {exc}") from None
    return pa.Table.from_arrays(arrays, schema=target)


def _naive(values: list[Any]) -> bool:
    return all(v.tzinfo is None for v in values if isinstance(v, dt.datetime))


def _row_names(row: Any) -> list[str]:
    if isinstance(row, Mapping):
        return sorted(row)
    fields = getattr(row, "__fields__", None) or getattr(row, "_fields", None)
    if fields is not None:
        return list(fields)
    if isinstance(row, list | tuple):
        return [f"_{i}" for i in range(1, len(row) + 1)]
    raise AnalysisError(f"createDataFrame cannot take a row of type {type(row).__name__}")


def _values(rows: Sequence[Any], index: int, name: str) -> list[Any]:
    """The column at ``index`` (by ``name`` for dict rows) of every row."""
    out = []
    for row in rows:
        if isinstance(row, Mapping):
            out.append(row.get(name))
        elif isinstance(row, list | tuple):
            if index >= len(row):
                raise AnalysisError(f"a row has {len(row)} values; the schema has more columns")
            out.append(row[index])
        else:
            raise AnalysisError(f"createDataFrame cannot take a row of type {type(row).__name__}")
    return out
