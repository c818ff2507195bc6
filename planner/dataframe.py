"""The PySpark-style DataFrame API over logical plans.

A DataFrame is an immutable logical plan plus its output column names and the executor
that will run it; every transformation returns a new DataFrame and checks the user's
expressions against the current columns at once, so mistakes surface where they are made
(``AnalysisError``), not on a worker. Actions cut the plan into stages for the executor's
cluster and hand it over.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from sparkwire.planner import functions as F
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.executor import Executor
from sparkwire.planner.explain import explain_logical, explain_staged
from sparkwire.planner.expressions import AggCall, Expr, NamedExpr, check_identifier
from sparkwire.planner.expressions import Column as ColumnRef
from sparkwire.planner.functions import Column, ColumnOrName, SortOrder
from sparkwire.planner.parquet_meta import file_info, list_parquet_files
from sparkwire.planner.plan import (
    Aggregate,
    FileSplit,
    Filter,
    Limit,
    Operator,
    ParquetScan,
    Project,
    Sort,
    StagedPlan,
)
from sparkwire.planner.render import sql
from sparkwire.planner.stages import plan_stages
from sparkwire.planner.tree import column_names, has_aggregate, walk

if TYPE_CHECKING:
    import pandas as pd


class DataFrame:
    __slots__ = ("_plan", "_columns", "_executor")
    _plan: Operator
    _columns: tuple[str, ...]
    _executor: Executor

    def __init__(self, plan: Operator, columns: Sequence[str], executor: Executor) -> None:
        object.__setattr__(self, "_plan", plan)
        object.__setattr__(self, "_columns", tuple(columns))
        object.__setattr__(self, "_executor", executor)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("DataFrame is immutable; its methods return new DataFrames")

    @property
    def plan(self) -> Operator:
        """The logical plan, as built (before stage cutting)."""
        return self._plan

    @property
    def columns(self) -> list[str]:
        return list(self._columns)

    def __repr__(self) -> str:
        return f"DataFrame[{', '.join(self._columns)}]"

    def __getitem__(self, name: str) -> Column:
        self._resolve(ColumnRef(name=name))
        return F.col(name)

    def __getattr__(self, name: str) -> Column:
        # Only called for missing attributes: ``df.price`` as in PySpark.
        if name.startswith("_") or name not in self._columns:
            raise AttributeError(f"DataFrame has no attribute or column {name!r}")
        return F.col(name)

    # -- transformations ----------------------------------------------------------------
    def filter(self, condition: Column) -> DataFrame:
        if not isinstance(condition, Column):
            raise AnalysisError("filter takes a Column condition, e.g. F.col('x') > 1")
        if has_aggregate(condition.expr):
            raise AnalysisError(
                f"aggregate functions are not allowed in filter: {sql(condition.expr)}; "
                "aggregate first with groupBy().agg(), then filter its result"
            )
        self._resolve(condition.expr)
        return self._derive(Filter(input=self._plan, predicate=condition.expr), self._columns)

    where = filter

    def select(self, *cols: ColumnOrName | Sequence[ColumnOrName]) -> DataFrame:
        """Columns, names or ``"*"``; aggregates alone make it a global aggregate, as in PySpark."""
        items = _flatten(cols)
        if not items:
            raise AnalysisError("select needs at least one column")
        columns = [F.to_column(c) for c in items]
        if any(has_aggregate(c.expr) for c in columns):
            for c in columns:
                if not has_aggregate(c.expr):
                    raise AnalysisError(
                        f"select mixes aggregates with {c.output_name!r}, which is neither grouped "
                        "nor aggregated; use groupBy(...).agg(...)"
                    )
            return self.agg(*columns)
        named: list[NamedExpr] = []
        for item in items:
            if _is_star(item):
                named.extend(NamedExpr(name=n, expr=ColumnRef(name=n)) for n in self._columns)
            else:
                named.append(self._named(F.to_column(item)))
        return self._project(named)

    def withColumn(self, name: str, col: Column) -> DataFrame:
        """Replaces a column of that name in place, or appends one."""
        _check_names([name])
        if not isinstance(col, Column):
            raise AnalysisError("withColumn takes a Column; use F.lit() for a constant")
        expr = self._named(col).expr
        named = [
            NamedExpr(name=n, expr=expr if n == name else ColumnRef(name=n)) for n in self._columns
        ]
        if name not in self._columns:
            named.append(NamedExpr(name=name, expr=expr))
        return self._project(named)

    def withColumnRenamed(self, existing: str, new: str) -> DataFrame:
        """A no-op when ``existing`` is not a column, as in PySpark."""
        if existing not in self._columns:
            return self
        _check_names([new])
        return self._project(
            [
                NamedExpr(name=new if n == existing else n, expr=ColumnRef(name=n))
                for n in self._columns
            ]
        )

    def drop(self, *names: str) -> DataFrame:
        """Names that are not columns are ignored, as in PySpark."""
        kept = [n for n in self._columns if n not in names]
        if not kept:
            raise AnalysisError("drop would remove every column")
        return self._project([NamedExpr(name=n, expr=ColumnRef(name=n)) for n in kept])

    def groupBy(self, *cols: ColumnOrName | Sequence[ColumnOrName]) -> GroupedData:
        keys = [self._named(F.to_column(c), "groupBy") for c in _flatten(cols)]
        _check_unique([k.name for k in keys])
        return GroupedData(self, tuple(keys))

    groupby = groupBy

    def agg(self, *exprs: Column | Sequence[Column]) -> DataFrame:
        """A global aggregate: one row."""
        return self._aggregate((), exprs)

    def orderBy(
        self, *cols: ColumnOrName | SortOrder | Sequence[ColumnOrName | SortOrder],
        ascending: bool | list[bool] = True,
    ) -> DataFrame:
        """``ascending=False`` (or ``False`` in a list, per column) makes a key descending."""
        items = _flatten(cols)
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
            self._named(order.column, "orderBy")
            keys.append(order.key())
        return self._derive(Sort(input=self._plan, keys=tuple(keys)), self._columns)

    sort = orderBy

    def limit(self, n: int) -> DataFrame:
        """After a sort, the limit joins it as a top-k."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise AnalysisError(f"limit takes a non-negative int, got {n!r}")
        plan = self._plan
        limited: Operator
        if isinstance(plan, Sort):
            limit = n if plan.limit is None else min(plan.limit, n)
            limited = Sort(input=plan.input, keys=plan.keys, limit=limit)
        elif isinstance(plan, Limit):
            limited = Limit(input=plan.input, n=min(plan.n, n))
        else:
            limited = Limit(input=plan, n=n)
        return self._derive(limited, self._columns)

    # -- actions ------------------------------------------------------------------------
    def staged_plan(self) -> StagedPlan:
        return plan_stages(self._plan, self._columns, self._executor.workers)

    def explain_string(self, extended: bool = False) -> str:
        """The staged plan; ``extended`` puts the logical plan before it."""
        staged = explain_staged(self.staged_plan())
        return f"{explain_logical(self._plan)}\n{staged}" if extended else staged

    def explain(self, extended: bool = False) -> None:
        print(self.explain_string(extended))

    def toArrow(self) -> pa.Table:
        """The stream's schema is used, so an empty result still has its columns and types."""
        with self._executor.execute(self.staged_plan()) as stream:
            return pa.Table.from_batches(list(stream), schema=stream.schema)

    def toPandas(self) -> pd.DataFrame:
        return self.toArrow().to_pandas()

    def toBatches(self) -> Iterator[pa.RecordBatch]:
        """Streams; closing the iterator (or dropping it) early closes the result stream,
        which cancels the query. Planning errors are raised here, not on first ``next``."""
        return _stream(self._executor, self.staged_plan())

    def toSpark(self, spark: Any) -> Any:  # noqa: N802 - PySpark's name
        """The result as a Spark DataFrame of ``spark`` (a ``SparkSession``).

        The result already streams to the driver, so it is handed to Spark as one Arrow
        table; Spark distributes it from there.
        """
        return spark.createDataFrame(self.toArrow())

    # -- helpers ------------------------------------------------------------------------
    def _derive(self, plan: Operator, columns: Sequence[str]) -> DataFrame:
        return DataFrame(plan, columns, self._executor)

    def _project(self, named: list[NamedExpr]) -> DataFrame:
        names = [n.name for n in named]
        _check_unique(names)
        return self._derive(Project(input=self._plan, columns=tuple(named)), names)

    def _named(self, col: Column, where: str = "select") -> NamedExpr:
        """A per-row expression checked against the current columns."""
        if has_aggregate(col.expr):
            raise AnalysisError(
                f"aggregate {sql(col.expr)} is not allowed in {where}; use agg() or groupBy().agg()"
            )
        self._resolve(col.expr)
        return NamedExpr(name=col.output_name, expr=col.expr)

    def _resolve(self, expr: Expr) -> None:
        for name in column_names(expr):
            if name not in self._columns:
                raise AnalysisError(_unknown_column(name, self._columns))

    def _aggregate(self, keys: tuple[NamedExpr, ...], exprs: Iterable[object]) -> DataFrame:
        """Each aggregate is an expression over aggregate calls (of input columns) and
        group keys (by name), e.g. ``F.sum("a") / F.count("*")``."""
        items = _flatten(tuple(exprs))
        if not items:
            raise AnalysisError("agg needs at least one aggregate expression")
        key_names = [k.name for k in keys]
        aggregates = []
        for item in items:
            col = F.to_column(item)
            if not has_aggregate(col.expr):
                raise AnalysisError(
                    f"{col.output_name!r} is not an aggregate expression; use F.sum, F.count, ..."
                )
            for node in walk(col.expr):
                if isinstance(node, AggCall) and node.arg is not None:
                    if has_aggregate(node.arg):
                        raise AnalysisError(f"aggregate calls cannot be nested: {sql(node)}")
                    self._resolve(node.arg)
            for name in column_names(col.expr, into_aggregates=False):
                if name not in key_names:
                    raise AnalysisError(
                        f"column {name!r} in {col.output_name!r} is neither grouped nor "
                        "aggregated; "
                        f"group keys: {', '.join(key_names) or '(none)'}"
                    )
            aggregates.append(NamedExpr(name=col.output_name, expr=col.expr))
        names = key_names + [a.name for a in aggregates]
        _check_unique(names)
        plan = Aggregate(input=self._plan, keys=keys, aggregates=tuple(aggregates))
        return self._derive(plan, names)


