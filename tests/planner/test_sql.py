"""The SQL front end builds the same kind of plans as DataFrames, and says clearly what it
cannot do and where. (Results against DuckDB: tests/e2e/test_tpch_sql.py.)"""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire.planner.api.sources import create_dataframe
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.api.sources import sql_dataframe
from sparkwire.planner.logical.plan import Join, operators
from tests.planner.conftest import FakeExecutor

T = pa.table({"k": pa.array([1], pa.int64()), "v": ["a"], "x": [1.5]})
U = pa.table({"k": pa.array([1], pa.int32()), "w": [2]})


@pytest.fixture
def sql(executor: FakeExecutor):
    views = {"t": create_dataframe(executor, T), "u": create_dataframe(executor, U)}
    return lambda text: sql_dataframe(executor, text, views)


def joins(df) -> list[Join]:
    return [op for op in operators(df.plan) if isinstance(op, Join)]


def test_comma_joins_become_keyed_joins_and_names_follow_spark(sql) -> None:
    df = sql("select t.k, sum(x) from t, u where t.k = u.k and w > 1 group by t.k")
    (join,) = joins(df)
    assert join.how == "inner" and len(join.left_keys) == 1
    assert df.columns == ["k", "sum(x)"]
    assert df.dtypes == [("k", "bigint"), ("sum(x)", "double")]


def test_subqueries_become_semi_anti_and_null_aware_joins(sql) -> None:
    hows = lambda df: sorted((j.how, j.null_aware) for j in joins(df))  # noqa: E731
    assert hows(sql("select * from t where exists (select 1 from u where u.k = t.k)")) == [("semi", False)]
    assert hows(sql("select * from t where not exists (select 1 from u where u.k = t.k and u.w <> t.k)")) == [("anti", False)]
    assert hows(sql("select * from t where k not in (select k from u)")) == [("anti", True)]
    assert hows(sql("select * from t where k in (select k from u group by k having sum(w) > 1)")) == [("semi", False)]
    scalar = sql("select * from t where x > (select avg(w) from u where u.k = t.k)")
    assert hows(scalar) == [("inner", False)]


def test_subqueries_under_or_become_left_joins_to_distinct_keys(sql) -> None:
    hows = lambda df: sorted(j.how for j in joins(df))  # noqa: E731
    exists = sql("select * from t where exists (select 1 from u where u.k = t.k) or x > 1")
    assert hows(exists) == ["left"]
    # IN where NULL is told from FALSE (IS NULL) adds the counts of the subquery's rows
    # and values; under OR alone it does not need them
    assert hows(sql("select * from t where k in (select w from u) or x > 1")) == ["left"]
    assert hows(sql("select * from t where (k in (select w from u)) is null or x > 1")) == ["cross", "left"]
    # a correlated scalar count keeps the outer rows whose group is missing (they count 0)
    assert hows(sql("select * from t where (select count(*) from u where u.k = t.k) = 0")) == ["left"]
    assert hows(sql("select * from t where (select max(w) from u where u.k = t.k) = 0")) == ["inner"]


@pytest.mark.parametrize(("text", "message"), [
    ("select * from nowhere", "unknown table 'nowhere'"),
    ("select * from t where exists (select 1 from u where u.w > t.x) or k = 1",
     "a correlated condition other than an equality in a subquery under OR, NOT or CASE"),
    ("select k from t where", "cannot parse SQL at line 1"),
    ("select nope from t", "nope"),
    ("select k from t; select k from u", "one SQL statement"),
    ("insert into t values (1, 'a', 1.0)", "only queries"),
    ("select k from t offset k", "OFFSET other than a non-negative integer"),
    ("select percentile_cont(0.5) within group (order by x) from t", "not supported"),
])
def test_unsupported_or_wrong_sql_is_an_analysis_error_naming_it(sql, text: str, message: str) -> None:
    with pytest.raises(AnalysisError, match=message):
        sql(text)
