"""Rows for ``collect()``/``take()``/``first()`` (``show()``'s text is ``planner.api.show``)."""

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
