"""What every module of ``planner.api.functions`` builds with: a PySpark argument as an
expression, and a registry call as a Column.

The functions themselves are built by the registry (``planner.logical.functions``), from
expressions; this layer only reads PySpark's arguments: where a function expects a
column, a ``str`` is a column name; where it expects a value, a Python value is a literal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sparkwire.planner.logical import expressions as ex
from sparkwire.planner.logical.functions import registry
from sparkwire.planner.logical.literals import literal
from sparkwire.planner.api.column import Column, ColumnOrName, to_column


def call(name: str, *args: ex.Expr) -> Column:
    """The registry's function ``name`` of ``args``, as a Column."""
    return Column(registry.call(name, *args))


def flatten_arguments(items: tuple[Any, ...]) -> list[Any]:
    """PySpark accepts ``f(a, b)`` and ``f([a, b])``."""
    if len(items) == 1 and isinstance(items[0], list | tuple):
        return list(items[0])
    return list(items)


def columns(cols: tuple[ColumnOrName | Sequence[ColumnOrName], ...]) -> list[Column]:
    """The columns of ``f(a, b)`` or ``f([a, b])``, names as columns."""
    return [to_column(c) for c in flatten_arguments(cols)]


def exprs(cols: Sequence[ColumnOrName]) -> list[ex.Expr]:
    """The expressions of columns given as Columns or names."""
    return [to_column(c).expr for c in cols]


def number_or_column(value: ColumnOrName | int | float) -> ex.Expr:
    """Where PySpark takes ``ColumnOrName`` or a number, a ``str`` is a column name."""
    return to_column(value).expr if isinstance(value, Column | str) else literal(value)


def percentages(percentage: Column | float | Sequence[float]) -> ex.Expr:
    """A percentile's ``percentage``: a number, a list of them (an ``array`` literal), or a
    literal Column, as PySpark takes it."""
    if isinstance(percentage, list | tuple):
        return ex.Call(fn="array", args=tuple(literal(p) for p in percentage))
    return to_column(percentage).expr if isinstance(percentage, Column) else literal(percentage)
