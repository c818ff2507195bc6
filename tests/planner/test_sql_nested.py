"""SQL over arrays, maps and structs: generators and lateral views become the DataFrame
API's ``Generate``, collection calls the same plan expressions as ``F``'s, and what is not
supported says so, naming the construct. (Results against PySpark:
tests/spark/test_sql_nested.py.)"""

from __future__ import annotations

import pyarrow as pa
import pytest

from sparkwire import functions as F
from sparkwire.planner.api.sources import create_dataframe
from sparkwire.planner.errors import AnalysisError
from sparkwire.planner.logical.plan import Filter, Generate, operators
from sparkwire.planner.api.sources import sql_dataframe
from tests.planner.conftest import FakeExecutor

T = pa.table({
    "k": ["a"],
    "arr": pa.array([[1, 2]], pa.list_(pa.int32())),
    "m": pa.array([[("x", 1)]], pa.map_(pa.string(), pa.int64())),
    "s": pa.array([{"f": 1, "g": "p"}], pa.struct([("f", pa.int32()), ("g", pa.string())])),
})


@pytest.fixture
def sql(executor: FakeExecutor):
    views = {"t": create_dataframe(executor, T)}
    return lambda text: sql_dataframe(executor, text, views)


def generates(df) -> list[Generate]:
    return [op for op in operators(df.plan) if isinstance(op, Generate)]


def test_lateral_views_chain_generates_and_filter_above_them(sql) -> None:
    df = sql("select k, p, x, y from t lateral view outer posexplode(arr) a as p, x "
             "lateral view explode(array(x, 0)) b as y where y > 0 and k = 'a'")
    outer, inner = generates(df)  # top-down: the second lateral view is above the first
    assert (outer.kind, outer.outer, outer.position) == ("array", False, False)
    assert (inner.kind, inner.outer, inner.position) == ("array", True, True)
    filters = [op for op in operators(df.plan) if isinstance(op, Filter)]
    # the condition on a generated column is applied above the generator making it
    assert any(any(isinstance(o, Generate) for o in operators(f.input)) for f in filters)
    assert df.dtypes == [("k", "string"), ("p", "int"), ("x", "int"), ("y", "int")]


def test_a_generator_in_the_select_list_is_the_dataframe_apis(sql, executor: FakeExecutor) -> None:
    df = sql("select k, posexplode(m) as (p, key2, v) from t")
    api = create_dataframe(executor, T).select("k", F.posexplode("m").alias("p", "key2", "v"))
    assert generates(df)[0].model_copy(update={"input": None}) == \
        generates(api)[0].model_copy(update={"input": None})
    assert df.dtypes == api.dtypes
    assert sql("select explode(m) from t").columns == ["key", "value"]
    assert sql("select t.k, x from t, lateral explode(arr) as tt(x)").columns == ["k", "x"]


def test_unaliased_outputs_are_named_as_spark_names_them(sql) -> None:
    df = sql("select s['f'], s.g, t.s.f, m['x'], arr[0], element_at(arr, -1), s.f + 1, "
             "sort_array(arr), struct(k, s.f) from t")
    assert df.columns == ["s.f", "g", "f", "m[x]", "arr[0]", "element_at(arr, -1)", "(s.f + 1)",
                          "sort_array(arr, true)", "struct(k, s.f)"]


@pytest.mark.parametrize(("text", "message"), [
    ("select * from t lateral view explode(arr) tt", "lateral generator without column names"),
    ("select inline(arr) from t", "inline takes an array of structs"),
    ("select explode(arr) + 1 from t", "explode inside an expression is not supported by sparkwire"),
    ("select k from t where size(explode(arr)) > 0", "inside an expression is not supported"),
    ("select explode(arr), explode(m) from t", "a second generator in one SELECT is not supported"),
    ("select explode(collect_list(k)) from t", "generator of an aggregate .* not supported"),
    ("select k, explode(arr) from t group by k, arr", "generator in an aggregating SELECT"),
    ("select array_sort(arr) from t", "array_sort is not supported by sparkwire"),
    ("select x from t, lateral explode(arr) a(x), t u", "a join after a LATERAL item"),
    ("select x from t lateral view explode(k) a as x", "explode takes an array or a map"),
    ("select x from t lateral view explode(m) a as x", "makes 2 column"),
    ("select s.nope from t", "no struct field 'nope'"),
])
def test_unsupported_nested_sql_names_the_construct(sql, text: str, message: str) -> None:
    with pytest.raises(AnalysisError, match=message):
        sql(text)


def test_sql_expressions_reach_the_collection_functions() -> None:
    assert F.expr("array_contains(arr, 2)").expr == F.array_contains("arr", 2).expr
    assert F.expr("map('a', k)").expr == F.create_map(F.lit("a"), "k").expr
    assert F.expr("sort_array(arr, false)").expr == F.sort_array("arr", asc=False).expr
    assert F.expr("split(k, ',', 2)").expr == F.split("k", ",", 2).expr
    assert F.expr("arr[0]").expr == F.col("arr")[0].expr
    assert F.expr("element_at(arr, 1)").expr == F.element_at("arr", 1).expr
    assert F.expr("collect_set(k)").expr == F.collect_set("k").expr
