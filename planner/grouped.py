"""``df.groupBy(...)``: the grouping keys waiting for their aggregates."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from sparkwire.planner import functions as F
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.expressions import Expr
from sparkwire.planner.functions import Column
from sparkwire.planner.pyspark_names import GROUPED_DATA
from sparkwire.planner.unsupported import missing_attribute

if TYPE_CHECKING:
    from sparkwire.planner.dataframe import DataFrame


class GroupedData:
    """``df.groupBy(...)``: finish with ``agg`` or a shortcut."""

    __slots__ = ("_df", "_keys")

    def __init__(self, df: DataFrame, keys: tuple[tuple[str, Expr], ...]) -> None:
        self._df = df
        self._keys = keys

    def agg(self, *exprs: Column | Sequence[Column]) -> DataFrame:
        return self._df._aggregate(self._keys, exprs)

    def __getattr__(self, name: str) -> object:
        # Only called for missing attributes: PySpark's GroupedData methods sparkwire lacks.
        raise missing_attribute("GroupedData", name, GROUPED_DATA)

    def count(self) -> DataFrame:
        return self.agg(F.count("*").alias("count"))

    def sum(self, *cols: str) -> DataFrame:
        return self._each(F.sum, cols)

    def avg(self, *cols: str) -> DataFrame:
        return self._each(F.avg, cols)

    mean = avg

    def min(self, *cols: str) -> DataFrame:
        return self._each(F.min, cols)

    def max(self, *cols: str) -> DataFrame:
        return self._each(F.max, cols)

    def _each(self, fn: Callable[[str], Column], cols: tuple[str, ...]) -> DataFrame:
        if not cols:
            raise AnalysisError("name the columns to aggregate, e.g. .sum('price')")
        return self.agg(*(fn(c) for c in cols))
