"""The transformations of a DataFrame that work on its columns and rows: ``select``,
``filter``, ``withColumn``, ``drop``, ``orderBy``, ``limit`` ... and the aggregation that
``agg``, a ``select`` of aggregates and ``count`` end in.

Each resolves the user's expressions against the current attributes at once, so mistakes
surface where they are made (``AnalysisError``), not on a worker, and returns a new frame of
the same class (``Frame._derive``). Grouping lives a layer up (``planner.api.dataframe``)
because ``GroupedData`` asks its frame for more than transformations (pivot values).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any, Self

from sparkwire.planner.api import functions as F
from sparkwire.planner.api.column_regex import ColumnRegex
from sparkwire.planner.api.frame import ROWS_ONLY, Frame, check_names, window_not_supported
from sparkwire.planner.api.functions import Column, ColumnOrName, SortOrder
from sparkwire.planner.api.functions.nested import GeneratorColumn
from sparkwire.planner.api.grouped import GroupKeys
from sparkwire.planner.api.subqueries import with_values
from sparkwire.planner.api.functions.time_windows import time_window
from sparkwire.planner.api.time_windows import with_time_window
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.aggregation import GroupKey, analyze_aggregate
from sparkwire.planner.logical.analyzer import Attribute, Scope, fresh
from sparkwire.planner.logical.expressions import Expr, NamedExpr, SortKey
from sparkwire.planner.logical.expressions import Column as ColumnRef
from sparkwire.planner.logical.generate import generate
from sparkwire.planner.logical.grouping_sets import GroupingSet, aggregate_sets, refuse_grouping
from sparkwire.planner.logical.plan import Filter, Limit, Project, Sort
from sparkwire.planner.logical.render import sql
from sparkwire.planner.logical.tree import has_aggregate, has_grouping, has_window


class FrameTransformations(Frame):
    """A layer of ``DataFrame`` (``planner.api.frame``)."""

    __slots__ = ()

    def alias(self, alias: str) -> Self:
        """The same rows with ``alias`` as the qualifier of every column (``F.col("a.x")``)."""
        check_names([alias])
        return self._derive(self._plan, [replace(a, qualifier=alias) for a in self._attrs])

    def filter(self, condition: Column | str) -> Self:
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
        if (joined := with_values(self, [condition.expr], lambda f: f.filter(condition))) is not None:
            return joined
        refuse_grouping([condition.expr])
        if has_window(condition.expr):
            raise AnalysisError(
                f"window functions are not allowed in filter: {sql(condition.expr)}; compute "
                "them with withColumn, then filter on that column (as Spark requires)"
            )
        predicate = self._scope.resolve(condition.expr)
        return self._derive(Filter(input=self._plan, predicate=predicate), self._attrs)

    where = filter

    def select(self, *cols: ColumnOrName | Sequence[ColumnOrName]) -> Self:
        """Columns, names or ``"*"``; aggregates alone make it a global aggregate, as in PySpark."""
        items = F.flatten_arguments(cols)
        if not items:
            raise AnalysisError("select needs at least one column")
        if any(time_window(c) is not None for c in items):
            widened, items = with_time_window(self, items)
            return widened.select(*items)
        if any(isinstance(c, GeneratorColumn) for c in items):
            return self._select_generating(items)
        columns = [F.to_column(c) for c in items]
        if (joined := with_values(self, [c.expr for c in columns], lambda f: f.select(*items))) is not None:
            return joined
        # a window over an aggregate is planned as agg, then withColumn over a window: a
        # select holding windows is a projection, which refuses aggregates in it
        windowed = any(has_window(c.expr) for c in columns)
        if not windowed and any(has_aggregate(c.expr) for c in columns):
            for c in columns:
                if not has_aggregate(c.expr):
                    raise AnalysisError(
                        f"select mixes aggregates with {c.output_name!r}, which is neither grouped "
                        "nor aggregated; use groupBy(...).agg(...)"
                    )
            return self._aggregate((), columns)
        outputs: list[tuple[str, Expr]] = []
        for item in items:
            if isinstance(item, ColumnRegex):
                outputs.extend((a.name, a.column) for a in self._attrs if item.matches(a.name))
            elif _is_star(item):
                outputs.extend((a.name, a.column) for a in self._attrs)
            else:
                outputs.append(self._named(F.to_column(item)))
        return self._project(outputs)

    def selectExpr(self, *expr: str | Sequence[str]) -> Self:  # noqa: N802 - PySpark's name
        """``select`` of Spark SQL expressions (``"a + 1 AS b"``, ``"upper(s)"``, ``"*"``)."""
        items = F.flatten_arguments(expr)
        return self.select(*(item if _is_star(item) else F.expr(item) for item in items))

    def _select_generating(self, items: list[Any]) -> Self:
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

    def withColumn(self, name: str, col: Column) -> Self:  # noqa: N802 - PySpark's name
        """Replaces a column of that name (in any case) in place, or appends one."""
        check_names([name])
        if not isinstance(col, Column):
            raise AnalysisError("withColumn takes a Column; use F.lit() for a constant")
        if isinstance(col, GeneratorColumn):
            generated = col.alias(name)
            replaced = [a.name.casefold() == name.casefold() for a in self._attrs]
            items: list[Any] = [generated if r else a.name for a, r in zip(self._attrs, replaced, strict=True)]
            return self._select_generating(items if any(replaced) else [*items, generated])
        if (joined := with_values(self, [col.expr], lambda f: f.withColumn(name, col))) is not None:
            return joined
        _, expr = self._named(col, "withColumn")
        outputs = [
            (name, expr) if a.name.casefold() == name.casefold() else (a.name, a.column)
            for a in self._attrs
        ]
        if all(a.name.casefold() != name.casefold() for a in self._attrs):
            outputs.append((name, expr))
        return self._project(outputs)

    def withColumnRenamed(self, existing: str, new: str) -> Self:  # noqa: N802
        """A no-op when ``existing`` is not a column, as in PySpark."""
        if all(a.name.casefold() != existing.casefold() for a in self._attrs):
            return self
        check_names([new])
        return self._project([
            (new if a.name.casefold() == existing.casefold() else a.name, a.column)
            for a in self._attrs
        ])

    def drop(self, *cols: ColumnOrName) -> Self:
        """Names that are not columns are ignored, as in PySpark; a Column drops exactly
        that column (``joined.drop(right.id)``). Dropping every column leaves the rows
        with no columns, as in Spark (``count()`` counts them)."""
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
        if not kept:  # Spark's frame of no columns, which still has its rows
            return self._derive(Project(input=self._plan, columns=(ROWS_ONLY,)), [])
        return self._project([(a.name, a.column) for a in kept])

    def orderBy(  # noqa: N802 - PySpark's name
        self, *cols: ColumnOrName | SortOrder | Sequence[ColumnOrName | SortOrder],
        ascending: bool | list[bool] = True,
    ) -> Self:
        """``ascending=False`` (or ``False`` in a list, per column) makes a key descending."""
        items = F.flatten_arguments(cols)
        if not items:
            raise AnalysisError("orderBy needs at least one column")
        flags = ascending if isinstance(ascending, list) else [ascending] * len(items)
        if len(flags) != len(items):
            raise AnalysisError(f"ascending has {len(flags)} flags for {len(items)} columns")
        keys: list[SortKey] = []
        hidden: list[Column] = []
        missing: list[AnalysisError] = []
        taken = {a.internal.casefold() for a in self._attrs}
        for item, up in zip(items, flags, strict=True):
            order = item if isinstance(item, SortOrder) else F.to_column(item).asc()
            if not up:
                order = order.column.desc()
            try:
                _, expr = self._named(order.column, "orderBy")
            except AnalysisError as exc:
                if self._widen is None:
                    raise
                missing.append(exc)
                hidden.append(order.column.alias(fresh("_sort", taken)))
                expr = ColumnRef(name=hidden[-1].output_name)
            keys.append(SortKey(expr=expr, ascending=order.ascending, nulls_first=order.nulls_first))
        if not hidden:
            return self._derive(Sort(input=self._plan, keys=tuple(keys)), self._attrs)
        try:
            return self._sorted_on_hidden(keys, hidden)
        except AnalysisError as exc:  # not computable below either: say what was missing
            raise missing[0] from exc

    def _sorted_on_hidden(self, keys: Sequence[SortKey], hidden: Sequence[Column]) -> Self:
        """Sorted on columns this frame does not have, as Spark resolves a sort's missing
        references: the projection or aggregation that made it computes them too (an input
        column, an expression over the input, an aggregate call after ``agg``), the rows are
        sorted, and a projection drops them."""
        assert self._widen is not None
        wider = self._widen(hidden)
        plan = Sort(input=wider._plan, keys=tuple(keys))
        kept = tuple(NamedExpr(name=a.internal, expr=a.column) for a in self._attrs)
        return self._derive(Project(input=plan, columns=kept), self._attrs)

    sort = orderBy

    def limit(self, n: int) -> Self:
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise AnalysisError(f"limit takes a non-negative int, got {n!r}")
        return self._derive(Limit(input=self._plan, n=n), self._attrs)

    def offset(self, num: int) -> Self:
        """Every row but the first ``num`` (which ones are first: the frame's order, so
        after ``orderBy`` the same as Spark's); gathered into one task, as Spark's is."""
        if isinstance(num, bool) or not isinstance(num, int) or num < 0:
            raise AnalysisError(f"offset takes a non-negative int, got {num!r}")
        return self._derive(Limit(input=self._plan, n=None, offset=num), self._attrs)

    def _aggregate(self, keys: GroupKeys, exprs: Iterable[object],
                   sets: Sequence[GroupingSet] | None = None) -> Self:
        """Each aggregate is an expression over aggregate calls (of input columns) and
        group keys (by name), e.g. ``F.sum("a") / F.count("*")``, computed by the
        ``Aggregate`` under its name (``planner.logical.aggregation``); with grouping
        ``sets`` (``rollup``, ``cube``) one aggregate over an ``Expand``, where
        ``F.grouping`` and ``F.grouping_id`` have answers (``planner.logical.grouping_sets``)."""
        columns = [F.to_column(item) for item in F.flatten_arguments(tuple(exprs))]
        if not columns:
            raise AnalysisError("agg needs at least one aggregate expression")
        for col in columns:
            if has_window(col.expr):
                raise window_not_supported(col, "agg")
            if not has_aggregate(col.expr) and not has_grouping(col.expr):
                raise AnalysisError(
                    f"{col.output_name!r} is not an aggregate expression; use F.sum, F.count, ..."
                )
        scope = self._scope
        if sets is not None:
            group = [_group_key(scope, name, expr) for name, expr in keys]
            relation = aggregate_sets(self.relation, group, sets,
                                      [(col.output_name, col.expr) for col in columns])
            return self._derive(relation.plan, relation.attrs)
        refuse_grouping([col.expr for col in columns])
        aggregation = analyze_aggregate(
            self.relation, [_group_key(scope, name, expr) for name, expr in keys],
            [(col.output_name, col.expr) for col in columns], keys_by="name",
        )
        return self._derive(aggregation.relation.plan, aggregation.relation.attrs,
                            lambda more: self._aggregate(keys, [*columns, *more]))


def _group_key(scope: Scope, name: str, expr: Expr) -> GroupKey:
    """A key under its ``groupBy`` name; a column passed through under its own name stays
    reachable from the DataFrames it came through (``df["k"]`` after ``agg``)."""
    ref = scope.attribute_of(expr)
    origins = ref.origins if ref is not None and ref.name == name else frozenset()
    return GroupKey(expr, Attribute(name, name, scope.type_of(expr), None, origins))


def _is_star(item: object) -> bool:
    """``"*"`` or an unaliased ``F.col("*")``."""
    if isinstance(item, Column):
        return item.expr == ColumnRef(name="*") and item.output_name == "*"
    return isinstance(item, str) and item == "*"
