"""The rest of PySpark's ``DataFrame`` surface (issue 35), a layer of its own
(``planner.api.frame``): naming a frame as a view, asking what it is (``isEmpty``,
``isLocal``, ``inputFiles``, ``sameSemantics``), reading it a piece at a time (``tail``,
``toLocalIterator``), ordering it per partition, splitting it at random and reshaping it
(``unpivot``/``melt``, ``planner.api.reshaping``).

Where Spark's answer depends on its physical partitions, the rule here:

- ``sortWithinPartitions`` sorts the rows of each task, where they are, without a shuffle
  (``Sort.local``): collected, each task's rows come sorted, one task after the other, as
  Spark's partitions do;
- ``repartitionByRange`` is a full sort (``planner.physical.stages.range_sort``: rows split
  into ranges of the first key by a sample's quantiles): every task then holds one range, as
  Spark's do, and its rows also come sorted, which Spark leaves to chance; the number of
  ranges follows the data's size, as every shuffle here does, not ``numPartitions``;
- ``randomSplit`` keeps each row in exactly one split, chosen by the same hash of the
  seed and the row ``sample`` draws (``RowSample``): the splits of one seed over the same
  input and tasks are disjoint and cover it, as Spark's; Spark's own random stream cannot
  be reproduced, so which rows land where differs.
"""

from __future__ import annotations

import hashlib
import random
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, Self

import pyarrow as pa

from sparkwire.planner.api import reshaping
from sparkwire.planner.api.actions import FrameActions, rows_of
from sparkwire.planner.api.column import SortOrder
from sparkwire.planner.api.frame import view_name
from sparkwire.planner.api.functions import ColumnOrName
from sparkwire.planner.api.rows import Row
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.analyzer import quote
from sparkwire.planner.logical.expressions import Column, NamedExpr
from sparkwire.planner.logical.plan import (Operator, Project, RowSample, Sort, operators, output_columns,
                                            transform_up)
from sparkwire.planner.logical.sources import LocalSource, ParquetScan, TextScan
from sparkwire.planner.optimizer.rules import optimize

P = ParamSpec("P")


