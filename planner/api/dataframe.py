"""The PySpark-style DataFrame API over logical plans.

A DataFrame is an immutable logical plan plus its typed output attributes
(``planner.logical.analyzer``) and the executor that will run it; every transformation returns a new
DataFrame and resolves the user's expressions against the current attributes at once, so
mistakes surface where they are made (``AnalysisError``), not on a worker. Actions
(``planner.api.actions``) run the planning pipeline (``planner.pipeline``: optimize, then cut
into stages for the executor's cluster) and hand the staged plan over; results carry the
user's column names.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import pyarrow as pa

from sparkwire.planner.api import functions as F
from sparkwire.planner.logical import types
from sparkwire.planner.logical.analyzer import (
    Attribute,
    Relation,
    Scope,
    check_unique,
    new_plan_id,
    passed_through,
    projected,
    with_result_types,
)
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api.executor import Executor
from sparkwire.planner.logical.explain import explain_logical, explain_staged
from sparkwire.planner.logical.expressions import AggCall, Expr, NamedExpr, Ref, SortKey
from sparkwire.planner.logical.identifiers import check_identifier
from sparkwire.planner.logical.expressions import Column as ColumnRef
from sparkwire.planner.api.functions import Column, ColumnOrName, SortOrder
from sparkwire.planner.pipeline import plan_on
from sparkwire.planner.api.pyspark_names import DATAFRAME
from sparkwire.planner.optimizer.rules import optimize
from sparkwire.planner.logical.plan import Aggregate, Filter, Limit, Operator, Project, Sort
from sparkwire.planner.logical.staged import StagedPlan
from sparkwire.planner.api.caching import with_caches
from sparkwire.planner.api.actions import FrameActions
from sparkwire.planner.api.combining import FrameCombining
from sparkwire.planner.api.frame_methods import FrameMethods
from sparkwire.planner.logical.render import sql
from sparkwire.planner.logical.generate import generate
from sparkwire.planner.api.grouped import GroupedData
from sparkwire.planner.api.functions.nested import GeneratorColumn
from sparkwire.planner.logical.tree import has_aggregate, has_window, transform, walk
from sparkwire.planner.logical.windowing import pull_windows
from sparkwire.planner.logical.typed import spark_typed
from sparkwire.planner.logical.types import spark_type_name
from sparkwire.planner.api.unsupported import missing_attribute


class DataFrame(FrameCombining, FrameMethods, FrameActions):
    __slots__ = ("_plan", "_attrs", "_executor", "_id")
    _plan: Operator
    _attrs: tuple[Attribute, ...]
    _executor: Executor
    _id: int

    def __init__(
        self, plan: Operator, attributes: Sequence[Attribute], executor: Executor,
        plan_id: int | None = None,
    ) -> None:
        plan_id = new_plan_id() if plan_id is None else plan_id
        object.__setattr__(self, "_plan", plan)
        object.__setattr__(self, "_attrs", passed_through(attributes, plan_id))
        object.__setattr__(self, "_executor", executor)
        object.__setattr__(self, "_id", plan_id)

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
    def schema(self) -> pa.Schema:
        """Names and Arrow types, known before anything runs (``planner.logical.types``)."""
        return pa.schema([pa.field(a.name, a.type) for a in self._attrs])

    @property
    def dtypes(self) -> list[tuple[str, str]]:
        """``(name, Spark SQL type name)`` pairs, as PySpark gives them."""
        return [(a.name, spark_type_name(a.type)) for a in self._attrs]

    def printSchema(self) -> None:  # noqa: N802 - PySpark's name
        print("root")
        for a in self._attrs:
            print(f" |-- {a.name}: {spark_type_name(a.type)} (nullable = true)")

    def __repr__(self) -> str:
        return f"DataFrame[{', '.join(f'{n}: {t}' for n, t in self.dtypes)}]"

    def __getitem__(self, name: str) -> Column:
        self._scope.lookup(name, self._id)
        return Column(Ref(name=name, plan_id=self._id))

    def __getattr__(self, name: str) -> Column:
        # Only called for missing attributes: ``df.price`` as in PySpark; a PySpark method
        # sparkwire lacks is "not supported", anything else neither attribute nor column.
        if name in DATAFRAME:
            raise missing_attribute("DataFrame", name, DATAFRAME)
        if name.startswith("_") or name.casefold() not in {c.casefold() for c in self.columns}:
            raise AttributeError(f"DataFrame has no attribute or column {name!r}")
        return self[name]

    def alias(self, alias: str) -> DataFrame:
        """The same rows with ``alias`` as the qualifier of every column (``F.col("a.x")``)."""
        check_names([alias])
        return self._derive(self._plan, [replace(a, qualifier=alias) for a in self._attrs])

    # -- transformations ----------------------------------------------------------------
    def filter(self, condition: Column | str) -> DataFrame:
        """A Column condition, or a Spark SQL one as text (``"x > 1 AND s LIKE 'a%'"``)."""
        if isinstance(condition, str):
            condition = F.expr(condition)
        if not isinstance(condition, Column):
            raise AnalysisError("filter takes a Column condition, e.g. F.col('x') > 1, or SQL text")
        if has_aggregate(condition.expr):
            raise AnalysisError(
                f"aggregate functions are not allowed in filter: {sql(condition.expr)}; "
                "aggregate first with groupBy().agg(), then filter its result"
            )
        if has_window(condition.expr):
            raise AnalysisError(
                f"window functions are not allowed in filter: {sql(condition.expr)}; compute "
                "them with withColumn, then filter on that column (as Spark requires)"
            )
        predicate = self._scope.resolve(condition.expr)
        return self._derive(Filter(input=self._plan, predicate=predicate), self._attrs)

    where = filter

    def select(self, *cols: ColumnOrName | Sequence[ColumnOrName]) -> DataFrame:
        """Columns, names or ``"*"``; aggregates alone make it a global aggregate, as in PySpark."""
        items = F.flatten_arguments(cols)
        if not items:
            raise AnalysisError("select needs at least one column")
        if any(isinstance(c, GeneratorColumn) for c in items):
            return self._select_generating(items)
        columns = [F.to_column(c) for c in items]
        if any(has_aggregate(c.expr) for c in columns):
            for c in columns:
                if not has_aggregate(c.expr):
                    raise AnalysisError(
                        f"select mixes aggregates with {c.output_name!r}, which is neither grouped "
                        "nor aggregated; use groupBy(...).agg(...)"
                    )
            return self.agg(*columns)
        outputs: list[tuple[str, Expr]] = []
        for item in items:
            if _is_star(item):
                outputs.extend((a.name, a.column) for a in self._attrs)
            else:
                outputs.append(self._named(F.to_column(item)))
        return self._project(outputs)

    def selectExpr(self, *expr: str | Sequence[str]) -> DataFrame:  # noqa: N802 - PySpark's name
        """``select`` of Spark SQL expressions (``"a + 1 AS b"``, ``"upper(s)"``, ``"*"``)."""
        items = F.flatten_arguments(expr)
        return self.select(*(item if _is_star(item) else F.expr(item) for item in items))

    def _select_generating(self, items: list[Any]) -> DataFrame:
        """A select with one generator (``planner.logical.generate``): the ``Generate`` operator,
        then the items, each resolved against this DataFrame's columns (which pass
        through the generator unchanged) or taken from the generated columns."""
        generators = [c for c in items if isinstance(c, GeneratorColumn)]
        if len(generators) > 1:
            raise AnalysisError(
                "only one generator (explode, posexplode ...) is allowed per select, as in Spark"
            )
        op, added, generated = generate(self._plan, self._attrs, generators[0])
        outputs: list[tuple[str, Expr]] = []
        for item in items:
            if item is generators[0]:
                outputs.extend(generated)
            elif _is_star(item):
                outputs.extend((a.name, a.column) for a in self._attrs)
            else:
                outputs.append(self._named(F.to_column(item)))
        return self._derive(op, [*self._attrs, *added])._project(outputs)

    def withColumn(self, name: str, col: Column) -> DataFrame:  # noqa: N802 - PySpark's name
        """Replaces a column of that name (in any case) in place, or appends one."""
        check_names([name])
        if not isinstance(col, Column):
            raise AnalysisError("withColumn takes a Column; use F.lit() for a constant")
        if isinstance(col, GeneratorColumn):
            generated = col.alias(name)
            replaced = [a.name.casefold() == name.casefold() for a in self._attrs]
            items: list[Any] = [generated if r else a.name for a, r in zip(self._attrs, replaced, strict=True)]
            return self._select_generating(items if any(replaced) else [*items, generated])
        _, expr = self._named(col, "withColumn")
        outputs = [
            (name, expr) if a.name.casefold() == name.casefold() else (a.name, a.column)
            for a in self._attrs
        ]
        if all(a.name.casefold() != name.casefold() for a in self._attrs):
            outputs.append((name, expr))
        return self._project(outputs)

    def withColumnRenamed(self, existing: str, new: str) -> DataFrame:  # noqa: N802
        """A no-op when ``existing`` is not a column, as in PySpark."""
        if all(a.name.casefold() != existing.casefold() for a in self._attrs):
            return self
        check_names([new])
        return self._project([
            (new if a.name.casefold() == existing.casefold() else a.name, a.column)
            for a in self._attrs
        ])

    def drop(self, *cols: ColumnOrName) -> DataFrame:
        """Names that are not columns are ignored, as in PySpark; a Column drops exactly
        that column (``joined.drop(right.id)``)."""
        gone: set[str] = set()
        for c in cols:
            if isinstance(c, str):
                gone |= {a.internal for a in self._attrs if a.name.casefold() == c.casefold()}
            else:
                ref = self._scope.reference(F.to_column(c).expr)
                if ref is None:
                    raise AnalysisError("drop takes column names or column references")
                gone.add(ref.internal)
        kept = [a for a in self._attrs if a.internal not in gone]
        if not kept:
            raise AnalysisError("drop would remove every column")
        return self._project([(a.name, a.column) for a in kept])

    def groupBy(self, *cols: ColumnOrName | Sequence[ColumnOrName]) -> GroupedData:  # noqa: N802
        keys = [self._named(F.to_column(c), "groupBy") for c in F.flatten_arguments(cols)]
        check_unique(name for name, _ in keys)
        return GroupedData(self, tuple(keys))

    groupby = groupBy

    def agg(self, *exprs: Column | Sequence[Column] | dict[str, str]) -> DataFrame:
        """A global aggregate: one row; also ``agg({"column": "function"})``."""
        return GroupedData(self, ()).agg(*exprs)

    def orderBy(  # noqa: N802 - PySpark's name
        self, *cols: ColumnOrName | SortOrder | Sequence[ColumnOrName | SortOrder],
        ascending: bool | list[bool] = True,
    ) -> DataFrame:
        """``ascending=False`` (or ``False`` in a list, per column) makes a key descending."""
        items = F.flatten_arguments(cols)
        if not items:
            raise AnalysisError("orderBy needs at least one column")
        flags = ascending if isinstance(ascending, list) else [ascending] * len(items)
        if len(flags) != len(items):
            raise AnalysisError(f"ascending has {len(flags)} flags for {len(items)} columns")
        keys = []
        for item, up in zip(items, flags, strict=True):
            order = item if isinstance(item, SortOrder) else F.to_column(item).asc()
            if not up:
                order = order.column.desc()
            _, expr = self._named(order.column, "orderBy")
            keys.append(SortKey(expr=expr, ascending=order.ascending, nulls_first=order.nulls_first))
        return self._derive(Sort(input=self._plan, keys=tuple(keys)), self._attrs)

    sort = orderBy

    def limit(self, n: int) -> DataFrame:
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise AnalysisError(f"limit takes a non-negative int, got {n!r}")
        return self._derive(Limit(input=self._plan, n=n), self._attrs)

    # -- actions ------------------------------------------------------------------------
    def staged_plan(self) -> StagedPlan:
        plan = with_caches(self._plan, self._executor)
        return plan_on(self._executor, with_result_types(plan, self._attrs),
                       [a.internal for a in self._attrs])

    def explain_string(self, extended: bool = False, analyze: bool = False) -> str:
        """The staged plan (with each join's strategy and why, and estimated rows);
        ``extended`` puts the logical plan as built and as optimized before it; ``analyze``
        runs the query first and adds the rows each stage actually produced."""
        plan = self.staged_plan()
        actual = None
        if analyze:
            with self._executor.execute(plan) as stream:
                for _ in stream:
                    pass
            metrics = getattr(stream, "metrics", None)
            actual = {s: m.rows for s, m in metrics.stages.items()} if metrics is not None else None
        staged = explain_staged(plan, actual)
        if not extended:
            return staged
        optimized = explain_logical(optimize(self._plan), "Optimized logical plan")
        return f"{explain_logical(self._plan)}\n{optimized}\n{staged}"

    def explain(self, extended: bool = False, analyze: bool = False) -> None:
        print(self.explain_string(extended, analyze))

    def createOrReplaceTempView(self, name: str) -> None:  # noqa: N802 - PySpark's name
        """Name this DataFrame for ``session.sql`` (names match ignoring case)."""
        check_names([name])
        self._executor.register_view(name, self)

    @property
    def relation(self) -> Relation:
        """The logical plan with its attributes, as SQL sees a view."""
        return Relation(self._plan, self._attrs)

    # -- helpers ------------------------------------------------------------------------
    @property
    def _scope(self) -> Scope:
        return Scope(self._attrs)

    def _user_schema(self, schema: pa.Schema) -> pa.Schema:
        """The result schema under the user's names: the plan's columns carry internal
        names, which differ where a join renamed a column apart."""
        if schema.names != [a.internal for a in self._attrs]:
            return schema
        return pa.schema([
            (f.with_type(a.type) if types.is_nested(a.type) else f).with_name(a.name)
            for f, a in zip(schema, self._attrs, strict=True)
        ])

    @staticmethod
    def _renamed(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
        """The batch under the user's names; arrays, maps and structs also get the field
        names the schema promises (DuckDB names a list's element ``l``, Spark ``element``)."""
        if batch.schema.names == schema.names and batch.schema.types == schema.types:
            return batch
        if batch.schema.types == schema.types:
            return pa.RecordBatch.from_arrays(batch.columns, schema=schema)
        return batch.rename_columns(schema.names).cast(schema)

    def _derive(self, plan: Operator, attributes: Sequence[Attribute]) -> DataFrame:
        return DataFrame(plan, attributes, self._executor)

    def _project(self, outputs: Sequence[tuple[str, Expr]]) -> DataFrame:
        """A projection of resolved expressions under user names. A column passed through
        under its own name keeps its identity (internal name, qualifier), so two columns
        that only their DataFrames tell apart (after a join) may share a user name; any
        other name must be unique."""
        windowed = pull_windows(self._plan, self._attrs, [expr for _, expr in outputs])
        outputs = [(name, expr) for (name, _), expr in zip(outputs, windowed.exprs, strict=True)]
        by_internal = {a.internal: a for a in windowed.attrs}
        items = []
        for name, expr in outputs:
            kept = by_internal.get(expr.name) if isinstance(expr, ColumnRef) else None
            internal = kept.internal if kept is not None and kept.name == name else name
            items.append(NamedExpr(name=internal, expr=expr))
        check_unique(i.name for i in items)
        folded = [name.casefold() for name, _ in outputs]
        for (name, _), item in zip(outputs, items, strict=True):
            computed = item.name not in by_internal or item.expr != by_internal[item.name].column
            if computed and folded.count(name.casefold()) > 1:
                raise AnalysisError(f"duplicate column name {name!r}; give one of them an alias")
        attrs = projected(Scope(windowed.attrs), items, new_plan_id())
        attrs = tuple(replace(a, name=name) for a, (name, _) in zip(attrs, outputs, strict=True))
        return self._derive(Project(input=windowed.plan, columns=tuple(items)), attrs)

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
            raise _window_not_supported(col, where)
        resolved = self._scope.resolve(col.expr)
        if not col.is_aliased and (ref := self._scope.reference(col.expr)) is not None:
            written = col.expr.name if isinstance(col.expr, ColumnRef | Ref) else ref.name
            return (written if written.casefold() == ref.name.casefold() else ref.name), resolved
        return col.output_name if col.is_aliased else self._scope.output_name(col.expr), resolved

    def _aggregate(self, keys: tuple[tuple[str, Expr], ...], exprs: Iterable[object]) -> DataFrame:
        """Each aggregate is an expression over aggregate calls (of input columns) and
        group keys (by name), e.g. ``F.sum("a") / F.count("*")``."""
        items = F.flatten_arguments(tuple(exprs))
        if not items:
            raise AnalysisError("agg needs at least one aggregate expression")
        scope = self._scope
        key_items = tuple(NamedExpr(name=name, expr=expr) for name, expr in keys)
        key_attrs = []
        for name, expr in keys:
            ref = scope.attribute_of(expr)
            origins = ref.origins if ref is not None and ref.name == name else frozenset()
            key_attrs.append(Attribute(name, name, scope.type_of(expr), None, origins))
        key_scope = Scope(key_attrs)
        aggregates = []
        for item in items:
            col = F.to_column(item)
            if has_window(col.expr):
                raise _window_not_supported(col, "agg")
            if not has_aggregate(col.expr):
                raise AnalysisError(
                    f"{col.output_name!r} is not an aggregate expression; use F.sum, F.count, ..."
                )
            for node in walk(col.expr):
                if isinstance(node, AggCall) and node.arg is not None and has_aggregate(node.arg):
                    raise AnalysisError(f"aggregate calls cannot be nested: {sql(node)}")

            def resolve(node: Expr) -> Expr | None:
                if isinstance(node, AggCall):
                    arg = None if node.arg is None else scope.resolve(node.arg)
                    return node.model_copy(update={"arg": arg})
                if isinstance(node, ColumnRef | Ref):
                    try:
                        return key_scope.resolve(node)
                    except AnalysisError:
                        raise AnalysisError(
                            f"column {node.name!r} in {col.output_name!r} is neither grouped nor "
                            f"aggregated; group keys: {', '.join(n for n, _ in keys) or '(none)'}"
                        ) from None
                return None

            aggregates.append(NamedExpr(name=col.output_name, expr=transform(col.expr, resolve)))
        check_unique([*(k.name for k in key_items), *(a.name for a in aggregates)])
        agg_types = {**scope.types, **key_scope.types}
        aggregates = [a.model_copy(update={"expr": spark_typed(a.expr, agg_types)}) for a in aggregates]
        attrs = [*key_attrs, *(
            Attribute(a.name, a.name, types.infer(a.expr, agg_types)) for a in aggregates
        )]
        plan = Aggregate(input=self._plan, keys=key_items, aggregates=tuple(aggregates))
        return self._derive(plan, attrs)


def _window_not_supported(col: Column, where: str) -> AnalysisError:
    return AnalysisError(
        f"a window expression in {where} ({col.output_name}) is not supported by sparkwire; "
        "compute it with select or withColumn first"
    )


def _is_star(item: object) -> bool:
    """``"*"`` or an unaliased ``F.col("*")``."""
    if isinstance(item, Column):
        return item.expr == ColumnRef(name="*") and item.output_name == "*"
    return isinstance(item, str) and item == "*"


def check_names(names: Sequence[str]) -> None:
    """Valid identifiers, unique ignoring case."""
    for name in names:
        try:
            check_identifier(name)
        except ValueError as exc:
            raise AnalysisError(f"invalid column name: {exc}") from None
    check_unique(names)
