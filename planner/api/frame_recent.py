"""Spark 4's DataFrame methods over rows and partitions, a layer of their own
(``planner.api.frame``): ``zipWithIndex``, ``zip``, ``nearestByJoin``, ``transpose`` and
``repartitionById``.

- ``zipWithIndex`` numbers the rows 0, 1, ... in the frame's order, which is the order of
  its tasks and of the rows in each (``monotonically_increasing_id`` encodes both): the
  ``row_number`` over that id, so every row gathers into one task, as Spark's
  ``zipWithIndex`` also counts each partition's rows before numbering them.
- ``zip`` puts two frames' columns side by side where Spark can: both computed by
  projections alone from one plan (the same plan once each side's chain of projections
  is stripped), so they are one projection of that plan, each side's expressions written
  over its input (Spark's ``ZIP_PLANS_NOT_MERGEABLE`` otherwise).
- ``nearestByJoin`` is the cross product Spark evaluates too: each left row (numbered by
  ``monotonically_increasing_id``) joined to the right rows whose ranking is not NULL (a
  left outer join keeps a row that has none, with NULLs), ranked per left row by
  ``row_number`` (smallest first for ``distance``, largest for ``similarity``), the first
  ``numResults`` kept. Ties are broken as the window sorts them; Spark leaves them
  unspecified too.
- ``transpose`` is computed on the driver, as Spark computes it: the index column's
  values become the column names, so they are known only once the rows are read. The
  rows (at most ``TRANSPOSE_MAX_VALUES``, Spark's ``spark.sql.transposeMaxValues``
  default) are read sorted by the index, NULL indexes left out, the other columns cast to
  their least common type (Spark's ``TRANSPOSE_NO_LEAST_COMMON_TYPE`` where there is
  none, ``planner.logical.types.common``), and the index's values cast to strings by
  the workers, so a column is named as Spark's cast spells the value.
- ``repartitionById`` sends rows of one partition id (taken modulo the partitions, NULL as
  0) to one task: a shuffle on that id. The task an id lands in is the hash's, not the id
  itself as in Spark, so ``spark_partition_id()`` differs, as it does after any
  ``repartition`` (Spark's Murmur3 is not reproduced, ``planner.api.refused``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Self

import pyarrow as pa

from sparkwire.planner.api import functions as F
from sparkwire.planner.api import partitioning
from sparkwire.planner.api.actions import FrameActions
from sparkwire.planner.api.combining import FrameCombining
from sparkwire.planner.api.functions import Column, ColumnOrName
from sparkwire.planner.api.relations import local_relation
from sparkwire.planner.api.window import Window
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import types
from sparkwire.planner.logical.analyzer import Attribute, fresh
from sparkwire.planner.logical.expressions import Column as ColumnRef
from sparkwire.planner.logical.expressions import Expr, NamedExpr
from sparkwire.planner.logical.plan import Operator, Project
from sparkwire.planner.logical.tree import transform
from sparkwire.planner.logical.types import spark_type_name

#: Spark's ``spark.sql.transposeMaxValues`` default: the most index values ``transpose`` takes.
TRANSPOSE_MAX_VALUES = 500

#: The most rows ``nearestByJoin`` keeps per left row, as Spark bounds ``numResults``.
NEAREST_MAX_RESULTS = 100_000

#: The name Spark gives the column of the transposed frame that holds the old column names.
TRANSPOSE_KEY = "key"


class FrameRecent(FrameCombining, FrameActions):
    """A layer of ``DataFrame`` (``planner.api.frame``)."""

    __slots__ = ()

    def zipWithIndex(self, indexColName: str = "index") -> Self:  # noqa: N802, N803 - PySpark's names
        """The rows with a ``bigint`` column ``indexColName`` appended: 0, 1, ... in the
        frame's order."""
        order = Window.orderBy(F.monotonically_increasing_id())
        index = (F.row_number().over(order) - 1).cast("bigint")
        return self.select("*", index.alias(indexColName))

    def zip(self, other: Self) -> Self:
        """This frame's columns, then ``other``'s, row by row: both must be projections of
        one plan."""
        base, left = _over_input(self._plan, self._attrs)
        other_base, right = _over_input(other._plan, other._attrs)
        if base != other_base:
            raise AnalysisError(
                "the two DataFrames of zip() cannot be merged: they must be projections of "
                "the same plan", condition="ZIP_PLANS_NOT_MERGEABLE")
        taken: set[str] = set()
        items, attrs = [], []
        for attr, expr in [*zip(self._attrs, left, strict=True), *zip(other._attrs, right, strict=True)]:
            internal = fresh(attr.internal, taken) if attr.internal.casefold() in taken else attr.internal
            taken.add(internal.casefold())
            items.append(NamedExpr(name=internal, expr=expr))
            attrs.append(replace(attr, internal=internal))
        return self._derive(Project(input=base, columns=tuple(items)), attrs)

    def nearestByJoin(self, other: Self, rankingExpression: Column, numResults: int,  # noqa: N802, N803
                      mode: str, direction: str, *, joinType: str = "inner") -> Self:  # noqa: N803
        """For each row, up to ``numResults`` rows of ``other`` ranked by
        ``rankingExpression``: ``direction`` ``distance`` keeps the smallest, ``similarity``
        the largest; ``joinType`` ``inner`` or ``leftouter``; ``mode`` ``exact`` or
        ``approx`` (both exact here)."""
        how = joinType.replace("_", "").casefold()
        for ok, kind, value, known in (
            (isinstance(numResults, int) and 1 <= numResults <= NEAREST_MAX_RESULTS,
             "NUM_RESULTS_OUT_OF_RANGE", numResults, f"1 to {NEAREST_MAX_RESULTS}"),
            (mode.casefold() in ("approx", "exact"), "UNSUPPORTED_MODE", mode, "'approx', 'exact'"),
            (direction.casefold() in ("distance", "similarity"), "UNSUPPORTED_DIRECTION", direction,
             "'distance', 'similarity'"),
            (how in ("inner", "leftouter", "left"), "UNSUPPORTED_JOIN_TYPE", joinType, "'INNER', 'LEFT OUTER'"),
        ):
            if not ok:
                raise AnalysisError(f"invalid nearest-by join: {value!r}; expected {known}",
                                    condition=f"NEAREST_BY_JOIN.{kind}")
        row, rank = "__nearest_row", "__nearest_rank"
        left = self.select("*", F.monotonically_increasing_id().alias(row))
        pairs = left.join(other, rankingExpression.isNotNull(), "inner" if how == "inner" else "left")
        order = rankingExpression.asc() if direction.casefold() == "distance" else rankingExpression.desc()
        ranked = pairs.withColumn(rank, F.row_number().over(Window.partitionBy(row).orderBy(order)))
        return ranked.filter(F.col(rank) <= numResults).drop(row, rank)

    def transpose(self, indexColumn: ColumnOrName | None = None) -> Self:  # noqa: N803 - PySpark's name
        """The index column's values (the first column by default) as the columns, in
        ascending order, and the other columns as the rows, named in a first column
        ``key``."""
        index_name, index = self._named(F.to_column(indexColumn if indexColumn is not None
                                                    else self.columns[0]), "transpose")
        rest = [a for a in self._attrs if a.column != index]
        try:
            common = types.common_all([a.type for a in rest])
        except AnalysisError:
            shown = [spark_type_name(a.type).upper() for a in rest]
            raise AnalysisError(
                f"transpose needs the columns but {index_name!r} to share a least common type; "
                f"they are {', '.join(shown)}", condition="TRANSPOSE_NO_LEAST_COMMON_TYPE",
                parameters={"dt1": f'"{shown[0]}"', "dt2": f'"{shown[-1]}"'}) from None
        key = F.col(index_name)
        rows = (self.filter(key.isNotNull()).orderBy(key)
                .select(key.cast("string").alias(TRANSPOSE_KEY),
                        *(self[a.name].cast(spark_type_name(common)).alias(a.name) for a in rest))
                .limit(TRANSPOSE_MAX_VALUES + 1).toArrow())
        if rows.num_rows > TRANSPOSE_MAX_VALUES:
            raise AnalysisError(
                f"transpose takes at most {TRANSPOSE_MAX_VALUES} index values",
                condition="TRANSPOSE_EXCEED_ROW_LIMIT",
                parameters={"maxValues": str(TRANSPOSE_MAX_VALUES), "config": "spark.sql.transposeMaxValues"})
        values = [rows.column(i + 1).to_pylist() for i in range(len(rest))]
        fields = [pa.field(TRANSPOSE_KEY, pa.string(), nullable=False)]
        columns = [pa.array([a.name for a in rest], pa.string())]
        for i, name in enumerate(rows.column(0).to_pylist()):
            fields.append(pa.field(name, common))
            columns.append(pa.array([v[i] for v in values], common))
        relation = local_relation(self._executor, pa.Table.from_arrays(columns, schema=pa.schema(fields)))
        return self._derive(relation.plan, relation.attrs)

    def repartitionById(self, numPartitions: int, partitionIdCol: ColumnOrName) -> Self:  # noqa: N802, N803
        """``numPartitions`` tasks, the rows of one partition id (an integer column, taken
        modulo ``numPartitions``, NULL as 0) in one of them."""
        given: Column = F.to_column(partitionIdCol)
        _, expr = self._named(given, "repartitionById")
        kind = self._scope.type_of(expr)
        if not pa.types.is_integer(kind):
            raise AnalysisError(
                f"repartitionById needs an integer partition id, got {spark_type_name(kind)}",
                condition="DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                parameters={"requiredType": '"INT"', "inputType": f'"{spark_type_name(kind).upper()}"'})
        target = F.coalesce(F.pmod(given, F.lit(numPartitions)), F.lit(0))
        return partitioning.repartition(self, numPartitions, [target])


def _over_input(plan: Operator, attrs: Sequence[Attribute]) -> tuple[Operator, list[Expr]]:
    """The plan under ``plan``'s chain of projections, and each of ``attrs`` as an
    expression over it."""
    exprs: list[Expr] = [a.column for a in attrs]
    while isinstance(plan, Project):
        inner = {c.name: c.expr for c in plan.columns}

        def substitute(node: Expr, inner: dict[str, Expr] = inner) -> Expr | None:
            return inner.get(node.name) if isinstance(node, ColumnRef) else None

        exprs = [transform(e, substitute) for e in exprs]
        plan = plan.input
    return plan, exprs
