"""The PySpark-style DataFrame API over logical plans.

A DataFrame is an immutable logical plan plus its typed output attributes
(``planner.logical.analyzer``) and the executor that will run it; every transformation returns a new
DataFrame and resolves the user's expressions against the current attributes at once, so
mistakes surface where they are made (``AnalysisError``), not on a worker. Actions
(``planner.api.actions``) run the planning pipeline (``planner.pipeline``: optimize, then cut
into stages for the executor's cluster) and hand the staged plan over; results carry the
user's column names.

The class is composed of layers, one module each (``planner.api.frame`` draws them). This
module adds grouping, which needs all of them (``GroupedData`` finishes with an aggregate
and queries the distinct values to pivot on), then ``explain`` and temporary views.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Self

from sparkwire.planner.api import functions as F
from sparkwire.planner.api.combining import FrameCombining
from sparkwire.planner.api.frame import view_name
from sparkwire.planner.api.frame_extras import FrameExtras
from sparkwire.planner.api.frame_methods import FrameMethods
from sparkwire.planner.api.frame_recent import FrameRecent
from sparkwire.planner.api.frame_surface import FrameSurface
from sparkwire.planner.api.functions import Column, ColumnOrName
from sparkwire.planner.api.grouped import GroupedData
from sparkwire.planner.api.pyspark_names import DATAFRAME
from sparkwire.planner.api.observation import Observation
from sparkwire.planner.api.stat import DataFrameStatFunctions
from sparkwire.planner.api.subqueries import value_column
from sparkwire.planner.api.time_windows import with_time_window
from sparkwire.planner.api.unsupported import missing_attribute
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.analyzer import check_unique
from sparkwire.planner.logical.expressions import Expr
from sparkwire.planner.logical.explain import explain_logical, explain_staged
from sparkwire.planner.logical.grouping_sets import GroupingSet, cube, rollup
from sparkwire.planner.optimizer.rules import optimize


class DataFrame(FrameRecent, FrameMethods, FrameCombining, FrameExtras, FrameSurface):
    __slots__ = ()

    def __repr__(self) -> str:
        return f"DataFrame[{', '.join(f'{n}: {t}' for n, t in self.dtypes)}]"

    def __getattr__(self, name: str) -> Column:
        # Only called for missing attributes: ``df.price`` as in PySpark; a PySpark method
        # sparkwire lacks is "not supported", anything else neither attribute nor column.
        if name in DATAFRAME:
            raise missing_attribute("DataFrame", name, DATAFRAME)
        if name.startswith("_") or name.casefold() not in {c.casefold() for c in self.columns}:
            raise AttributeError(f"DataFrame has no attribute or column {name!r}")
        return self[name]

    def groupBy(self, *cols: ColumnOrName | Sequence[ColumnOrName]) -> GroupedData[Self]:  # noqa: N802
        widened, keys = with_time_window(self, F.flatten_arguments(cols))
        return GroupedData(widened, tuple(widened._group_keys(tuple(keys), "groupBy")))

    groupby = groupBy

    def rollup(self, *cols: ColumnOrName | Sequence[ColumnOrName]) -> GroupedData[Self]:
        """Grouped by every prefix of ``cols``, down to the grand total, in one aggregate."""
        return self._grouping_sets(cols, "rollup", rollup)

    def cube(self, *cols: ColumnOrName | Sequence[ColumnOrName]) -> GroupedData[Self]:
        """Grouped by every subset of ``cols``, in one aggregate."""
        return self._grouping_sets(cols, "cube", cube)

    def groupingSets(self, groupingSets: Sequence[Sequence[ColumnOrName]],  # noqa: N802, N803
                     *cols: ColumnOrName) -> GroupedData[Self]:
        """Grouped by each of ``groupingSets`` (each a sequence of some of ``cols``, the
        keys shown in the output), in one aggregate."""
        keys = self._group_keys(cols, "groupingSets")
        exprs = [expr for _, expr in keys]
        sets = []
        for given in groupingSets:
            chosen = [self._named(F.to_column(c), "groupingSets")[1] for c in given]
            if any(c not in exprs for c in chosen):
                raise AnalysisError(f"a grouping set names a column not among the keys {list(cols)}")
            sets.append(frozenset(exprs.index(c) for c in chosen))
        return GroupedData(self, tuple(keys), sets=sets)

    def _grouping_sets(self, cols: tuple[ColumnOrName | Sequence[ColumnOrName], ...], what: str,
                       sets: Callable[[Sequence[int]], list[GroupingSet]]) -> GroupedData[Self]:
        keys = self._group_keys(cols, what)
        return GroupedData(self, tuple(keys), sets=sets(range(len(keys))))

    def _group_keys(self, cols: tuple[ColumnOrName | Sequence[ColumnOrName], ...],
                    what: str) -> list[tuple[str, Expr]]:
        keys = [self._named(F.to_column(c), what) for c in F.flatten_arguments(cols)]
        check_unique(name for name, _ in keys)
        return keys

    def agg(self, *exprs: Column | Sequence[Column] | dict[str, str]) -> Self:
        """A global aggregate: one row; also ``agg({"column": "function"})``."""
        return GroupedData(self, ()).agg(*exprs)

    # -- subqueries (``planner.api.subqueries``) -----------------------------------------------
    def scalar(self) -> Column:
        """This frame's one value (one column, at most one row) as a Column of another
        frame's ``filter``, ``select`` or ``withColumn``: no row reads NULL, more than one
        fails the query with Spark's ``SCALAR_SUBQUERY_TOO_MANY_ROWS``."""
        return value_column(self, "scalarsubquery()")

    def exists(self) -> Column:
        """Whether this frame has a row, as a boolean Column of another frame (Spark's
        ``EXISTS``): the scalar ``count(*) > 0`` of its first row, so no more is read."""
        found = self.limit(1).agg((F.count(F.lit(1)) > 0).alias("exists"))
        return value_column(found, "exists()")

    def observe(self, observation: Observation | str, *exprs: Column) -> Self:
        """This frame, its metrics (``exprs``: aggregates or literals, named) read after
        an action through ``observation.get`` (``planner.api.observation``). Observed
        under a name instead, they would reach Spark's query listeners, which sparkwire
        has not: the frame is returned as it is."""
        if not exprs:
            raise AnalysisError("observe needs at least one metric", condition="CANNOT_BE_EMPTY",
                                parameters={"item": "exprs"})
        metrics = self.agg(*exprs)
        if isinstance(observation, Observation):
            observation.attach(metrics)
        elif not isinstance(observation, str):
            raise AnalysisError(f"observe takes an Observation or a name, got {type(observation).__name__}",
                                condition="NOT_EXPECTED_TYPE",
                                parameters={"arg_name": "observation", "expected_type": "Observation or str",
                                            "arg_type": type(observation).__name__})
        return self._derive(self._plan, self._attrs)

    # -- statistics (``planner.api.stat``) --------------------------------------------------
    @property
    def stat(self) -> DataFrameStatFunctions[Self]:
        return DataFrameStatFunctions(self)

    def approxQuantile(self, col: str | Sequence[str], probabilities: Sequence[float],  # noqa: N802
                       relativeError: float) -> list[float] | list[list[float]]:  # noqa: N803
        return self.stat.approxQuantile(col, probabilities, relativeError)

    def corr(self, col1: str, col2: str, method: str | None = None) -> float | None:
        return self.stat.corr(col1, col2, method)

    def cov(self, col1: str, col2: str) -> float | None:
        return self.stat.cov(col1, col2)

    def crosstab(self, col1: str, col2: str) -> Self:
        return self.stat.crosstab(col1, col2)

    def freqItems(self, cols: Sequence[str], support: float | None = None) -> Self:  # noqa: N802
        return self.stat.freqItems(cols, support)

    def sampleBy(self, col: str | Column, fractions: Mapping[Any, float],  # noqa: N802
                 seed: int | None = None) -> Self:
        return self.stat.sampleBy(col, fractions, seed)

    def explain_string(self, extended: bool = False, analyze: bool = False) -> str:
        """The staged plan (with each join's strategy and why, and estimated rows);
        ``extended`` puts the logical plan as built and as optimized before it; ``analyze``
        runs the query first and adds the rows each stage actually produced."""
        plan = self.staged_plan()
        actual = adapted = None
        if analyze:
            with self._executor.execute(plan) as stream:
                for _ in stream:
                    pass
            metrics = getattr(stream, "metrics", None)
            if metrics is not None:
                actual = {s: m.rows for s, m in metrics.stages.items()}
                adapted = {s: (m.tasks, tuple(m.notes)) for s, m in metrics.stages.items()}
        staged = explain_staged(plan, actual, adapted)
        if not extended:
            return staged
        optimized = explain_logical(optimize(self._plan), "Optimized logical plan")
        return f"{explain_logical(self._plan)}\n{optimized}\n{staged}"

    def explain(self, extended: bool = False, analyze: bool = False) -> None:
        print(self.explain_string(extended, analyze))

    def createOrReplaceTempView(self, name: str) -> None:  # noqa: N802 - PySpark's name
        """Name this DataFrame for ``session.sql`` (names match ignoring case)."""
        self._executor.register_view(view_name(name), self)
