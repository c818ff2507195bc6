"""Rows for ``collect()``/``take()``/``first()``, and the table ``show()`` prints."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

import pyarrow as pa


class Row(tuple):  # noqa: SLOT001 - fields live on the class instance below
    """A result row as PySpark gives it: a tuple whose fields are also reachable by name
    (``row.k``, ``row["k"]``) and as a dict (``asDict()``)."""

    __fields__: tuple[str, ...]

    def __new__(cls, items: Iterable[tuple[str, Any]] = (), **fields: Any) -> Row:
        """``Row(pairs)``, or ``Row(a=1, b="x")`` as PySpark builds one (fields in the
        order given)."""
        pairs = [*items, *fields.items()]
        row = super().__new__(cls, [v for _, v in pairs])
        row.__fields__ = tuple(k for k, _ in pairs)
        return row

    def asDict(self) -> dict[str, Any]:  # noqa: N802 - PySpark's name
        return dict(zip(self.__fields__, self, strict=True))

    def __getitem__(self, key: Any) -> Any:  # type: ignore[override]
        if isinstance(key, str):
            try:
                return super().__getitem__(self.__fields__.index(key))
            except ValueError:
                raise KeyError(key) from None
        return super().__getitem__(key)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"Row has no field {name!r}") from None

    def __repr__(self) -> str:
        return "Row(" + ", ".join(f"{k}={v!r}" for k, v in zip(self.__fields__, self, strict=True)) + ")"


def python_value(value: Any, t: pa.DataType) -> Any:
    """A value as PySpark's ``collect()`` gives it: a struct as a ``Row``, a map as a dict
    (Arrow gives dicts and lists of pairs), inside arrays too; an instant as a naive
    ``datetime`` in the process's zone."""
    if value is None:
        return None
    if pa.types.is_struct(t):
        return Row((f.name, python_value(value[f.name], f.type)) for f in t)
    if pa.types.is_map(t):
        return {k: python_value(v, t.item_type) for k, v in value}
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [python_value(v, t.value_type) for v in value]
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        # PySpark's TimestampType.fromInternal: datetime.fromtimestamp, the process's zone
        return value.astimezone().replace(tzinfo=None)
    return value


def _shown(value: Any, t: pa.DataType) -> str:
    """A cell as ``show()`` prints it: arrays ``[1, NULL]``, structs ``{1, a}``, maps
    ``{a -> 1}``, as Spark does."""
    if value is None:
        return "NULL"
    if pa.types.is_struct(t):
        return "{" + ", ".join(_shown(value[f.name], f.type) for f in t) + "}"
    if pa.types.is_map(t):
        return "{" + ", ".join(f"{_shown(k, t.key_type)} -> {_shown(v, t.item_type)}"
                               for k, v in value) + "}"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return "[" + ", ".join(_shown(v, t.value_type) for v in value) + "]"
    return str(value)


def format_table(table: pa.Table, n: int, truncate: bool | int) -> str:
    """PySpark's ``show()`` layout: a ``+---+`` grid, ``NULL`` for nulls, cells cut to 20
    characters (or ``truncate``) and right-aligned, and a note when rows were left out."""
    width = 20 if truncate is True else int(truncate)
    shown = table.slice(0, n)
    rows = list(zip(*(c.to_pylist() for c in shown.columns), strict=True))
    names = table.column_names
    kinds = [f.type for f in table.schema]

    def cell(value: Any, t: pa.DataType) -> str:
        text = _shown(value, t)
        if width > 0 and len(text) > width:
            text = text[: width - 3] + "..." if width > 3 else text[:width]
        return text

    cells = [[cell(value, t) for value, t in zip(row, kinds, strict=True)] for row in rows]
    sizes = [max([3, len(name), *(len(row[i]) for row in cells)]) for i, name in enumerate(names)]
    rule = "+" + "+".join("-" * s for s in sizes) + "+"
    line = lambda values: "|" + "|".join(v.rjust(s) for v, s in zip(values, sizes, strict=True)) + "|"  # noqa: E731
    out = [rule, line(names), rule, *(line(r) for r in cells), rule]
    if table.num_rows > n:
        out.append(f"only showing top {n} row{'s' if n != 1 else ''}")
    return "\n".join(out)
