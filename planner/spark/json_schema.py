"""The schema Spark infers for JSON records (``JsonInferSchema``), over parsed Python values.

Per value: ``null`` types nothing yet; ``true``/``false`` are ``boolean``; an integer is
``bigint``, or ``decimal(p,0)`` beyond a bigint (``double`` beyond 38 digits); any other
number ``double``; a string ``string`` (no date or timestamp inference, Spark's default);
an object a struct of its fields sorted by name; an array an array of its elements' common
type. Across values (Spark's ``compatibleType``): ``bigint`` and ``double`` widen to
``double``, decimals and integers to a decimal holding both, structs merge their fields by
name, arrays their elements; any other mix is a ``string``. Then, as Spark canonicalizes:
a field only ever null, or an array only ever empty, holds strings; a struct that never had
a field is dropped, and with it an array of such structs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeAlias

import pyarrow as pa

from sparkwire.planner.errors import AnalysisError

#: An inferred type: ``None`` is Spark's ``NullType`` (nothing but nulls seen yet).
Inferred: TypeAlias = pa.DataType | None

_LONG = (-(2**63), 2**63)
_MAX_DIGITS = 38


def infer_records(records: Iterable[dict[str, Any]]) -> pa.Schema | None:
    """The schema of records, each a JSON object; ``None`` when they have no fields."""
    merged: Inferred = pa.struct([])
    for record in records:
        merged = compatible(merged, value_type(record))
    root = canonical(merged)
    return None if root is None else pa.schema(list(root))


def value_type(value: Any) -> Inferred:
    if value is None:
        return None
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
        if _LONG[0] <= value < _LONG[1]:
            return pa.int64()
        digits = len(str(abs(value)))
        return pa.decimal128(digits, 0) if digits <= _MAX_DIGITS else pa.float64()
    if isinstance(value, float):
        return pa.float64()
    if isinstance(value, str):
        return pa.string()
    if isinstance(value, list):
        element: Inferred = None
        for item in value:
            element = compatible(element, value_type(item))
        return _array(element)
    if isinstance(value, dict):
        fields: dict[str, Inferred] = {}
        for key, item in value.items():
            fields[key] = compatible(fields.get(key), value_type(item))
        return _struct(fields)
    raise AnalysisError(f"unexpected JSON value {value!r}")


def compatible(a: Inferred, b: Inferred) -> Inferred:
    """Spark's ``compatibleType``: the type both ``a`` and ``b`` are read as."""
    if a is None or b is None:
        return b if a is None else a
    if a == b:
        return a
    if pa.types.is_struct(a) and pa.types.is_struct(b):
        fields = {f.name: _type(f) for f in a}
        for f in b:
            fields[f.name] = compatible(fields.get(f.name), _type(f))
        return _struct(fields)
    if pa.types.is_list(a) and pa.types.is_list(b):
        return _array(compatible(_type(a.value_field), _type(b.value_field)))
    numbers = [t for t in (a, b) if t in (pa.int64(), pa.float64()) or pa.types.is_decimal(t)]
    if len(numbers) == 2:
        if pa.float64() in numbers:
            return pa.float64()
        return _decimal(*(pa.decimal128(20, 0) if t == pa.int64() else t for t in numbers))
    return pa.string()


def canonical(t: Inferred) -> pa.DataType | None:
    """Spark's ``canonicalizeType``: ``NullType`` as ``string``; a struct without fields
    (and an array of them) dropped, ``None``."""
    if t is None or pa.types.is_null(t):
        return pa.string()
    if pa.types.is_list(t):
        element = canonical(_type(t.value_field))
        return None if element is None else _array(element)
    if pa.types.is_struct(t):
        fields = [(f.name, canonical(_type(f))) for f in t if f.name]
        kept = [pa.field(name, ft) for name, ft in fields if ft is not None]
        return pa.struct(kept) if kept else None
    return t


def _decimal(a: pa.Decimal128Type, b: pa.Decimal128Type) -> pa.DataType:
    """Spark's wider decimal: enough integer digits and scale for both, else ``double``."""
    scale = max(a.scale, b.scale)
    digits = max(a.precision - a.scale, b.precision - b.scale) + scale
    return pa.decimal128(digits, scale) if digits <= _MAX_DIGITS else pa.float64()


# Inferred types are held in Arrow types, ``NullType`` as ``pa.null()`` inside them.
def _type(f: pa.Field) -> Inferred:
    return None if pa.types.is_null(f.type) else f.type


def _array(element: Inferred) -> pa.DataType:
    return pa.list_(pa.field("element", pa.null() if element is None else element))


def _struct(fields: dict[str, Inferred]) -> pa.DataType:
    return pa.struct([pa.field(k, pa.null() if fields[k] is None else fields[k]) for k in sorted(fields)])
