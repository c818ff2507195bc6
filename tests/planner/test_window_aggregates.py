"""Windows over aggregates and sorts on what a query does not select, in the planner: the
plan shapes (the aggregate, then the window over its output; hidden sort columns computed
by the projection or aggregation below the sort, then dropped), the same in SQL and the
DataFrame API, and the plan models refusing an aggregate call where only per-row values
can be (the cause of TPC-DS q96's DuckDB error). Results: tests/e2e/test_sql_window_aggregates.py
(against DuckDB) and tests/spark/test_window_aggregates.py (against PySpark)."""

from __future__ import annotations

import pyarrow as pa
import pytest
from pydantic import ValidationError

from sparkwire.planner.api import functions as F
from sparkwire.planner.api.sources import create_dataframe, sql_dataframe
from sparkwire.planner.api.window import Window
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.expressions import AggCall, Column, NamedExpr, SortKey
from sparkwire.planner.logical.plan import Filter, Operator, Project, Sort, Window as WindowOp, operators
from sparkwire.planner.logical.sources import LocalSource
from sparkwire.planner.logical.staged import StagedPlan
from tests.planner.conftest import FakeExecutor

T = pa.table({"k": pa.array([1, 2], pa.int64()), "v": ["a", "b"], "x": [1.0, 2.0]})


@pytest.fixture
def t():  # type: ignore[no-untyped-def]
    return create_dataframe(FakeExecutor(workers=2, chunks=2), T)


def sql(t, text: str):  # type: ignore[no-untyped-def]
    return sql_dataframe(t._executor, text, {"t": t})


def shape(plan: StagedPlan) -> list[tuple[int, str, list[str]]]:
    """Each stage's tasks, boundary and operators, projections left out (SQL names its
    group keys by one of its own)."""
    return [(s.tasks, s.output.kind, [op.op for op in operators(s.fragment) if op.op != "project"])
            for s in plan.stages]


def test_sql_window_over_aggregate_plans_as_agg_then_a_window(t) -> None:  # type: ignore[no-untyped-def]
    text = sql(t, "select v, sum(x) as s, sum(x) / sum(sum(x)) over (partition by v) as share "
                  "from t group by v")
    frame = t.groupBy("v").agg(F.sum("x").alias("s")).withColumn(
        "share", F.col("s") / F.sum("s").over(Window.partitionBy("v")))
    assert shape(text.staged_plan()) == shape(frame.staged_plan())
    assert text.dtypes == frame.dtypes == [("v", "string"), ("s", "double"), ("share", "double")]
    (window,) = [op for op in operators(text.plan) if isinstance(op, WindowOp)]
    assert window.input.op == "aggregate"


def test_a_window_key_over_an_aggregate_is_a_column_of_a_projection_below(t) -> None:  # type: ignore[no-untyped-def]
    """``rank() OVER (ORDER BY sum(k))``: the sum's overflow check is no key DuckDB sorts a
    window by, so the key is computed first (Spark's ExtractWindowExpressions)."""
    df = sql(t, "select v, rank() over (partition by v order by sum(k) desc) as r from t group by v")
    (window,) = [op for op in operators(df.plan) if isinstance(op, WindowOp)]
    assert all(isinstance(key.expr, Column) for key in window.order_by)
    assert isinstance(window.input, Project) and window.input.input.op == "aggregate"
    assert df.dtypes == [("v", "string"), ("r", "int")]


def test_nested_aggregates_outside_a_window_are_still_refused(t) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(AnalysisError, match="aggregate calls cannot be nested"):
        sql(t, "select sum(sum(x)) from t group by v")


def hidden_sort(df) -> tuple[Sort, Operator]:  # type: ignore[no-untyped-def]
    """The sort of a frame sorted on what it does not select, and the operator below it."""
    assert isinstance(df.plan, Project)
    sort = df.plan.input
    assert isinstance(sort, Sort)
    return sort, sort.input


@pytest.mark.parametrize("build", [
    lambda t: t.groupBy("v").agg(F.count("*").alias("n")).orderBy(F.sum("x").desc()),
    lambda t: sql(t, "select v, count(*) as n from t group by v order by sum(x) desc"),
])
def test_sort_on_an_aggregate_not_selected_is_computed_by_the_aggregate(t, build) -> None:  # type: ignore[no-untyped-def]
    df = build(t)
    sort, below = hidden_sort(df)
    aggregate = next(op for op in operators(below) if op.op == "aggregate")
    assert sorted(a.expr.fn for a in aggregate.aggregates if isinstance(a.expr, AggCall)) == ["count", "sum"]
    assert not sort.keys[0].ascending
    assert df.columns == ["v", "n"]


@pytest.mark.parametrize("build", [
    lambda t: t.select("v").orderBy(F.col("x") * 2, F.col("k").desc()),
    lambda t: sql(t, "select v from t order by x * 2, k desc"),
])
def test_sort_on_input_columns_not_selected(t, build) -> None:  # type: ignore[no-untyped-def]
    df = build(t)
    _, below = hidden_sort(df)
    assert isinstance(below, Project) and len(below.columns) == 3  # v and the two keys
    assert df.columns == ["v"] and df.dtypes == [("v", "string")]


def test_sql_count_star_ordered_by_count_star_sorts_a_column(t) -> None:  # type: ignore[no-untyped-def]
    """TPC-DS q96: the Sort named ``count(*)`` over the aggregate's output, which DuckDB
    rejected; it now sorts on the column holding the count."""
    df = sql(t, "select count(*) from t where x > 1 order by count(*) limit 100")
    sort = next(op for op in operators(df.plan) if isinstance(op, Sort))
    assert all(isinstance(key.expr, Column) for key in sort.keys)
    assert df.columns == ["count(1)"]


@pytest.mark.parametrize(("build", "message"), [
    (lambda t: t.select("v").orderBy("nope"), "cannot resolve column 'nope'"),
    (lambda t: t.groupBy("v").agg(F.sum("x").alias("s")).orderBy("k"), "cannot resolve column 'k'"),
    (lambda t: t.filter(F.col("x") > 0).orderBy(F.sum("x")), "aggregate sum\\(x\\) is not allowed in orderBy"),
    (lambda t: sql(t, "select v from t group by v order by x"), "neither grouped nor aggregated"),
    (lambda t: sql(t, "select distinct v from t order by x"), "SELECT DISTINCT"),
    (lambda t: sql(t, "select v from t union all select v from t order by count(*)"),
     "ORDER BY an aggregate of a set operation"),
    (lambda t: sql(t, "select v from t where x > (select sum(sum(x)) over () from t t2 where t2.v = t.v)"),
     "a window function in a scalar subquery"),
])
def test_sorts_refused_as_spark_refuses_them(t, build, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(AnalysisError, match=message):
        build(t)


def test_plan_models_refuse_an_aggregate_call_outside_an_aggregate() -> None:
    source = LocalSource(source_id="local_x", columns=("x",), chunks=1)
    count = AggCall(fn="count", arg=None)
    with pytest.raises(ValidationError, match="aggregate call in a sort key"):
        Sort(input=source, keys=(SortKey(expr=count),))
    with pytest.raises(ValidationError, match="aggregate call in a projection"):
        Project(input=source, columns=(NamedExpr(name="n", expr=count),))
    with pytest.raises(ValidationError, match="aggregate call in a filter"):
        Filter(input=source, predicate=count)
