"""The DataFrame methods of issue 12, kept out of ``planner.api.dataframe`` so it stays one job:
missing values (``planner.api.na``), statistics (``planner.api.describe``), sampling and
partitioning (``planner.api.partitioning``), caching (``planner.api.caching``) and writing
(``planner.api.io``). Each method is a thin PySpark-named entry point into its module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sparkwire.planner.api import partitioning
from sparkwire.planner.api.describe import describe, summary
from sparkwire.planner.api.functions import ColumnOrName
from sparkwire.planner.api.io import DataFrameWriter
from sparkwire.planner.api.na import NO_VALUE, DataFrameNaFunctions

if TYPE_CHECKING:
    from sparkwire.planner.api.dataframe import DataFrame


class FrameMethods:
    """Mixed into ``DataFrame``."""

    __slots__ = ()

    # -- missing values (``planner.api.na``) ------------------------------------------------
    @property
    def na(self: DataFrame) -> DataFrameNaFunctions:
        return DataFrameNaFunctions(self)

    def fillna(self: DataFrame, value: Any, subset: str | Sequence[str] | None = None) -> DataFrame:
        return self.na.fill(value, subset)

    def dropna(self: DataFrame, how: str = "any", thresh: int | None = None,
               subset: str | Sequence[str] | None = None) -> DataFrame:
        return self.na.drop(how, thresh, subset)

    def replace(self: DataFrame, to_replace: Any, value: Any = NO_VALUE,
                subset: str | Sequence[str] | None = None) -> DataFrame:
        return self.na.replace(to_replace, value, subset)

    # -- sampling and partitioning (``planner.api.partitioning``) ---------------------------
    def sample(self: DataFrame, withReplacement: bool | float | None = None,  # noqa: N803 - PySpark's name
               fraction: float | int | None = None, seed: int | None = None) -> DataFrame:
        """Each row kept with probability ``fraction``: ``sample(0.1)``, ``sample(0.1, 7)``,
        ``sample(False, 0.1, 7)``."""
        return partitioning.sample(self, withReplacement, fraction, seed)

    def repartition(self: DataFrame, numPartitions: int | ColumnOrName,  # noqa: N803 - PySpark's name
                    *cols: ColumnOrName) -> DataFrame:
        """Rows hashed on ``cols`` (every column when none) into ``numPartitions`` tasks."""
        return partitioning.repartition(self, numPartitions, cols)

    def coalesce(self: DataFrame, numPartitions: int) -> DataFrame:  # noqa: N803 - PySpark's name
        """The input's tasks merged into at most ``numPartitions``, without a shuffle."""
        return partitioning.coalesce(self, numPartitions)

    def cache(self: DataFrame) -> DataFrame:
        """Keep this result on the workers from its first use on (``planner.api.caching``)."""
        self._executor.cache(self._plan)
        return self

    def persist(self: DataFrame, storageLevel: object = None) -> DataFrame:  # noqa: N803 - PySpark's name
        """``cache()``: the workers' stores hold it in memory and spill beyond their budget,
        whatever the storage level asked."""
        return self.cache()

    def unpersist(self: DataFrame, blocking: bool = False) -> DataFrame:
        """Release the workers' copy (at once: ``blocking`` changes nothing)."""
        self._executor.uncache(self._plan)
        return self

    @property
    def write(self: DataFrame) -> DataFrameWriter:
        """``df.write.mode(...).parquet(path)`` (``planner.api.io``)."""
        return DataFrameWriter(self)

    # -- statistics (``planner.api.describe``) -----------------------------------------------
    def describe(self: DataFrame, *cols: str | Sequence[str]) -> DataFrame:
        """count, mean, stddev, min and max of the columns (default: numeric and string
        ones) as strings, computed now."""
        return describe(self, cols)

    def summary(self: DataFrame, *statistics: str) -> DataFrame:
        """Like ``describe`` with chosen statistics (default: count, mean, stddev, min,
        25%, 50%, 75%, max)."""
        return summary(self, statistics)