class GroupedData:
    """``df.groupBy(...)``: finish with ``agg`` or a shortcut."""

    __slots__ = ("_df", "_keys")

    def __init__(self, df: DataFrame, keys: tuple[NamedExpr, ...]) -> None:
        self._df = df
        self._keys = keys

    def agg(self, *exprs: Column | Sequence[Column]) -> DataFrame:
        return self._df._aggregate(self._keys, exprs)

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
        # PySpark defaults to every numeric column; column types are not known at build time.
        if not cols:
            raise AnalysisError("name the columns to aggregate, e.g. .sum('price')")
        return self.agg(*(fn(c) for c in cols))


class DataFrameReader:
    """``session.read``."""

    def __init__(self, executor: Executor) -> None:
        self._executor = executor

    def parquet(self, *paths: str | os.PathLike[str]) -> DataFrame:
        """Files, directories (every ``*.parquet`` inside, recursively) or globs; every
        file must have the same columns. Footers are read now, for the column names and
        the row groups the stage cutter balances tasks by."""
        if not paths:
            raise AnalysisError("parquet needs at least one path")
        files = list(dict.fromkeys(f for p in paths for f in list_parquet_files(p)))
        infos = [file_info(f) for f in files]
        columns = infos[0].columns
        for info in infos[1:]:
            if info.columns != columns:
                raise AnalysisError(
                    f"{info.path} has columns [{', '.join(info.columns)}] but {infos[0].path} has "
                    f"[{', '.join(columns)}]; all files of one read need the same columns"
                )
        _check_names(columns)
        splits = tuple(
            FileSplit(path=i.path, row_groups=tuple(range(len(i.row_group_rows)))) for i in infos
        )
        return DataFrame(ParquetScan(splits=splits, columns=columns), columns, self._executor)


