"""The DataFrame methods of issue 12, a layer of their own (``planner.api.frame``): missing
values (``planner.api.na``), statistics (``planner.api.describe``), sampling and partitioning
(``planner.api.partitioning``), caching (``planner.api.caching``) and writing
(``planner.api.io``). Each method is a thin PySpark-named entry point into its module; the
layer sits over the actions because ``describe`` computes its statistics at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Self

from sparkwire.planner.api import functions as F
from sparkwire.planner.api import partitioning
from sparkwire.planner.api.actions import FrameActions
from sparkwire.planner.api.describe import describe, summary
from sparkwire.planner.api.functions import ColumnOrName
from sparkwire.planner.api.io import DataFrameWriter
from sparkwire.planner.api.na import NO_VALUE, DataFrameNaFunctions
from sparkwire.planner.api.storage_level import StorageLevel


class FrameMethods(FrameActions):
    """A layer of ``DataFrame`` (``planner.api.frame``)."""

    __slots__ = ()

    # -- missing values (``planner.api.na``) ------------------------------------------------
    @property
    def na(self) -> DataFrameNaFunctions[Self]:
        return DataFrameNaFunctions(self)

    def fillna(self, value: Any, subset: str | Sequence[str] | None = None) -> Self:
        return self.na.fill(value, subset)

    def dropna(self, how: str = "any", thresh: int | None = None,
               subset: str | Sequence[str] | None = None) -> Self:
        return self.na.drop(how, thresh, subset)

    def replace(self, to_replace: Any, value: Any = NO_VALUE,
                subset: str | Sequence[str] | None = None) -> Self:
        return self.na.replace(to_replace, value, subset)

    # -- sampling and partitioning (``planner.api.partitioning``) ---------------------------
    def sample(self, withReplacement: bool | float | None = None,  # noqa: N803 - PySpark's name
               fraction: float | int | None = None, seed: int | None = None) -> Self:
        """Each row kept with probability ``fraction``: ``sample(0.1)``, ``sample(0.1, 7)``,
        ``sample(False, 0.1, 7)``."""
        return partitioning.sample(self, withReplacement, fraction, seed)

    def repartition(self, numPartitions: int | ColumnOrName,  # noqa: N803 - PySpark's name
                    *cols: ColumnOrName) -> Self:
        """Rows hashed on ``cols`` (every column when none) into ``numPartitions`` tasks."""
        return partitioning.repartition(self, numPartitions, cols)

    def coalesce(self, numPartitions: int) -> Self:  # noqa: N803 - PySpark's name
        """The input's tasks merged into at most ``numPartitions``, without a shuffle."""
        return partitioning.coalesce(self, numPartitions)

    def cache(self) -> Self:
        """Keep this result on the workers from its first use on (``planner.api.caching``)."""
        return self.persist()

    def persist(self, storageLevel: object = StorageLevel.MEMORY_AND_DISK_DESER) -> Self:  # noqa: N803
        """``cache()``: the workers' stores hold it in memory and spill beyond their budget,
        whatever the storage level asked; ``storageLevel`` reports the level asked."""
        self._executor.cache(self._plan, storageLevel)
        return self

    @property
    def storageLevel(self) -> object:  # noqa: N802 - PySpark's name
        """The level this frame's plan was persisted with, as Spark reports it
        (``StorageLevel.NONE`` when it is not cached)."""
        level = self._executor.storage_level(self._plan)
        return StorageLevel.NONE if level is None else level

    def unpersist(self, blocking: bool = False) -> Self:
        """Release the workers' copy (at once: ``blocking`` changes nothing)."""
        self._executor.uncache(self._plan)
        return self

    @property
    def write(self) -> DataFrameWriter:
        """``df.write.mode(...).parquet(path)`` (``planner.api.io``)."""
        return DataFrameWriter(self)

    # -- statistics (``planner.api.describe``) -----------------------------------------------
    def describe(self, *cols: str | Sequence[str]) -> Self:
        """count, mean, stddev, min and max of the columns (default: numeric and string
        ones) as strings, computed now."""
        return describe(self, F.flatten_arguments(cols))

    def summary(self, *statistics: str) -> Self:
        """Like ``describe`` with chosen statistics (default: count, mean, stddev, min,
        25%, 50%, 75%, max)."""
        return summary(self, statistics)

