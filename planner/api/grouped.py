"""``df.groupBy(...)``: the grouping keys waiting for their aggregates.

``GroupedData`` sits below ``DataFrame``, which makes it, so it states what it asks of its
frame as a protocol (``Groupable``) and is generic in the frame's class: ``agg`` returns a
frame of the class that was grouped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Generic, Protocol, Self, TypeVar

from sparkwire.planner.api import functions as F
from sparkwire.planner.api.functions import Column, ColumnOrName
from sparkwire.planner.api.pivot import PivotSource, dict_aggregates, pivot_values, pivoted
from sparkwire.planner.api.pyspark_names import GROUPED_DATA
from sparkwire.planner.api.unsupported import missing_attribute
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.analyzer import Scope
from sparkwire.planner.logical.expressions import Expr
from sparkwire.planner.logical.grouping_sets import GroupingSet

#: A group key: its name and its expression, resolved against the frame's columns.
GroupKeys = tuple[tuple[str, Expr], ...]


class Groupable(PivotSource, Protocol):
    """What ``GroupedData`` asks of its frame: the aggregation that finishes it
    (``planner.api.transformations``), its columns to type pivoted aggregates by, and the
    query for the distinct pivot values."""

    @property
    def _scope(self) -> Scope: ...

    def _aggregate(self, keys: GroupKeys, exprs: Iterable[object],
                   sets: Sequence[GroupingSet] | None = None) -> Self: ...


FrameT = TypeVar("FrameT", bound=Groupable)


class GroupedData(Generic[FrameT]):
    """``df.groupBy(...)``: finish with ``agg`` or a shortcut; ``pivot`` first to spread
    one column's values into columns (``planner.api.pivot``). ``df.rollup(...)`` and
    ``df.cube(...)`` make one with grouping ``sets`` (``planner.logical.grouping_sets``)."""

    __slots__ = ("_df", "_keys", "_pivot", "_sets")

    def __init__(self, df: FrameT, keys: GroupKeys,
                 pivot: tuple[Expr, tuple[Any, ...]] | None = None,
                 sets: Sequence[GroupingSet] | None = None) -> None:
        self._df = df
        self._keys = keys
        self._pivot = pivot
        self._sets = sets

    def agg(self, *exprs: Column | Sequence[Column] | Mapping[str, str]) -> FrameT:
        """Aggregate columns, or one dict ``{"column": "function"}`` (Spark's names)."""
        if len(exprs) == 1 and isinstance(exprs[0], Mapping):
            exprs = tuple(dict_aggregates(exprs[0]))
        if self._pivot is not None:
            column, values = self._pivot
            columns = [F.to_column(c) for c in F.flatten_arguments(exprs)]
            scope = self._df._scope
            result_types = [scope.type_of(scope.resolve(c.expr)) for c in columns]
            exprs = tuple(pivoted(column, values, columns, result_types))
        return self._df._aggregate(self._keys, exprs, self._sets)

    def pivot(self, pivot_col: ColumnOrName, values: Sequence[Any] | None = None) -> GroupedData[FrameT]:
        """Spread ``pivot_col``'s values (``values``, or its distinct values, computed now
        and sorted) into one column each (per aggregate)."""
        if self._pivot is not None or self._sets is not None:
            raise AnalysisError("pivot can only follow groupBy, once (not rollup or cube in sparkwire)")
        column = F.to_column(pivot_col)
        found = list(values) if values is not None else pivot_values(self._df, column)
        return GroupedData(self._df, self._keys, (column.expr, tuple(found)))

    def __getattr__(self, name: str) -> object:
        # Only called for missing attributes: PySpark's GroupedData methods sparkwire lacks.
        raise missing_attribute("GroupedData", name, GROUPED_DATA)

    def count(self) -> FrameT:
        if self._pivot is not None:
            return self.agg(F.count("*"))  # named by the pivot values
        return self.agg(F.count("*").alias("count"))

    def sum(self, *cols: str) -> FrameT:
        return self._each(F.sum, cols)

    def avg(self, *cols: str) -> FrameT:
        return self._each(F.avg, cols)

    mean = avg

    def min(self, *cols: str) -> FrameT:
        return self._each(F.min, cols)

    def max(self, *cols: str) -> FrameT:
        return self._each(F.max, cols)

    def _each(self, fn: Callable[[str], Column], cols: tuple[str, ...]) -> FrameT:
        if not cols:
            raise AnalysisError("name the columns to aggregate, e.g. .sum('price')")
        return self.agg(*(fn(c) for c in cols))
