"""The actions of a DataFrame: what runs its plan and hands the rows over (Arrow, pandas,
batches, Spark, ``Row`` objects, a printed table), kept apart from the layers that build
plans. Each runs the staged plan on the DataFrame's executor; results carry the user's
column names. A layer over the transformations, which ``take`` (``limit``) and ``count``
(a global aggregate) build on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, overload

import pyarrow as pa

from sparkwire.planner.api import functions as F
from sparkwire.planner.api.frame import Frame
from sparkwire.planner.api.rows import Row, python_value
from sparkwire.planner.api.show import show_string
from sparkwire.planner.api.transformations import FrameTransformations
from sparkwire.planner.logical.staged import StagedPlan
from sparkwire.planner.spark.timezones import as_wall_clocks

if TYPE_CHECKING:
    import pandas as pd


class FrameActions(FrameTransformations):
    """A layer of ``DataFrame`` (``planner.api.frame``)."""

    __slots__ = ()

    def toArrow(self) -> pa.Table:  # noqa: N802 - PySpark's name
        """The stream's schema is used, so an empty result still has its columns and types."""
        with self._executor.execute(self.staged_plan()) as stream:
            schema = self._user_schema(stream.schema)
            return pa.Table.from_batches([self._renamed(b, schema) for b in stream], schema=schema)

    def toPandas(self) -> pd.DataFrame:  # noqa: N802 - PySpark's name
        """As PySpark's: a ``timestamp`` is a naive ``datetime64[ns]`` wall clock in the
        session time zone, as is a ``timestamp_ntz``."""
        local = as_wall_clocks(self.toArrow(), self._executor.time_zone)
        return local.to_pandas(coerce_temporal_nanoseconds=True)

    def toBatches(self) -> Iterator[pa.RecordBatch]:  # noqa: N802
        """Streams; closing the iterator (or dropping it) early closes the result stream,
        which cancels the query. Planning errors are raised here, not on first ``next``."""
        return _stream(self, self.staged_plan())

    def toSpark(self, spark: Any) -> Any:  # noqa: N802 - PySpark's name
        """The result as a Spark DataFrame of ``spark`` (a ``SparkSession``).

        The result already streams to the driver, so it is handed to Spark as one Arrow
        table; Spark distributes it from there.
        """
        return spark.createDataFrame(self.toArrow())

    def collect(self) -> list[Row]:
        """Every row, as ``Row`` objects (field access by name or position); a ``timestamp``
        is a naive ``datetime`` in this Python process's zone, as PySpark gives it."""
        return rows_of(self.toArrow())

    def take(self, n: int) -> list[Row]:
        return self.limit(n).collect()

    @overload
    def head(self, n: None = None) -> Row | None: ...

    @overload
    def head(self, n: int) -> list[Row]: ...

    def head(self, n: int | None = None) -> Row | None | list[Row]:
        """``head()`` is the first row or None; ``head(n)`` a list, as in PySpark."""
        if n is None:
            rows = self.take(1)
            return rows[0] if rows else None
        return self.take(n)

    def first(self) -> Row | None:
        return self.head()

    def count(self) -> int:
        counted = self._aggregate((), [F.count("*").alias("count")]).toArrow()
        return int(counted.column(0)[0].as_py())

    def show(self, n: int = 20, truncate: bool | int = True, vertical: bool = False) -> None:
        """The first ``n`` rows as PySpark prints them (``planner.api.show``)."""
        print(self.show_string(n, truncate, vertical))

    def show_string(self, n: int = 20, truncate: bool | int = True, vertical: bool = False) -> str:
        """What ``show`` prints, as text: Spark's ``Dataset.showString``, which a Spark
        Connect client asks for (``coordinator.connect``) and prints itself."""
        local = as_wall_clocks(self.limit(n + 1).toArrow(), self._executor.time_zone)
        return show_string(local, n, truncate, vertical)


def rows_of(table: pa.Table) -> list[Row]:
    """The rows of a result table as ``Row`` objects (``collect``, ``tail``, ``toLocalIterator``)."""
    columns = [[python_value(v, c.type) for v in c.to_pylist()] for c in table.columns]
    rows = zip(*columns, strict=True) if columns else [()] * table.num_rows  # no columns
    return [Row(zip(table.column_names, values, strict=True)) for values in rows]


def _stream(df: Frame, plan: StagedPlan) -> Iterator[pa.RecordBatch]:
    # A generator starts on the first ``next``, so one that is never started runs nothing
    # and holds nothing; once started, ``close()`` or garbage collection runs the ``with``.
    with df._executor.execute(plan) as stream:
        schema = df._user_schema(stream.schema)
        for batch in stream:
            yield df._renamed(batch, schema)
