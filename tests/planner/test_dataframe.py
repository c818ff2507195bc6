from __future__ import annotations

import gc
from typing import TYPE_CHECKING
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from sparkwire.planner.api.sources import DataFrameReader, create_dataframe
from sparkwire.planner.errors import AnalysisError, PlanError
from sparkwire.planner.api import functions as F
from sparkwire.planner.logical.expressions import Call, Column, Lit, NamedExpr
from sparkwire.planner.optimizer.rules import optimize
from sparkwire.planner.logical.plan import Aggregate, Filter, Limit, Project, Sort
from sparkwire.planner.logical.sources import LocalSource, ParquetScan

if TYPE_CHECKING:
    from tests.planner.conftest import FakeExecutor


@pytest.fixture
def df(executor: FakeExecutor, sample: pa.Table):
    return create_dataframe(executor, sample)


def test_create_dataframe_registers_table_and_accepts_pandas(executor: FakeExecutor, sample: pa.Table) -> None:
    df = create_dataframe(executor, sample)
    assert isinstance(df.plan, LocalSource)
    assert df.columns == ["k", "x", "y"]
    pdf = pd.DataFrame({"a": [1, 2]}, index=[10, 11])
    create_dataframe(executor, pdf)
    assert executor.registered[-1].column_names == ["a"]  # no index column
    with pytest.raises(AnalysisError, match="pyarrow Table, a pandas DataFrame or a list of rows"):
        create_dataframe(executor, {1, 2})  # type: ignore[arg-type]
    with pytest.raises(AnalysisError, match="cannot take a row of type int"):
        create_dataframe(executor, [1, 2])  # rows are tuples, lists, dicts or Rows


def test_unknown_column_lists_available_columns(df) -> None:
    with pytest.raises(AnalysisError) as info:
        df.filter(F.col("z") > 1)
    assert "'z'" in str(info.value) and "k, x, y" in str(info.value)
    with pytest.raises(AnalysisError, match="Did you mean 'x'"):
        df.select("xx")
    with pytest.raises(AnalysisError):
        df.groupBy("nope")
    with pytest.raises(AnalysisError):
        df.orderBy("nope")
    with pytest.raises(AnalysisError):
        df.agg(F.sum("nope"))
    with pytest.raises(AnalysisError):
        df["nope"]
    with pytest.raises(AttributeError):
        df.nope


def test_resolution_is_against_current_columns(df) -> None:
    narrowed = df.select("x")
    with pytest.raises(AnalysisError):
        narrowed.filter(F.col("y") > 0)
    renamed = df.withColumnRenamed("x", "x2")
    assert renamed.columns == ["k", "x2", "y"]
    renamed.filter(F.col("x2") > 0)
    with pytest.raises(AnalysisError):
        renamed.filter(F.col("x") > 0)


def test_aggregates_are_refused_outside_agg(df) -> None:
    with pytest.raises(AnalysisError, match="not allowed in filter"):
        df.filter(F.sum("x") > 1)
    with pytest.raises(AnalysisError, match="not allowed in groupBy"):
        df.groupBy(F.max("x"))
    with pytest.raises(AnalysisError, match="withColumn|select"):
        df.withColumn("s", F.sum("x"))
    with pytest.raises(AnalysisError, match="nested"):
        df.agg(F.sum(F.max("x")))
    with pytest.raises(AnalysisError, match="not an aggregate"):
        df.groupBy("k").agg(F.col("x"))
    with pytest.raises(AnalysisError, match="neither grouped nor aggregated"):
        df.groupBy("k").agg(F.col("x") + F.sum("y"))


def test_select_of_aggregates_is_a_global_aggregate(df) -> None:
    out = df.select(F.sum("x"), F.count("*"))
    assert isinstance(out.plan, Aggregate) and out.plan.keys == ()
    assert out.columns == ["sum(x)", "count(1)"]
    with pytest.raises(AnalysisError, match="neither grouped nor aggregated"):
        df.select("k", F.sum("x"))


def test_select_star_names_and_expressions(df) -> None:
    out = df.select("*", (F.col("x") * 2).alias("x2"), F.col("y") + 1)
    assert out.columns == ["k", "x", "y", "x2", "(y + 1)"]
    assert isinstance(out.plan, Project)
    assert df.select(["k", "x"]).columns == ["k", "x"]
    with pytest.raises(AnalysisError, match="duplicate"):
        df.select("x", F.col("y").alias("x"))


def test_with_column_replaces_in_place_or_appends(df) -> None:
    replaced = df.withColumn("x", F.col("x") + 1)
    assert replaced.columns == ["k", "x", "y"]
    # bigint arithmetic names its type, for Spark's overflow rules (planner.logical.typed)
    added = Call(fn="add", args=(Column(name="x"), Lit(value=1), Lit(value="int64")))
    assert replaced.plan.columns[1] == NamedExpr(name="x", expr=added)
    assert df.withColumn("z", F.lit(1)).columns == ["k", "x", "y", "z"]
    assert df.drop("x", "missing").columns == ["k", "y"]


def test_grouped_names_follow_pyspark(df) -> None:
    assert df.groupBy("k").agg(F.sum("x"), F.avg("y"), F.count("*"), F.countDistinct("x")).columns == [
        "k", "sum(x)", "avg(y)", "count(1)", "count(DISTINCT x)",
    ]
    assert df.groupBy("k").count().columns == ["k", "count"]
    assert df.groupBy("k").sum("x", "y").columns == ["k", "sum(x)", "sum(y)"]
    assert df.groupBy("k").max("x").columns == ["k", "max(x)"]
    assert df.groupBy(F.upper("k")).agg(F.min("x")).columns == ["upper(k)", "min(x)"]
    with pytest.raises(AnalysisError):
        df.groupBy("k").sum()


