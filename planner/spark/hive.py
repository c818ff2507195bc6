"""Hive-style partition directories (``k=v/``) as Spark writes and discovers them.

Writing (``df.write.partitionBy``): a value is spelled as Spark casts it to a string and
escaped as Spark's ``escapePathName`` does (``%`` and two hex digits for control
characters and ``"#%'*/:=?\\{[]^``, DEL); NULL and the empty string are
``__HIVE_DEFAULT_PARTITION__``. Partition columns may be integers, strings, booleans,
dates or decimals (a double's or timestamp's spelling is Java's and the session's, not
written by sparkwire).

Reading (``read.parquet`` of a directory): the ``k=v`` directories between the root and
each file name the partition columns, appended after the files' columns in the order of
the path; every file must sit under the same names. Each column's type is inferred from
its values as Spark's ``inferPartitionColumnValue`` does: ``int``, else ``bigint``, else
``decimal(p,0)`` for an integer of up to 38 digits, else ``double``, else ``date``
(``yyyy-MM-dd``), else ``string``; across values the wider type wins (``int`` and
``bigint`` widen to ``bigint``, numbers to ``double``), any other mix is a ``string``, and
a column only ever ``__HIVE_DEFAULT_PARTITION__`` is a ``string`` of NULLs.
"""

from __future__ import annotations

import datetime as dt
import decimal
import os
import re
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from sparkwire.planner.errors import AnalysisError

DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"
_ESCAPED = frozenset([chr(c) for c in range(1, 0x20)] + list("\"#%'*/:=?\\\x7f{[]^"))
_INT = re.compile(r"[+-]?\d+")
_DOUBLE = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|NaN|[+-]?Infinity")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def writable(t: pa.DataType) -> bool:
    """Whether sparkwire spells values of ``t`` in directory names as Spark does."""
    return bool(pa.types.is_integer(t) or pa.types.is_string(t) or pa.types.is_boolean(t)
                or pa.types.is_date32(t) or pa.types.is_decimal(t))


def directory(names: Sequence[str], values: Sequence[Any]) -> str:
    """The relative directory of one combination of partition values."""
    return os.path.join(*(f"{_escape(n)}={_spell(v)}" for n, v in zip(names, values, strict=True)))


def _spell(value: Any) -> str:
    if value is None or value == "":
        return DEFAULT_PARTITION
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.date | int | decimal.Decimal):
        return str(value)
    return _escape(value)


def _escape(text: str) -> str:
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in text)


def _unescape(text: str) -> str:
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m[1], 16)), text)


def discover(root: str, files: Sequence[str]) -> tuple[list[str], list[pa.DataType]]:
    """The partition columns of ``files`` under the directory ``root``: names and types."""
    names: list[str] | None = None
    raw: list[list[str]] = []
    for file in files:
        parts = os.path.relpath(os.path.dirname(file), root).split(os.sep)
        pairs = [p.split("=", 1) for p in parts if "=" in p]
        found = [_unescape(k) for k, _ in pairs]
        if names is None:
            names, raw = found, [[] for _ in found]
        elif found != names:
            raise AnalysisError(
                f"conflicting partition directories under {root}: {file} is under "
                f"[{', '.join(found)}], others under [{', '.join(names)}]")
        for values, (_, value) in zip(raw, pairs, strict=True):
            values.append(value)
    names = names or []
    return names, [_column_type(values) for values in raw]


def _column_type(values: list[str]) -> pa.DataType:
    result: pa.DataType | None = None
    for value in values:
        t = None if value == DEFAULT_PARTITION else _value_type(_unescape(value))
        result = t if result is None else (result if t is None else _wider(result, t))
    return pa.string() if result is None else result


def integer_type(text: str) -> pa.DataType | None:
    """Spark's type for an integer spelled ``text`` (partition values, inferred CSV): int,
    bigint, then ``decimal(digits, 0)``; None for text that is no integer or has more than
    38 digits."""
    if not _INT.fullmatch(text):
        return None
    value = int(text)
    if -(2**31) <= value < 2**31:
        return pa.int32()
    if -(2**63) <= value < 2**63:
        return pa.int64()
    digits = len(text.lstrip("+-").lstrip("0") or "0")
    return pa.decimal128(digits, 0) if digits <= 38 else None


def _value_type(text: str) -> pa.DataType:
    if (integer := integer_type(text)) is not None:
        return integer
    if _DOUBLE.fullmatch(text):
        return pa.float64()
    if _DATE.fullmatch(text):
        try:
            dt.date.fromisoformat(text)
        except ValueError:
            pass
        else:
            return pa.date32()
    return pa.string()


def _wider(a: pa.DataType, b: pa.DataType) -> pa.DataType:
    if a == b:
        return a
    numbers = (pa.int32(), pa.int64(), pa.float64())
    if a in numbers and b in numbers:
        return max(a, b, key=numbers.index)
    if pa.types.is_decimal(a) or pa.types.is_decimal(b):
        others = [t for t in (a, b) if not pa.types.is_decimal(t)]
        if not others or others[0] in numbers[:2]:
            both = [t if pa.types.is_decimal(t) else pa.decimal128(20 if t == pa.int64() else 10, 0)
                    for t in (a, b)]
            return pa.decimal128(max(t.precision for t in both), 0)
        if others[0] == pa.float64():
            return pa.float64()
    return pa.string()
