"""The core every layer of ``DataFrame`` builds on: an immutable logical plan, its typed
output attributes (``planner.logical.analyzer``) and the executor that will run it.

``DataFrame`` is composed of layers, each a class in its own module that subclasses the
layers it uses, so imports run one way (down this list) and every method is checked
against a real class rather than a ``self: DataFrame`` annotation the class cannot see::

    Frame                 here: state, schema, resolving the user's expressions, new frames
    FrameTransformations  select, filter, withColumn, orderBy, limit  (api.transformations)
    FrameActions          toArrow, collect, count, show                (api.actions)
    FrameCombining        joins, set operations, distinct              (api.combining)
    FrameMethods          na, describe, sample, repartition, cache, write  (api.frame_methods)
    FrameExtras           toDF, withColumns(Renamed), checkpoint, hint     (api.frame_extras)
    FrameSurface          temp views, isEmpty, tail, unpivot, randomSplit ... (api.frame_surface)
    FrameRecent           zipWithIndex, zip, nearestByJoin, transpose ...   (api.frame_recent)
    DataFrame             groupBy and agg, explain, temporary views    (api.dataframe)

A layer makes a new frame through the instance, ``self._derive(plan, attributes)`` (the same
class on the same executor), never by naming ``DataFrame``, and says it returns ``Self``: to a
type checker ``df.filter(...)`` is a ``DataFrame`` although no layer imports the class
above it. Helpers that need only a few methods of a frame (``GroupedData``, pivoting) state
them as a ``Protocol`` instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Self

import pyarrow as pa

from sparkwire.planner.api.caching import with_caches
from sparkwire.planner.api.executor import Executor
from sparkwire.planner.api.functions import Column
from sparkwire.planner.api.quoting import name_parts
from sparkwire.planner.api.spark_schema import spark_schema
from sparkwire.planner.api.types import StructType
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical import types
from sparkwire.planner.logical.analyzer import (
    Attribute,
    Relation,
    Scope,
    check_unique,
    fresh,
    new_plan_id,
    passed_through,
    projected,
    with_result_types,
)
from sparkwire.planner.logical.expressions import Column as ColumnRef
from sparkwire.planner.logical.expressions import Expr, Lit, NamedExpr, Ref
from sparkwire.planner.logical.grouping_sets import refuse_grouping
from sparkwire.planner.logical.identifiers import check_identifier
from sparkwire.planner.logical.plan import Operator, Project
from sparkwire.planner.logical.nullability import column_nulls
from sparkwire.planner.logical.render import sql
from sparkwire.planner.logical.staged import StagedPlan
from sparkwire.planner.logical.tree import has_aggregate, has_window
from sparkwire.planner.logical.types import spark_type_name
from sparkwire.planner.logical.windowing import pull_windows
from sparkwire.planner.pipeline import plan_on


#: The one column the plan of a frame of no columns (``df.drop`` of every column) carries:
#: DuckDB has no relation of no columns, and the rows must still be there to count. The
#: frame's attributes leave it out, so no name reaches it, and results drop it.
ROWS_ONLY = NamedExpr(name="_rows", expr=Lit(value=True))

#: A frame made by a projection or an aggregation computed again with more columns after
#: its own, given as named Columns over what it was computed from: how ``orderBy`` sorts
#: on what the frame does not select (``planner.api.ordering``).
Widen = Callable[[Sequence[Column]], "Frame"]


class Frame:
    """A logical plan with its attributes and executor; immutable, as every layer relies on."""

    __slots__ = ("_plan", "_attrs", "_executor", "_id", "_widen", "_broadcast")
    _plan: Operator
    _attrs: tuple[Attribute, ...]
    _executor: Executor
    _id: int
    _widen: Widen | None
    _broadcast: bool  # hinted to be broadcast in its next join (``planner.api.frame_extras``)

    def __init__(
        self, plan: Operator, attributes: Sequence[Attribute], executor: Executor,
        plan_id: int | None = None, widen: Widen | None = None,
    ) -> None:
        plan_id = new_plan_id() if plan_id is None else plan_id
        object.__setattr__(self, "_plan", plan)
        object.__setattr__(self, "_attrs", passed_through(attributes, plan_id))
        object.__setattr__(self, "_executor", executor)
        object.__setattr__(self, "_id", plan_id)
        object.__setattr__(self, "_widen", widen)
        object.__setattr__(self, "_broadcast", False)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("DataFrame is immutable; its methods return new DataFrames")

    @property
    def plan(self) -> Operator:
        """The logical plan, as built (before optimization and stage cutting)."""
        return self._plan

    @property
    def columns(self) -> list[str]:
        return [a.name for a in self._attrs]

    @property
    def schema(self) -> StructType:
        """PySpark's ``StructType``: names, Spark types and the nullability Spark reports,
        known before anything runs (``planner.api.spark_schema``)."""
        return spark_schema(self._attrs, column_nulls(self._plan))

    @property
    def arrow_schema(self) -> pa.Schema:
        """Names and Arrow types, as ``toArrow()`` and ``toBatches()`` give them
        (``planner.logical.types``); named as ``schemas.arrow_schema`` names the Arrow
        schema of a ``StructType``, and a property of the frame rather than of its
        ``StructType`` because the frame knows the exact Arrow types (an instant's zone,
        an array's element name) that a ``StructType`` does not carry."""
        return pa.schema([pa.field(a.name, a.type) for a in self._attrs])

    @property
    def dtypes(self) -> list[tuple[str, str]]:
        """``(name, Spark SQL type name)`` pairs, as PySpark gives them."""
        return [(a.name, spark_type_name(a.type)) for a in self._attrs]

    def printSchema(self, level: int | None = None) -> None:  # noqa: N802 - PySpark's name
        """The schema as a tree, ``level`` levels deep (all by default), as PySpark prints it."""
        print(self.schema.treeString(level))

    @property
    def relation(self) -> Relation:
        """The logical plan with its attributes, as SQL sees a view."""
        return Relation(self._plan, self._attrs)

    def __getitem__(self, name: str) -> Column:
        """This frame's column ``name``, also in backticks as PySpark reads it
        (``df["`a.b`"]``, ``planner.api.quoting``)."""
        if "`" in name:
            name = ".".join(name_parts(name))
        self._scope.lookup(name, self._id)
        return Column(Ref(name=name, plan_id=self._id))

    def staged_plan(self) -> StagedPlan:
        """The plan optimized and cut into stages for this frame's executor, cached
        subtrees replaced by their caches (``planner.api.caching``)."""
        plan = with_caches(self._plan, self._executor)
        columns = [a.internal for a in self._attrs] or [ROWS_ONLY.name]
        return plan_on(self._executor, with_result_types(plan, self._attrs), columns)

    # -- for the layers above ---------------------------------------------------------------
    @property
    def _scope(self) -> Scope:
        return Scope(self._attrs)

    def _derive(self, plan: Operator, attributes: Sequence[Attribute], widen: Widen | None = None) -> Self:
        """A new frame of this class on the same executor: how every layer makes one;
        ``widen`` makes it again with more columns (``Widen``)."""
        return type(self)(plan, attributes, self._executor, widen=widen)

    def _user_schema(self, schema: pa.Schema) -> pa.Schema:
        """The result schema under the user's names: the plan's columns carry internal
        names, which differ where a join renamed a column apart. A frame of no columns has
        none, whatever its plan carries (``ROWS_ONLY``)."""
        if not self._attrs:
            return pa.schema([])
        if schema.names != [a.internal for a in self._attrs]:
            return schema
        return pa.schema([
            (f.with_type(a.type) if types.is_nested(a.type) or pa.types.is_time(a.type) else f).with_name(a.name)
            for f, a in zip(schema, self._attrs, strict=True)
        ])

    @staticmethod
    def _renamed(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
        """The batch under the user's names; arrays, maps and structs also get the field
        names the schema promises (DuckDB names a list's element ``l``, Spark ``element``)."""
        if batch.schema.names == schema.names and batch.schema.types == schema.types:
            return batch
        if not schema.names:
            return batch.select([])  # no columns, the rows kept
        if batch.schema.types == schema.types:
            return pa.RecordBatch.from_arrays(batch.columns, schema=schema)
        return batch.rename_columns(schema.names).cast(schema)

    def _project(self, outputs: Sequence[tuple[str, Expr]]) -> Self:
        """A projection of resolved expressions under user names. A column passed through
        under its own name keeps its identity (internal name, qualifier), so two columns
        that only their DataFrames tell apart (after a join) may share a user name; any
        other name must be unique."""
        given = list(outputs)
        windowed = pull_windows(self._plan, self._attrs, [expr for _, expr in outputs])
        outputs = [(name, expr) for (name, _), expr in zip(outputs, windowed.exprs, strict=True)]
        by_internal = {a.internal: a for a in windowed.attrs}
        internals = []
        for name, expr in outputs:
            kept = by_internal.get(expr.name) if isinstance(expr, ColumnRef) else None
            internals.append(kept.internal if kept is not None and kept.name == name else name)
        names = [name for name, _ in outputs]
        for (name, expr), internal in zip(outputs, internals, strict=True):
            computed = internal not in by_internal or expr != by_internal[internal].column
            if internals.count(internal) > 1 or (computed and names.count(name) > 1):
                raise AnalysisError(f"duplicate column name {name!r}; give one of them an alias")
        # names equal but for case are two columns to Spark; DuckDB ignores case, so the
        # plan's names for them are kept apart
        taken: set[str] = set()
        items = []
        for (_, expr), internal in zip(outputs, internals, strict=True):
            internal = fresh(internal, taken) if internal.casefold() in taken else internal
            taken.add(internal.casefold())
            items.append(NamedExpr(name=internal, expr=expr))
        attrs = projected(Scope(windowed.attrs), items, new_plan_id())
        attrs = tuple(replace(a, name=name) for a, (name, _) in zip(attrs, outputs, strict=True))

        def widen(more: Sequence[Column]) -> Frame:
            return self._project([*given, *(self._named(c, "orderBy") for c in more)])

        return self._derive(Project(input=windowed.plan, columns=tuple(items)), attrs, widen)

    def _named(self, col: Column, where: str = "select") -> tuple[str, Expr]:
        """A per-row expression resolved against the current columns, with the name PySpark
        gives it: the alias, a referenced column's name as the user wrote it (``"AMOUNT"``
        finds ``amount`` and is named ``AMOUNT``; ``"o.x"`` is ``x``), or the expression's
        text. Window expressions are allowed where a projection computes them (``select``,
        ``withColumn``), as in Spark; ``planner.logical.windowing`` moves them below it."""
        if has_aggregate(col.expr):
            raise AnalysisError(
                f"aggregate {sql(col.expr)} is not allowed in {where}; use agg() or groupBy().agg()"
            )
        if where not in ("select", "withColumn") and has_window(col.expr):
            raise window_not_supported(col, where)
        refuse_grouping([col.expr])
        resolved = self._scope.resolve(col.expr)
        if not col.is_aliased and (ref := self._scope.reference(col.expr)) is not None:
            written = col.expr.name if isinstance(col.expr, ColumnRef | Ref) else ref.name
            return (written if written.casefold() == ref.name.casefold() else ref.name), resolved
        return col.output_name if col.is_aliased else self._scope.output_name(col.expr), resolved


def window_not_supported(col: Column, where: str) -> AnalysisError:
    return AnalysisError(
        f"a window expression in {where} ({col.output_name}) is not supported by sparkwire; "
        "compute it with select or withColumn first"
    )


def check_names(names: Sequence[str]) -> None:
    """Valid identifiers, unique ignoring case."""
    for name in names:
        try:
            check_identifier(name)
        except ValueError as exc:
            raise AnalysisError(f"invalid column name: {exc}") from None
    check_unique(names)


def view_name(name: str) -> str:
    """A temporary view's name as given (backticks taken off): one part, as Spark's
    ``TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS`` asks (``global_temp.v`` is a name to read a
    global view by, not to create one under), and a valid identifier."""
    parts = name_parts(name)
    if len(parts) != 1:
        raise AnalysisError(f"a temporary view's name is one part, not {name!r}",
                            condition="TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS", parameters={"actualName": name})
    check_names(parts)
    return parts[0]
