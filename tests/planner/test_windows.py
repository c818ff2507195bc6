"""Window functions in the planner: what the analyzer refuses (as Spark does, or naming
what sparkwire does not support), how window expressions become operators, the plan
models' own checks, and the stage cutter's placement. Results: tests/spark/test_windows.py."""

from __future__ import annotations

import logging

import pyarrow as pa
import pytest
from pydantic import ValidationError

from sparkwire.planner.api.sources import create_dataframe
from sparkwire.planner.api.window import Window
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api import functions as F
from sparkwire.planner.logical.expressions import AggCall, Column, Frame, WindowCall, WindowItem
from sparkwire.planner.logical.plan import Project, Window as WindowOp, operators
from sparkwire.planner.logical.staged import StagedPlan
from sparkwire.planner.optimizer.rules import optimize
from tests.planner.conftest import FakeExecutor

T = pa.table({
    "k": pa.array([1, 2], pa.int64()), "v": ["a", "b"], "x": [1.0, 2.0],
    "day": pa.array([0, 1], pa.date32()),
})


@pytest.fixture
def t():  # type: ignore[no-untyped-def]
    return create_dataframe(FakeExecutor(workers=2, chunks=2), T)


W = Window.partitionBy("k").orderBy("x")


@pytest.mark.parametrize(("build", "message"), [
    (lambda t: t.select(F.countDistinct("x").over(Window.partitionBy("k"))),
     "Distinct window functions are not supported"),
    (lambda t: t.select(F.row_number().over(Window.partitionBy("k"))),
     "row_number requires the window to be ordered"),
    (lambda t: t.select(F.lag("x").over(Window.partitionBy("k"))), "lag requires the window"),
    (lambda t: t.select(F.rank().over(W.rowsBetween(-1, 1))),
     "frame of rank must be ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"),
    (lambda t: t.select(F.row_number()), "row_number() requires an OVER clause"),
    (lambda t: t.select(F.lag(F.rank().over(W)).over(W)), "cannot hold another window or aggregate"),
    # a window over an aggregate is agg, then a window (Spark's plan); select says so
    (lambda t: t.select(F.max("x").over(Window.partitionBy(F.sum("k")))),
     "OVER .* is not allowed in select; use agg"),
    (lambda t: t.select(F.sum("x").over(Window.orderBy("k", "x").rangeBetween(-1, 1))),
     "needs exactly one order key"),
    (lambda t: t.select(F.sum("x").over(Window.orderBy("v").rangeBetween(-1, 1))),
     "needs a numeric order key, not string"),
    (lambda t: t.select(F.sum("x").over(Window.orderBy(F.col("day").cast("timestamp")).rangeBetween(-1, 1))),
     "over a timestamp key needs INTERVAL bounds, which are not supported by sparkwire"),
    (lambda t: t.filter(F.rank().over(W) == 1), "window functions are not allowed in filter"),
    (lambda t: t.groupBy("v").agg(F.sum("x").over(W)), "is not supported by sparkwire"),
    (lambda t: t.orderBy(F.rank().over(W)), "is not supported by sparkwire"),
    (lambda t: t.select((F.sum("x") + 1).over(W)), "is not an aggregate or window function"),
    (lambda t: W.rowsBetween(2, 1), "lower bound of a window frame"),
    (lambda t: W.rowsBetween(Window.unboundedFollowing, 1), "cannot start at unboundedFollowing"),
    (lambda t: F.lag("x", 1, F.col("k")), "default must be a literal"),
    (lambda t: t.select(F.lag("x", 1, "none").over(W)), "cannot be cast to double"),
    (lambda t: F.ntile(0), "positive int"),
    (lambda t: F.rank().over(Window.orderBy(*(["x"] * 65))), "invalid window: .*at most 64"),
])
def test_refused_with_a_clear_error(t, build, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(AnalysisError, match=message.replace("()", r"\(\)")):
        build(t)


def windows(df) -> list[WindowOp]:  # type: ignore[no-untyped-def]
    return [op for op in operators(df.plan) if isinstance(op, WindowOp)]


def test_one_operator_per_window_spec_and_each_expression_once(t) -> None:  # type: ignore[no-untyped-def]
    rank = F.rank().over(W)
    df = t.select(rank.alias("a"), (rank + 1).alias("b"), F.sum("x").over(W).alias("s"),
                  F.max("x").over(Window.partitionBy("v")).alias("m"))
    ops = windows(df)
    assert [len(op.functions) for op in ops] == [1, 2]  # the top operator is the last spec
    assert ops[1].functions[1].frame == Frame(unit="range", start=None, end=0)  # Spark's default
    assert ops[0].functions[0].frame == Frame(unit="rows", start=None, end=None)
    assert ops[1].functions[0].frame is None  # rank has its own frame
    assert isinstance(df.plan, Project)
    assert [c.name for c in df.plan.columns] == ["a", "b", "s", "m"]
    assert df.dtypes == [("a", "int"), ("b", "int"), ("s", "double"), ("m", "double")]


def test_unaliased_names_are_sparks(t) -> None:  # type: ignore[no-untyped-def]
    df = t.select(F.lag("x", 2, 0.5).over(W), F.first("v", True).over(Window.orderBy(F.col("x").desc())))
    assert df.columns == [
        "lag(x, 2, 0.5) OVER (PARTITION BY k ORDER BY x ASC NULLS FIRST ROWS BETWEEN -2 FOLLOWING AND -2 FOLLOWING)",
        "first(v) OVER (ORDER BY x DESC NULLS LAST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
    ]


def test_lag_default_takes_the_value_type(t) -> None:  # type: ignore[no-untyped-def]
    df = t.select(F.lag("x", 1, 0).over(W).alias("p"))
    (item,) = windows(df)[0].functions
    assert isinstance(item.function, WindowCall) and item.function.default is not None
    assert item.function.default.kind == "cast" and df.dtypes == [("p", "double")]


def test_negative_lag_is_a_lead() -> None:
    call = F.lag("x", -2).expr
    assert isinstance(call, WindowCall) and (call.fn, call.offset) == ("lead", 2)


def test_filter_moves_below_a_window_only_on_partition_keys(t) -> None:  # type: ignore[no-untyped-def]
    df = t.withColumn("r", F.rank().over(W)).filter((F.col("k") > 1) & (F.col("x") > 0))
    window = next(op for op in operators(optimize(df.plan)) if isinstance(op, WindowOp))
    assert window.input.op == "filter" and "x" not in str(window.input.predicate)


def test_plan_models_refuse_what_the_analyzer_never_builds() -> None:
    with pytest.raises(ValidationError, match="count_distinct cannot run over a window"):
        WindowItem(name="w", function=AggCall(fn="count_distinct", arg=Column(name="x")),
                   frame=Frame(unit="rows"))
    with pytest.raises(ValidationError, match="has a frame"):
        WindowItem(name="w", function=AggCall(fn="sum", arg=Column(name="x")))
    with pytest.raises(ValidationError, match="lower bound"):
        Frame(unit="rows", start=2, end=1)
    with pytest.raises(ValidationError, match="lag, lead, nth_value and counter_diff read a column"):
        WindowCall(fn="rank", arg=Column(name="x"))
    with pytest.raises(ValidationError, match="only counter_diff takes a start time"):
        WindowCall(fn="lag", arg=Column(name="x"), start=Column(name="t"))
    with pytest.raises(ValidationError, match="counter_diff reaches a plan written out"):
        WindowItem(name="w", function=WindowCall(fn="counter_diff", arg=Column(name="x")))
    with pytest.raises(ValidationError, match="only nth_value ignores NULLs"):
        WindowCall(fn="lag", arg=Column(name="x"), ignore_nulls=True)
    with pytest.raises(ValidationError, match="nth_value reads a row from 1"):
        WindowCall(fn="nth_value", arg=Column(name="x"), offset=0)
    with pytest.raises(ValidationError, match="only first and last"):
        AggCall(fn="sum", arg=Column(name="x"), ignore_nulls=True)


def test_staged_window_round_trips_through_json(t) -> None:  # type: ignore[no-untyped-def]
    plan = t.select(F.ntile(2).over(W).alias("n"), F.last("x", True).over(W).alias("l")).staged_plan()
    assert StagedPlan.model_validate_json(plan.model_dump_json()) == plan


def test_same_keys_twice_shuffle_once_and_no_keys_gather_with_a_warning(t, caplog) -> None:  # type: ignore[no-untyped-def]
    twice = t.withColumn("a", F.rank().over(W)).withColumn("b", F.sum("x").over(Window.partitionBy("k")))
    shuffles = [s for s in twice.staged_plan().stages if s.output.kind == "shuffle"]
    assert len(shuffles) == 1 and [str(k) for k in shuffles[0].output.keys] == [str(Column(name="k"))]
    with caplog.at_level(logging.WARNING, logger="sparkwire.planner.physical.stages"):
        staged = t.withColumn("r", F.row_number().over(Window.orderBy("x"))).staged_plan()
    assert staged.final.tasks == 1 and "without partitionBy" in caplog.text


@pytest.mark.parametrize(("text", "message"), [
    ("select k from t where rank() over (order by x) = 1", "a window function in WHERE"),
    ("select k from t order by sum(x) over (partition by k)", "a window function in ORDER"),
    ("select k, count(distinct x) over (partition by k) from t", "Distinct window functions"),
    # a window in a grouped SELECT runs over the aggregate's output, where x is no column
    ("select k, sum(x) over (partition by k) from t group by k",
     "column 'x' in .* is neither grouped nor aggregated"),
    ("select k, sum(x) over w2 from t window w as (partition by k)", "unknown window 'w2'"),
    ("select k, sum(x) over (order by v rows between x preceding and current row) from t",
     "integer literal"),
])
def test_sql_windows_refused_with_a_clear_error(t, text: str, message: str) -> None:  # type: ignore[no-untyped-def]
    from sparkwire.planner.api.sources import sql_dataframe

    with pytest.raises(AnalysisError, match=message):
        sql_dataframe(t._executor, text, {"t": t})


def test_join_on_a_window_is_refused(t) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(AnalysisError, match="join condition .* is not supported by sparkwire"):
        t.join(t.alias("o"), F.rank().over(W) == F.col("o.k"))


def test_sql_first_and_last_are_aggregates_too(t) -> None:  # type: ignore[no-untyped-def]
    from sparkwire.planner.api.sources import sql_dataframe

    df = sql_dataframe(t._executor, "select v, first(x) f, last(k) l from t group by v", {"t": t})
    calls = [a.expr for op in operators(df.plan) if op.op == "aggregate" for a in op.aggregates]
    assert sorted(c.fn for c in calls) == ["first", "last"]
    assert df.dtypes == [("v", "string"), ("f", "double"), ("l", "bigint")]
    skipping = sql_dataframe(t._executor, "select v, first(x, true), last(k) ignore nulls from t group by v", {"t": t})
    calls = [a.expr for op in operators(skipping.plan) if op.op == "aggregate" for a in op.aggregates]
    assert sorted((c.fn, c.ignore_nulls) for c in calls) == [("first", True), ("last", True)]
