"""The DataFrame methods of issue 35 that rename, add or keep columns, or say how the frame
is to be planned, a layer of their own (``planner.api.frame``): ``toDF``, ``withColumns``,
``withColumnsRenamed``, ``checkpoint``/``localCheckpoint``, ``hint``, ``isStreaming``,
``colRegex`` (``planner.api.column_regex``), ``toJSON`` and ``to`` (``planner.api.schema_match``).

A rename changes no data, so ``toDF`` and ``withColumnsRenamed`` change only the names the
frame's attributes show (their plan columns stay): names may then repeat, as Spark lets
them (``toDF("x", "x")``), since every column keeps its own plan column. A ``broadcast``
hint is the one hint that changes a plan here: a join of this frame broadcasts it where the
join type allows (``planner.physical.join_strategy``), whatever its estimated size, as
Spark's join selection honours it. Spark's other hints (``merge``, ``shuffle_hash``,
``coalesce``, ``repartition`` ...) are accepted and change nothing, as Spark accepts a hint
it cannot apply with a warning.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Self

from sparkwire.planner.api.actions import FrameActions
from sparkwire.planner.api.column_regex import column_regex
from sparkwire.planner.api.frame import check_names
from sparkwire.planner.api.schema_match import matched_columns
from sparkwire.planner.api import functions as F
from sparkwire.planner.api.functions import Column
from sparkwire.planner.errors import AnalysisError

log = logging.getLogger(__name__)

#: Spark's names of the broadcast hint (``JoinStrategyHint``), matched ignoring case.
BROADCAST_HINTS = frozenset({"broadcast", "broadcastjoin", "mapjoin"})


class FrameExtras(FrameActions):
    """A layer of ``DataFrame`` (``planner.api.frame``)."""

    __slots__ = ()

    def toDF(self, *cols: str) -> Self:  # noqa: N802 - PySpark's name
        """The same columns under ``cols``, one name per column, by position."""
        if len(cols) != len(self._attrs):
            raise AnalysisError(
                f"[ASSIGNMENT_ARITY_MISMATCH] toDF got {len(cols)} names for "
                f"{len(self._attrs)} columns"
            )
        return self._named_as(list(cols))

    def to(self, schema: object) -> Self:
        """The columns matched to ``schema`` by name, reordered and cast
        (``planner.api.schema_match``)."""
        columns = []
        for name, to, alias in matched_columns(self.schema, schema):
            column = F.lit(None) if name is None else self[name]
            columns.append((column if to is None else column.cast(to)).alias(alias))
        return self.select(*columns)

    def withColumnsRenamed(self, colsMap: Mapping[str, str]) -> Self:  # noqa: N802, N803
        """Each column named as a key (in any case) renamed to its value, one rename after
        the other as Spark applies them (``{"a": "b", "b": "a"}`` names both ``a``); keys
        that are not columns are ignored, as in PySpark."""
        if not isinstance(colsMap, Mapping):
            raise AnalysisError(f"withColumnsRenamed takes a dict, got {type(colsMap).__name__}")
        names = [a.name for a in self._attrs]
        for old, new in colsMap.items():
            names = [new if n.casefold() == old.casefold() else n for n in names]
        return self._named_as(names)

    def withColumns(self, *colsMap: Mapping[str, Column]) -> Self:  # noqa: N802, N803
        """``withColumn`` of each item in order: a name of a column replaces it in place,
        a new one is appended."""
        if len(colsMap) != 1 or not isinstance(colsMap[0], Mapping):
            raise AnalysisError("withColumns takes one dict of names to Columns")
        out = self
        for name, col in colsMap[0].items():
            out = out.withColumn(name, col)
        return out

    def _named_as(self, names: list[str]) -> Self:
        for name in names:
            if not isinstance(name, str):
                raise AnalysisError(f"a column name must be a string, got {name!r}")
        check_names(list({n.casefold(): n for n in names}.values()))  # repeats allowed
        return self._derive(self._plan, [replace(a, name=n) for a, n in zip(self._attrs, names, strict=True)])

    def checkpoint(self, eager: bool = True) -> Self:
        """The result kept on the workers as ``cache()`` keeps it, computed now when
        ``eager``: sparkwire has no reliable storage to cut the lineage at, and a chunk lost
        with its worker is computed again from the plan (``planner.api.caching``)."""
        self._executor.cache(self._plan)
        if eager:
            self.staged_plan()  # planning a cached plan materializes it
        return self

    def localCheckpoint(self, eager: bool = True, storageLevel: object = None) -> Self:  # noqa: N802, N803
        """``checkpoint``: Spark's local checkpoint also keeps the result on the executors."""
        return self.checkpoint(eager)

    @property
    def isStreaming(self) -> bool:  # noqa: N802 - PySpark's name
        """Always False: sparkwire runs batch queries only."""
        return False

    def hint(self, name: str, *parameters: object) -> Self:
        """Spark's ``df.hint``: ``"broadcast"`` (also ``broadcastjoin``, ``mapjoin``) makes
        the next join of this frame broadcast it where the join type allows; any other hint
        is accepted and changes nothing."""
        if not isinstance(name, str):
            raise AnalysisError(f"a hint's name must be a string, got {name!r}")
        if name.casefold() not in BROADCAST_HINTS:
            log.info("hint %r is accepted and ignored by sparkwire", name)
            return self
        hinted = self._derive(self._plan, self._attrs)
        object.__setattr__(hinted, "_broadcast", True)
        return hinted

    def colRegex(self, colName: str) -> Column:  # noqa: N802, N803 - PySpark's names
        """A name in backticks is a regex selecting every column whose whole name it
        matches (in ``select``); any other name is that column."""
        regex = column_regex(colName)
        return self[colName] if regex is None else regex

    def toJSON(self, use_unicode: bool = True) -> Self:  # noqa: N802 - PySpark's name
        """Each row as a JSON object, in one string column ``value``: Spark Connect's
        answer (classic PySpark's is an RDD of those strings, and sparkwire has no RDDs);
        written by ``to_json`` of the row's struct, so its rules and limits apply."""
        return self.select(F.to_json(F.struct(*(self[a.name] for a in self._attrs))).alias("value"))
