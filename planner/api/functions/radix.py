"""``conv``, ``hmac``, ``to_char`` and ``to_varchar`` of ``pyspark.sql.functions``,
re-exported by ``planner.api.functions``; built, and their semantics written down, in
``planner.logical.functions.radix``, ``macs`` and ``char_formats``."""

from __future__ import annotations

from sparkwire.planner.api.column import Column, ColumnOrName, lit, to_column
from sparkwire.planner.api.functions.core import call

__all__ = ["conv", "hmac", "to_char", "to_varchar"]


def conv(col: ColumnOrName, fromBase: int, toBase: int) -> Column:  # noqa: N803 - PySpark's names
    return call("conv", to_column(col).expr, lit(fromBase).expr, lit(toBase).expr)


def hmac(key: ColumnOrName, message: ColumnOrName, algorithm: ColumnOrName | None = None) -> Column:
    args = [to_column(key).expr, to_column(message).expr]
    if algorithm is not None:
        args.append(to_column(algorithm).expr)
    return call("hmac", *args)


def to_char(col: ColumnOrName, format: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    return call("to_char", to_column(col).expr, to_column(format).expr)


def to_varchar(col: ColumnOrName, format: ColumnOrName) -> Column:  # noqa: A002 - PySpark's name
    return call("to_varchar", to_column(col).expr, to_column(format).expr)