class FrameSurface(FrameActions):
    """A layer of ``DataFrame`` (``planner.api.frame``)."""

    __slots__ = ()

    # -- views ------------------------------------------------------------------------------
    def createTempView(self, name: str) -> None:  # noqa: N802 - PySpark's name
        """Name this frame for ``session.sql``; Spark's ``TEMP_TABLE_OR_VIEW_ALREADY_EXISTS``
        for a name taken (``createOrReplaceTempView`` replaces it)."""
        name = view_name(name)
        if name.casefold() in self._executor.views:
            raise AnalysisError(f"cannot create the temporary view {quote(name)} because it already exists",
                                condition="TEMP_TABLE_OR_VIEW_ALREADY_EXISTS",
                                parameters={"relationName": quote(name)})
        self._executor.register_view(name, self)

    def registerTempTable(self, name: str) -> None:  # noqa: N802 - PySpark's (deprecated) name
        """``createOrReplaceTempView``, under its name before Spark 2."""
        self._executor.register_view(view_name(name), self)

    def createGlobalTempView(self, name: str) -> None:  # noqa: N802 - PySpark's name
        """Name this frame in Spark's ``global_temp`` database, which the session shares
        with every session made from it (``newSession``): read as ``global_temp.name``;
        Spark's ``TEMP_TABLE_OR_VIEW_ALREADY_EXISTS`` for a name taken."""
        self._executor.register_global_view(view_name(name), self, replace=False)

    def createOrReplaceGlobalTempView(self, name: str) -> None:  # noqa: N802 - PySpark's name
        """``createGlobalTempView``, replacing a global view of that name."""
        self._executor.register_global_view(view_name(name), self, replace=True)

    # -- what the frame is ------------------------------------------------------------------
    def isEmpty(self) -> bool:  # noqa: N802 - PySpark's name
        """Whether it has no row; runs until the first row is found (``limit(1)``)."""
        return self.limit(1).toArrow().num_rows == 0

    def isLocal(self) -> bool:  # noqa: N802 - PySpark's name
        """True only for rows the session holds (``createDataFrame``) untransformed, as
        Spark answers for its ``LocalRelation``: anything else runs on the workers."""
        return isinstance(self._plan, LocalSource)

    def inputFiles(self) -> list[str]:  # noqa: N802 - PySpark's name
        """The files the frame reads, as ``file:`` URIs, each once (Spark's best-effort
        snapshot: a frame of rows in memory reads none)."""
        files: dict[str, None] = {}
        for op in operators(self._plan):
            if isinstance(op, ParquetScan | TextScan):
                files.update(dict.fromkeys(Path(s.path).resolve().as_uri() for s in op.splits))
        return sorted(files)

    @property
    def sparkSession(self) -> Any:  # noqa: N802 - PySpark's name
        """The session the frame runs on."""
        return self._executor

    def sameSemantics(self, other: Self) -> bool:  # noqa: N802 - PySpark's name
        """Whether both frames compute the same plan once optimized (names, expressions and
        operators; which DataFrame objects built them does not matter)."""
        if not isinstance(other, FrameSurface):
            raise AnalysisError(f"sameSemantics takes a DataFrame, got {type(other).__name__}",
                                condition="NOT_DATAFRAME",
                                parameters={"arg_name": "other", "arg_type": type(other).__name__})
        return _canonical(self._plan) == _canonical(other._plan)

    def semanticHash(self) -> int:  # noqa: N802 - PySpark's name
        """A 32-bit hash of the optimized plan: equal for frames ``sameSemantics`` holds
        for, stable across processes (never Python's ``hash``)."""
        digest = hashlib.sha256(_canonical(self._plan).encode()).digest()
        return int.from_bytes(digest[:4], "big", signed=True)

    # -- reading a piece at a time ----------------------------------------------------------
    def tail(self, num: int) -> list[Row]:
        """The last ``num`` rows, in the result's order; holds at most ``num`` rows (plus one
        batch) while the result streams past."""
        if isinstance(num, bool) or not isinstance(num, int) or num < 0:
            raise AnalysisError(f"tail takes a non-negative int, got {num!r}")
        kept: deque[pa.RecordBatch] = deque()
        held = 0
        for batch in self.toBatches():
            kept.append(batch)
            held += batch.num_rows
            while kept and held - kept[0].num_rows >= num:
                held -= kept.popleft().num_rows
        table = pa.Table.from_batches(list(kept), schema=self._user_schema(self.arrow_schema))
        return rows_of(table.slice(max(0, table.num_rows - num)))

    def toLocalIterator(self, prefetchPartitions: bool = False) -> Iterator[Row]:  # noqa: N802, N803
        """The rows one batch at a time as the result streams: never all of them at once.
        Closing the iterator early cancels the query (``toBatches``)."""
        batches = self.toBatches()
        schema = self._user_schema(self.arrow_schema)
        try:
            for batch in batches:
                yield from rows_of(pa.Table.from_batches([batch], schema=schema))
        finally:
            close = getattr(batches, "close", None)
            if close is not None:
                close()

    # -- ordering, splitting, chaining ------------------------------------------------------
    def sortWithinPartitions(self, *cols: ColumnOrName | SortOrder | Sequence[ColumnOrName | SortOrder],  # noqa: N802
                             ascending: bool | list[bool] = True) -> Self:
        """Each task's rows sorted where they are, without a shuffle (module docstring)."""
        ordered = self.orderBy(*cols, ascending=ascending)
        sort = ordered._plan
        if not isinstance(sort, Sort):  # a key not among the columns: sorted then projected
            raise AnalysisError("sortWithinPartitions sorts on the frame's own columns only")
        return self._derive(sort.model_copy(update={"local": True}), self._attrs)

    def repartitionByRange(self, numPartitions: int | ColumnOrName | SortOrder,  # noqa: N802, N803
                           *cols: ColumnOrName | SortOrder) -> Self:
        """Rows in ranges of ``cols``, one range per task: a full sort (module docstring)."""
        if isinstance(numPartitions, bool) or (isinstance(numPartitions, int) and numPartitions < 1):
            raise AnalysisError(f"repartitionByRange takes a positive number of partitions, got {numPartitions!r}")
        keys = cols if isinstance(numPartitions, int) else (numPartitions, *cols)
        if not keys:
            raise AnalysisError("repartitionByRange needs at least one column", condition="CANNOT_BE_EMPTY",
                                parameters={"item": "partition-by expression"})
        return self.orderBy(*keys)

    def randomSplit(self, weights: Sequence[float], seed: int | None = None) -> list[Self]:  # noqa: N802
        """Disjoint splits covering the frame, each about its weight's share of the rows
        (weights normalized to sum 1, as Spark's)."""
        if not weights or any(isinstance(w, bool) or not isinstance(w, int | float) or w < 0 for w in weights) \
                or sum(weights) <= 0:
            raise AnalysisError(f"randomSplit takes non-negative weights with a positive sum, got {weights!r}")
        if seed is None:
            seed = random.getrandbits(63)
        if isinstance(seed, bool) or not isinstance(seed, int) or not -(2**63) <= seed < 2**63:
            raise AnalysisError(f"randomSplit's seed must be a 64-bit int, got {seed!r}")
        total = float(sum(weights))
        bounds = [0.0]
        for w in weights:
            bounds.append(min(1.0, bounds[-1] + w / total))
        bounds[-1] = 1.0
        return [self._derive(RowSample(input=self._plan, lower=low, fraction=high, seed=seed), self._attrs)
                for low, high in zip(bounds, bounds[1:])]

    def transform(self, func: Callable[Concatenate[Self, P], Self], *args: P.args, **kwargs: P.kwargs) -> Self:
        """``func(self, *args, **kwargs)``, to chain functions of frames."""
        result = func(self, *args, **kwargs)
        if not isinstance(result, FrameSurface):
            raise AnalysisError(f"transform's function must return a DataFrame, got {type(result).__name__}",
                                condition="INVALID_RETURN_TYPE_FOR_DATAFRAME_TRANSFORM")
        return result

    # -- reshaping (``planner.api.reshaping``) -----------------------------------------------
    def unpivot(self, ids: ColumnOrName | Sequence[ColumnOrName] | None,
                values: ColumnOrName | Sequence[ColumnOrName] | None,
                variableColumnName: str, valueColumnName: str) -> Self:  # noqa: N803
        """Each row once per value column: the ids, the column's name and its value (the
        values in their common type, as Spark's)."""
        return reshaping.unpivot(self, ids, values, variableColumnName, valueColumnName)

    melt = unpivot


def _canonical(plan: Operator) -> str:
    """The optimized plan as text, without projections that pass every column through as
    it is (``df.select("*")``), as Spark's canonical plans compare."""

    def bare(op: Operator) -> Operator:
        identity = tuple(NamedExpr(name=c, expr=Column(name=c)) for c in output_columns(op.input)) \
            if isinstance(op, Project) else None
        return op.input if isinstance(op, Project) and op.columns == identity else op

    return transform_up(optimize(plan), bare).model_dump_json()