def create_dataframe(
    executor: Executor, data: pa.Table | pa.RecordBatch | pd.DataFrame
) -> DataFrame:
    """``session.createDataFrame``: the executor keeps the rows and chooses the chunks."""
    table = _as_table(data)
    _check_names(table.column_names)
    source = executor.register_local(table)
    return DataFrame(source, source.columns, executor)


def _stream(executor: Executor, plan: StagedPlan) -> Iterator[pa.RecordBatch]:
    # A generator starts on the first ``next``, so one that is never started runs nothing
    # and holds nothing; once started, ``close()`` or garbage collection runs the ``with``.
    with executor.execute(plan) as stream:
        yield from stream


def _as_table(data: object) -> pa.Table:
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    try:
        import pandas as pd
    except ImportError:
        pass
    else:
        if isinstance(data, pd.DataFrame):
            return pa.Table.from_pandas(data, preserve_index=False)
    raise AnalysisError(
        f"createDataFrame takes a pyarrow Table or a pandas DataFrame, got {type(data).__name__}"
    )


def _is_star(item: object) -> bool:
    """``"*"`` or an unaliased ``F.col("*")``."""
    if isinstance(item, Column):
        return item.expr == ColumnRef(name="*") and item.output_name == "*"
    return isinstance(item, str) and item == "*"


def _flatten(items: tuple[Any, ...]) -> list[Any]:
    """PySpark accepts ``f(a, b)`` and ``f([a, b])``."""
    if len(items) == 1 and isinstance(items[0], list | tuple):
        return list(items[0])
    return list(items)


def _check_names(names: Sequence[str]) -> None:
    for name in names:
        try:
            check_identifier(name)
        except ValueError as exc:
            raise AnalysisError(f"invalid column name: {exc}") from None
    _check_unique(names)


def _check_unique(names: Sequence[str]) -> None:
    """Duplicate output names are refused: a later reference could not tell them apart."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise AnalysisError(f"duplicate column name {name!r}; give one of them an alias")
        seen.add(name)


def _unknown_column(name: str, columns: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, columns, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return f"cannot resolve column {name!r}.{hint} Available columns: {', '.join(columns)}"
