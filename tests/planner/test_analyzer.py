"""Name resolution and typing, as a PySpark user meets them."""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire.planner.api.sources import create_dataframe
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api import functions as F
from sparkwire.planner.logical.expressions import Column
from sparkwire.planner.logical.plan import Join
from tests.planner.conftest import FakeExecutor

T = pa.table({"id": pa.array([1], pa.int64()), "Name": ["a"], "price": pa.array([1], pa.decimal128(12, 2))})
U = pa.table({"id": pa.array([1], pa.int32()), "qty": [2.5]})


@pytest.fixture
def t(executor: FakeExecutor):
    return create_dataframe(executor, T)


@pytest.fixture
def u(executor: FakeExecutor):
    return create_dataframe(executor, U)


def test_names_resolve_ignoring_case_and_take_the_spelling_written(t) -> None:
    # as PySpark 4 names them (tests/spark/test_semantics.py): select("AMOUNT") of a column
    # `amount` is named AMOUNT; a filter keeps the columns' own names
    assert t.select("name", "ID").columns == ["name", "ID"]
    assert t.filter(F.col("PRICE") > 1).columns == ["id", "Name", "price"]
    with pytest.raises(AnalysisError, match="Did you mean 'price'"):
        t.select("PRCE")


def test_schema_is_known_before_running(t) -> None:
    df = t.select(
        (F.col("price") * 2).alias("p2"), F.col("id"),
        (F.col("id") / 2).alias("half"), F.length("Name").alias("n"),
    )
    # Spark types the literal 2 beside a decimal as decimal(1,0): the product is
    # decimal(12+1+1, 2) (checked against PySpark in tests/spark/test_result_types.py).
    assert df.arrow_schema == pa.schema([
        ("p2", pa.decimal128(14, 2)), ("id", pa.int64()), ("half", pa.float64()), ("n", pa.int32()),
    ])
    agg = t.groupBy("Name").agg(F.sum("id"), F.count("*"), F.avg("price"), F.sum("price"))
    assert agg.dtypes == [
        ("Name", "string"), ("sum(id)", "bigint"), ("count(1)", "bigint"),
        ("avg(price)", "decimal(16,6)"), ("sum(price)", "decimal(22,2)"),
    ]


def test_join_tells_same_named_columns_apart_by_their_dataframe(t, u) -> None:
    joined = t.join(u, t.id == u.id)
    assert joined.columns == ["id", "Name", "price", "id", "qty"]
    with pytest.raises(AnalysisError, match="ambiguous"):
        joined.select("id")
    picked = joined.select(u["id"], t.Name)
    assert picked.columns == ["id", "Name"]
    assert picked.plan.columns[0].expr == Column(name="id#2")
    assert picked.arrow_schema.field(0).type == pa.int32()
    assert joined.drop(u.id).columns == ["id", "Name", "price", "qty"]


def test_join_keys_are_coerced_to_one_type_and_the_rest_is_residual(t, u) -> None:
    plan = t.join(u, (t.id == u.id) & (t.price < u.qty), "left").plan
    assert isinstance(plan, Join)
    assert plan.left_keys == (Column(name="id"),)
    assert plan.right_keys[0].to == "int64"  # int32 widened to the left's int64
    assert plan.condition is not None


def test_qualified_names_through_aliases(t) -> None:
    a, b = t.alias("a"), t.alias("b")
    joined = a.join(b, F.col("a.id") == F.col("b.id"))
    assert joined.select("a.Name", "b.price").columns == ["Name", "price"]
    with pytest.raises(AnalysisError, match="ambiguous"):
        joined.select("Name")


def test_join_and_set_operation_errors(t, u) -> None:
    with pytest.raises(AnalysisError, match="unsupported join type"):
        t.join(u, "id", "sideways")
    with pytest.raises(AnalysisError, match="needs a join condition"):
        t.join(u, how="left")
    with pytest.raises(AnalysisError, match="same number of columns"):
        t.union(u)
    with pytest.raises(AnalysisError, match="no common type"):
        t.select("Name").union(u.select("qty"))
    assert t.select("id").union(u.select("id")).arrow_schema.field(0).type == pa.int64()
