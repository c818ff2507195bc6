"""``groupBy(...).pivot(col, values)`` and the dict form of ``agg`` (``{"x": "max"}``).

A pivot is planned as one aggregate: for each pivot value ``v`` and each aggregate, every
aggregate call ``f(x)`` inside it becomes ``f(CASE WHEN p <=> v THEN x END)`` (``count(*)``
counts ``CASE WHEN p <=> v THEN 1 END``). When every aggregate is a number or boolean,
Spark pivots with ``PivotFirst``, which gives NULL for a missing combination, ``count``
included: then the whole expression is NULL where no row of the group has ``p <=> v``;
otherwise ``count`` of a missing combination is 0, as Spark's rewrite gives. ``<=>``
means a NULL pivot value collects the rows whose ``p`` is NULL.

Spark's rules kept here:

- without ``values``, the distinct values of ``p`` are computed first (a query, as in
  Spark), sorted ascending with NULL first, at most ``MAX_PIVOT_VALUES``
  (``spark.sql.pivotMaxValues``);
- output columns are the group keys, then per value (in order) per aggregate: named by
  the value alone for one aggregate, ``{value}_{aggregate name}`` for several; a value is
  named as Spark prints it (``null``, ``true``, dates ISO).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, Self

import pyarrow as pa

from sparkwire.planner.api import functions as F
from sparkwire.planner.api.functions import Column, SortOrder
from sparkwire.planner.api.rows import Row
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import AggCall, Call, Case, Expr, Lit
from sparkwire.planner.logical.tree import transform

#: Distinct pivot values computed at most (Spark's ``spark.sql.pivotMaxValues``).
MAX_PIVOT_VALUES = 10_000

_DICT_FUNCTIONS = {"avg": F.avg, "mean": F.avg, "max": F.max, "min": F.min, "sum": F.sum,
                   "count": F.count}


def dict_aggregates(spec: Mapping[str, str]) -> list[Column]:
    """``agg({"x": "max", "*": "count"})``: one aggregate per entry, named as Spark names
    them (``max(x)``, ``count(1)``; ``mean`` is ``avg``), in the order Spark gives them:
    PySpark hands the dict to the JVM as a ``java.util.HashMap``, whose order (up to four
    entries, which Scala's small maps keep) is ``java_hash_map_order``'s."""
    columns = []
    for name in java_hash_map_order(list(spec)):
        function = spec[name]
        if not isinstance(name, str) or not isinstance(function, str):
            raise AnalysisError("agg's dict maps column names to aggregate function names")
        make = _DICT_FUNCTIONS.get(function.lower())
        if make is None:
            raise AnalysisError(
                f"aggregate function {function!r} is not supported by sparkwire in agg's dict "
                f"form; supported: {', '.join(sorted(_DICT_FUNCTIONS))}"
            )
        if name == "*" and function.lower() != "count":
            raise AnalysisError(f"'*' can only be counted, not given to {function}")
        columns.append(make(name))
    return columns


def java_hash_map_order(keys: list[str]) -> list[str]:
    """The iteration order of a ``java.util.HashMap`` the keys were put into in order:
    by bucket (``(h ^ h >>> 16) & (capacity - 1)`` of ``String.hashCode``), insertion
    order within one; the table starts at 16 buckets and doubles past 3/4 full."""
    capacity = 16
    while len(keys) > capacity * 3 // 4:
        capacity *= 2

    def bucket(key: str) -> int:
        h = 0
        for unit in key.encode("utf-16-be").hex(" ", 2).split():
            h = (31 * h + int(unit, 16)) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(keys, key=bucket)  # stable: insertion order within a bucket


class PivotSource(Protocol):
    """What ``pivot_values`` asks of a DataFrame: a query of a column's distinct values, in
    order, as rows. Stated here so pivoting, below the DataFrame, need not import it."""

    def select(self, *cols: Column) -> Self: ...

    def distinct(self) -> Self: ...

    def orderBy(self, *cols: SortOrder) -> Self: ...  # noqa: N802 - PySpark's name

    def limit(self, n: int) -> Self: ...

    def collect(self) -> list[Row]: ...


def pivot_values(df: PivotSource, pivot: Column) -> list[Any]:
    """The distinct values of ``pivot`` in ``df``, sorted (NULL first), as Spark computes them."""
    name = "__pivot"
    rows = (df.select(pivot.alias(name)).distinct().orderBy(F.col(name).asc())
            .limit(MAX_PIVOT_VALUES + 1).collect())
    if len(rows) > MAX_PIVOT_VALUES:
        raise AnalysisError(
            f"the pivot column has more than {MAX_PIVOT_VALUES} distinct values; pass values="
        )
    return [row[0] for row in rows]


def pivoted(pivot: Expr, values: Sequence[Any], aggregates: Sequence[Column],
            result_types: Sequence[pa.DataType]) -> list[Column]:
    """The aggregate columns of a pivot (see the module docstring); ``result_types`` are
    the aggregates' types, which decide how a missing combination shows (``_first_kind``)."""
    if not aggregates:
        raise AnalysisError("pivot needs at least one aggregate")
    missing_is_null = all(_first_kind(t) for t in result_types)
    out = []
    for value in values:
        matches = (Call(fn="is_null", args=(pivot,)) if value is None
                   else Call(fn="eq", args=(pivot, F.lit(value).expr)))
        present = Call(fn="gt", args=(
            AggCall(fn="count", arg=Case(branches=((matches, Lit(value=1)),))), Lit(value=0)))
        for agg in aggregates:
            expr = _restricted(agg.expr, matches)
            if missing_is_null:
                expr = Case(branches=((present, expr),))
            label = value_name(value)
            name = label if len(aggregates) == 1 else f"{label}_{agg.output_name}"
            out.append(Column(expr).alias(name))
    return out


def _first_kind(t: pa.DataType) -> bool:
    """Whether Spark pivots an aggregate of this type with ``PivotFirst`` (numbers and
    booleans): when every aggregate is of such a type, a missing combination is NULL, else
    Spark rewrites each call over ``if(p <=> v, x, null)`` and ``count`` gives 0."""
    return (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)
            or pa.types.is_boolean(t))


def _restricted(expr: Expr, matches: Expr) -> Expr:
    """Every aggregate call of ``expr`` over the rows where ``matches`` holds."""

    def restrict(node: Expr) -> Expr | None:
        if not isinstance(node, AggCall):
            return None
        arg = Lit(value=1) if node.arg is None else node.arg
        return node.model_copy(update={"arg": Case(branches=((matches, arg),))})

    return transform(expr, restrict)


def value_name(value: Any) -> str:
    """A pivot value as Spark names its column."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    return str(value)