def test_order_by_ascending_forms(df) -> None:
    def keys(out):
        return [(k.expr.name, k.ascending, k.nulls_first) for k in out.plan.keys]

    assert keys(df.orderBy("x", F.col("y").desc())) == [("x", True, True), ("y", False, False)]
    assert keys(df.orderBy("x", "y", ascending=[True, False])) == [("x", True, True), ("y", False, False)]
    assert keys(df.sort(["x", "y"], ascending=False)) == [("x", False, False), ("y", False, False)]
    with pytest.raises(AnalysisError):
        df.orderBy("x", "y", ascending=[True])


def test_limit_after_sort_becomes_top_k(df) -> None:
    top = optimize(df.orderBy("x").limit(10).limit(20).limit(5).plan)
    assert isinstance(top, Sort) and top.limit == 5
    plain = optimize(df.limit(7).limit(3).plan)
    assert isinstance(plain, Limit) and plain.n == 3
    assert isinstance(plain.input, LocalSource)
    with pytest.raises(AnalysisError):
        df.limit(-1)


def test_dataframes_are_immutable(df) -> None:
    df.filter(F.col("x") > 1)
    assert isinstance(df.plan, LocalSource)
    with pytest.raises(AttributeError):
        df._plan = None  # type: ignore[misc]
    assert isinstance(df.filter(df.x > 1).plan, Filter)


def test_to_arrow_keeps_schema_of_empty_result(df, executor: FakeExecutor) -> None:
    executor.result = pa.table({"k": pa.array([], pa.string()), "n": pa.array([], pa.int64())})
    table = df.toArrow()
    assert table.num_rows == 0
    assert table.schema == executor.result.schema
    assert executor.streams[-1].closed == 1
    assert executor.executed[-1].columns == ("k", "x", "y")


def test_to_batches_streams_and_closes_early(df, executor: FakeExecutor) -> None:
    executor.result = pa.table({"x": list(range(10))})
    batches = df.toBatches()
    assert executor.executed == []  # nothing runs until the first batch is asked for
    assert next(batches).num_rows == 2
    stream = executor.streams[-1]
    assert stream.yielded == 1 and stream.closed == 0
    batches.close()
    assert stream.closed == 1

    it = df.toBatches()
    next(it)
    del it
    gc.collect()
    assert executor.streams[-1].closed == 1

    assert sum(b.num_rows for b in df.toBatches()) == 10
    assert executor.streams[-1].closed == 1


def test_to_pandas(df, executor: FakeExecutor) -> None:
    executor.result = pa.table({"x": [1, 2, 3]})
    assert df.toPandas()["x"].tolist() == [1, 2, 3]


def test_reader_builds_scan_of_whole_files(executor: FakeExecutor, write_parquet) -> None:
    a = write_parquet("d/a.parquet", row_group_size=30)
    b = write_parquet("d/sub/b.parquet", row_group_size=50)
    write_parquet("d/_tmp/skip.parquet")
    (a.parent / "_SUCCESS").write_text("")
    df = DataFrameReader(executor).parquet(a.parent)
    assert df.columns == ["k", "x", "y"]
    assert isinstance(df.plan, ParquetScan)
    assert [(Path(s.path).name, s.row_groups) for s in df.plan.splits] == [
        ("a.parquet", None),
        ("b.parquet", None),
    ]
    globbed = DataFrameReader(executor).parquet(str(a.parent / "**" / "*.parquet"))
    assert [Path(s.path).name for s in globbed.plan.splits] == ["skip.parquet", "a.parquet", "b.parquet"]
    assert DataFrameReader(executor).parquet(b).plan.splits[0].path == str(b.resolve())


def test_reader_errors_are_analysis_errors(executor: FakeExecutor, write_parquet, tmp_path: Path) -> None:
    reader = DataFrameReader(executor)
    with pytest.raises(AnalysisError, match="does not exist"):
        reader.parquet(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(AnalysisError, match="no .parquet files"):
        reader.parquet(tmp_path / "empty")
    with pytest.raises(AnalysisError, match="no file matches"):
        reader.parquet(str(tmp_path / "*.nothing"))
    (tmp_path / "bad.parquet").write_text("not parquet")
    with pytest.raises(AnalysisError, match="not a readable Parquet file"):
        reader.parquet(tmp_path / "bad.parquet")
    write_parquet("mixed/a.parquet")
    write_parquet("mixed/b.parquet", table=pa.table({"other": [1]}))
    with pytest.raises(AnalysisError, match="same columns"):
        reader.parquet(tmp_path / "mixed")
    assert issubclass(AnalysisError, PlanError) and issubclass(PlanError, ValueError)


def test_group_key_output_column_is_addressable(df) -> None:
    out = df.groupBy(F.col("k").alias("key")).agg(F.sum("x").alias("s"))
    assert out.columns == ["key", "s"]
    assert out.plan.keys[0] == NamedExpr(name="key", expr=Column(name="k"))
    out.filter(F.col("s") > 1).orderBy("key")


def test_star_forms(df) -> None:
    assert df.select(F.col("*")).columns == ["k", "x", "y"]
    with pytest.raises(AnalysisError, match="mixes aggregates"):
        df.select("*", F.sum("x"))
